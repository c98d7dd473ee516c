// Debian's Chromium under Playwright: never a downloaded browser. The flags keep a headless run
// quiet on a machine without internet (no background networking, sync or component updates).
// playwright.config.ts launches it with these for every suite; launchChromium is for a script, or a
// suite whose browser needs switches known only once its server runs (https-lan).
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContextOptions, type LaunchOptions } from 'playwright-core';

export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.CHROMIUM_PATH ?? '/usr/bin/chromium';
}

export function assertChromium(): string {
  const executable = chromiumPath();
  if (!existsSync(executable)) {
    throw new Error(`Chromium not found at ${executable}; run \`npm run setup:system\` or set CHROMIUM_PATH`);
  }
  return executable;
}

/** The command-line switches of every launch. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Playwright's launch options for Debian's Chromium; `extraArgs`: more command-line switches (a
 * host-resolver rule that maps a name to 127.0.0.1). A suite that needs such a switch sets these
 * with `test.use({ launchOptions })`, which replaces the config's, so they always name the browser.
 */
export function chromiumLaunchOptions(extraArgs: string[] = []): LaunchOptions {
  return { executablePath: chromiumPath(), args: [...CHROMIUM_ARGS, ...extraArgs] };
}

export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ ...chromiumLaunchOptions(extraArgs), executablePath: assertChromium(), headless: true });
}

/** The switch that makes Chromium resolve `host` to 127.0.0.1 (a name that is neither loopback nor https). */
export function mapHostToLoopback(host: string): string {
  return `--host-resolver-rules=MAP ${host} 127.0.0.1`;
}

/**
 * The two devices a student uses, as browser-context options: the e2e projects' (playwright.config.ts),
 * and what a suite passes for a context that must be one of them whatever the project.
 */
export const DEVICES = {
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
  desktop: { viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false, deviceScaleFactor: 1 },
} satisfies Record<string, BrowserContextOptions>;

export type Device = (typeof DEVICES)[keyof typeof DEVICES];
