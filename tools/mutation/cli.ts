// `npm run test:mutation`: mutation testing of the row-level security policies. Builds the schema
// once on a throwaway PostgreSQL 15, derives mutants from the catalog (every policy in public, on
// storage.objects and on realtime.messages widened clause by clause and dropped, RLS disabled per
// table), runs the pgTAP suite against each on a fresh copy, and fails unless every non-equivalent
// mutant is killed.
// The suite's first file (supabase/tests/000-setup-tests-hooks.sql) runs once, on the template, so
// every copy starts with the tests.* helpers committed, as every file after the first does under
// `supabase test db`; the teardown file is not run (each copy is dropped whole).
//   --jobs N     mutants run at once (default: the machine's available parallelism)
//   --only TEXT  run only mutants whose label contains TEXT (for working on one policy's tests)
import os from 'node:os';
import pg from 'pg';
import { startCluster } from '../pg/cluster.ts';
import { useMemoryScratch } from '../testing/memory-scratch.ts';
import { runPgtapFile, type PgtapFileRun } from '#pgtap/run-file.ts';
import { readSuite, type SuiteFile } from '#pgtap/suite.ts';
import { readCatalog, type Catalog } from './catalog.ts';
import { mutantsOf } from './mutants.ts';
import { checkBaseline, runMutants, type MutantResult } from './run-mutants.ts';

interface Options {
  jobs: number;
  only: string | undefined;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { jobs: os.availableParallelism(), only: undefined };
  for (let index = 0; index < argv.length; index += 1) {
    const flag = argv[index];
    const value = argv[index + 1];
    if (flag === '--jobs' && value && /^[1-9]\d*$/.test(value)) {
      options.jobs = Number(value);
      index += 1;
    } else if (flag === '--only' && value) {
      options.only = value;
      index += 1;
    } else {
      throw new Error(`unknown or incomplete option ${flag} (use --jobs N, --only TEXT)`);
    }
  }
  return options;
}

function seconds(milliseconds: number): string {
  return `${(milliseconds / 1000).toFixed(1)} s`;
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? '';
}

function describeResult(result: MutantResult): string {
  const cost = `${result.filesRun} file${result.filesRun === 1 ? '' : 's'}, ${seconds(result.milliseconds)}`;
  return result.killed
    ? `killed   ${result.mutant.label} (${cost})\n           by ${result.killedBy?.file}: ${firstLine(result.killedBy?.problem ?? '')}`
    : `SURVIVED ${result.mutant.label} (all ${cost}, every file passes)`;
}

/** Installs the tests.* helpers on the template (its copies inherit them) and reads its catalog. */
async function prepareTemplate(url: string, setupFile: SuiteFile): Promise<{ setup: PgtapFileRun; catalog: Catalog }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const setup = await runPgtapFile(client, setupFile.sql, setupFile.name);
    return { setup, catalog: await readCatalog(client) };
  } finally {
    await client.end();
  }
}

async function main(): Promise<number> {
  const started = performance.now();
  const options = parseOptions(process.argv.slice(2));
  const suite = readSuite();
  const files = suite.tests;
  // The cluster and the copies made for every mutant (tools/testing/memory-scratch.ts).
  useMemoryScratch();
  const cluster = await startCluster({ withPgtap: true });
  try {
    const { setup, catalog } = await prepareTemplate(cluster.url, suite.setup);
    if (!setup.passed) {
      console.error(`test:mutation: ${suite.setup.name} failed on the template:\n${setup.problems.join('\n')}`);
      return 1;
    }
    const all = mutantsOf(catalog).filter((mutant) => !options.only || mutant.label.includes(options.only));
    const equivalent = all.filter((mutant) => mutant.equivalentBecause !== undefined);
    const live = all.filter((mutant) => mutant.equivalentBecause === undefined);
    console.log(
      `test:mutation: ${catalog.policies.length} policies on ${catalog.tables.length} tables; ` +
        `${all.length} mutants, ${equivalent.length} equivalent, ${live.length} to kill; ` +
        `${files.length} pgTAP files; ${options.jobs} at a time on PostgreSQL 15 (port ${cluster.port})`,
    );

    const baseline = await checkBaseline(cluster.url, files);
    if (baseline) {
      console.error(
        `test:mutation: the suite fails on the unmutated schema, so no mutant can be judged:\n` +
          `  ${baseline.file}: ${baseline.problem}`,
      );
      return 1;
    }

    const results = await runMutants(live, {
      templateUrl: cluster.url,
      files,
      jobs: options.jobs,
      onResult: (result, done, total) => console.log(`[${done}/${total}] ${describeResult(result)}`),
    });

    if (equivalent.length > 0) {
      console.log('\nEquivalent mutants (cannot change behaviour; not run, not counted):');
      for (const mutant of equivalent) console.log(`  ${mutant.label}: ${mutant.equivalentBecause}`);
    }
    const survivors = results.filter((result) => !result.killed);
    if (survivors.length > 0) {
      console.log('\nSurvivors (no pgTAP assertion notices the change; add the test that does):');
      for (const result of survivors) console.log(`  ${result.mutant.label}\n    ${result.mutant.sql}`);
    }
    const killed = results.length - survivors.length;
    console.log(
      `\n${killed}/${results.length} mutants killed (${equivalent.length} equivalent not counted) ` +
        `in ${seconds(performance.now() - started)}`,
    );
    return survivors.length === 0 ? 0 : 1;
  } finally {
    await cluster.stop();
  }
}

try {
  process.exitCode = await main();
} catch (error) {
  console.error(`test:mutation: ${(error as Error).message}`);
  process.exitCode = 1;
}
