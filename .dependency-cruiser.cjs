// What may import what, checked by dependency-cruiser (`npm run lint:deps`, part of `npm run lint`).
// The parts and the reasons are in docs/architecture.md#what-may-import-what. Paths are relative to
// the repository's root; every import is resolved as TypeScript and Node resolve it (tsconfig.json
// and the `imports` map of package.json), type-only imports included: a type pulled from the wrong
// side couples the parts as surely as a value does.

/** Tests, their helpers and developer tooling: everything that never ships in the product. */
const NOT_PRODUCT = [
  '\\.test\\.tsx?$', // *.test.ts, *.parity.test.ts, *.pg.test.ts, *.e2e.test.ts
  '\\.bench\\.ts$',
  '(^|/)test/', // a part's own test helpers (gateway/test, localbase/test)
  '(^|/)e2e/', // browser test drivers
  '(^|/)fixtures/', // child processes and files the tests start or read
  '^tools/',
  '^playwright\\.config\\.ts$', // the browser tests' runner (npm run test:e2e)
  '^vitest\\.(checks\\.|pg\\.)?config\\.ts$', // the vitest runs' configs (npm test, test:checks, test:pg)
];

/** An import of an npm package, whatever kind of dependency package.json makes it. */
const NPM = ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-bundled', 'npm-no-pkg', 'npm-unknown'];

/** What runs in a browser or a phone's web view (vite bundles it): no Node, no server. */
const BROWSER = ['^web/src/', '^companion/core/', '^companion/ui/src/'];

/** The server and the tooling around it. */
const SERVER = ['^gateway/', '^localbase/', '^db/', '^config/', '^pgtap/', '^tools/'];

/**
 * Imports of localbase's insides from outside it that stay on purpose, one file at a time. Each
 * entry: the importing file, the inner modules it may reach (nothing else), and why.
 */
const LOCALBASE_INTERNAL_READERS = [
  {
    from: '^tools/security/attacks/statement-freeze\\.parity\\.test\\.ts$',
    to: [
      '^localbase/src/request-transaction\\.ts$',
      '^localbase/src/statement-timeouts\\.ts$',
      '^localbase/src/request-context\\.ts$',
    ],
    why:
      'the attack test shortens the statement timeouts with a hook meant for tests only (it must not ' +
      'be on the public entry) and runs a request transaction, role by role, to read the timeout it sets.',
  },
  {
    from: '^tools/bench/realtime-check\\.bench\\.ts$',
    to: ['^localbase/src/realtime/visibility\\.ts$'],
    why:
      'the bench times the realtime visibility statement itself, installed on a bare database, to ' +
      'compare chat read policies without the socket and hub around it.',
  },
];

/**
 * Cycles that stay for now, each named by the files it is made of: a cycle is let through only
 * when every module in it is one of these. Both are type-only imports (erased at run time) in
 * localbase/src/rest/, which another change is reshaping: relationships.ts takes catalog.ts's
 * `Table` type while catalog.ts loads the relationships. Moving `Table` into a module of its own
 * removes it; then delete the entry.
 */
const KNOWN_CYCLE_MODULES = ['^localbase/src/rest/catalog\\.ts$', '^localbase/src/rest/relationships\\.ts$'];

const forbidden = [
  {
    name: 'no-circular',
    comment:
      'Two modules that import each other (directly or through others) cannot be understood, tested or ' +
      'moved apart; a cycle also makes the order of module initialisation decide what a value is.',
    severity: 'error',
    from: {},
    // One regular expression, not an array: dependency-cruiser 17.4.3 reads an array in via.pathNot
    // as its comma-joined text, which matches nothing.
    to: { circular: true, ...(KNOWN_CYCLE_MODULES.length ? { via: { pathNot: KNOWN_CYCLE_MODULES.join('|') } } : {}) },
  },
  {
    name: 'browser-not-to-server',
    comment:
      'Browser code (the web app, the companion) is bundled for a browser: server code there would ship ' +
      'server internals to every student, or fail to build.',
    severity: 'error',
    from: { path: BROWSER, pathNot: NOT_PRODUCT },
    to: { path: SERVER },
  },
  {
    name: 'browser-not-to-node',
    comment: 'Browser code runs in a browser: Node builtins do not exist there.',
    severity: 'error',
    from: { path: BROWSER, pathNot: NOT_PRODUCT },
    to: { dependencyTypes: ['core'] },
  },
  {
    name: 'companion-not-to-web',
    comment:
      'The companion is a separate app (its own build, its own Android shell): what it shares with the ' +
      "web app is the wire format in contracts/, never the web app's code. Tests included.",
    severity: 'error',
    from: { path: '^companion/' },
    to: { path: '^web/' },
  },
  {
    name: 'product-not-to-tools',
    comment:
      'tools/ is developer tooling (benches, browser drivers, test helpers): product code does not ' +
      'depend on it, so the product builds and runs without it and tooling may change freely.',
    severity: 'error',
    from: { pathNot: NOT_PRODUCT },
    to: { path: '^tools/' },
  },
  {
    name: 'localbase-only-through-server',
    comment:
      'localbase is used through its one public entry, localbase/server.ts (#localbase): its insides ' +
      'may change shape without touching any other part.',
    severity: 'error',
    from: { pathNot: ['^localbase/', ...LOCALBASE_INTERNAL_READERS.map((entry) => entry.from)] },
    to: { path: '^localbase/', pathNot: ['^localbase/server\\.ts$', '^localbase/test/'] },
  },
  ...LOCALBASE_INTERNAL_READERS.map((entry) => ({
    name: 'localbase-only-through-server',
    comment: `An allowed reader of localbase's insides, limited to what it names: ${entry.why}`,
    severity: 'error',
    from: { path: entry.from },
    to: { path: '^localbase/', pathNot: ['^localbase/server\\.ts$', '^localbase/test/', ...entry.to] },
  })),
  {
    name: 'localbase-test-helpers-only-in-tests',
    comment: 'localbase/test/ holds helpers for tests and tools; product code never reaches them.',
    severity: 'error',
    from: { pathNot: ['^localbase/', ...NOT_PRODUCT] },
    to: { path: '^localbase/test/' },
  },
  {
    name: 'contracts-stand-alone',
    comment:
      'contracts/ is the wire format both ends read (server, web app, companion): it may import npm ' +
      'packages (zod) and other contracts only, so any side can import it without pulling in another.',
    severity: 'error',
    from: { path: '^contracts/' },
    to: { pathNot: '^contracts/', dependencyTypesNot: NPM },
  },
  {
    name: 'config-stand-alone',
    comment:
      'config/ is the environment schema every entry point reads, db/ included: it may import npm packages, ' +
      'Node and other config modules only, so reading the configuration never pulls in the parts it configures.',
    severity: 'error',
    from: { path: '^config/', pathNot: NOT_PRODUCT },
    to: { pathNot: '^config/', dependencyTypesNot: [...NPM, 'core'] },
  },
  {
    name: 'cross-part-through-imports-map',
    comment:
      'An import that leaves its part goes through the imports map of package.json (#localbase, #db/*, ...), ' +
      'never through ../../..: the alias names the part it depends on, and moving a file inside a part ' +
      'does not break another part. Files at the root (capacitor.config.ts) have no part.',
    severity: 'error',
    from: { path: '^([^/]+)/' },
    to: {
      path: '^[^/]+/',
      pathNot: ['^$1/', '(^|/)node_modules/'],
      couldNotResolve: false,
      dependencyTypesNot: ['aliased-subpath-import', ...NPM, 'core'],
    },
  },
  {
    name: 'not-to-unresolvable',
    comment: 'An import that does not resolve is a broken build, and the rules above could not see where it leads.',
    severity: 'error',
    from: {},
    to: { couldNotResolve: true },
  },
];

module.exports = {
  forbidden,
  options: {
    // Build output, data and the Android project's generated files are not sources.
    exclude: { path: '(^|/)(dist|\\.build|\\.data|\\.tmp|coverage)(/|$)|^companion/android/' },
    doNotFollow: { path: '(^|/)node_modules/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    // node_modules may be a link to a shared install: keep its packages under node_modules/.
    preserveSymlinks: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.d.ts', '.js', '.mjs', '.cjs', '.mts', '.d.mts'],
    },
  },
};
