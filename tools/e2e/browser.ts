// Debian's Chromium under Playwright: never a downloaded browser. The flags keep a headless run
// quiet on a machine without internet (no background networking, sync or component updates).
// playwright.config.ts launches it with these for every suite; launchChromium is for a script, or a
// suite whose browser needs more switches known only once its server runs (https-lan).
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContextOptions } from 'playwright-core';

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

/** `extraArgs`: more command-line switches (a host-resolver rule that maps a name to 127.0.0.1). */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: assertChromium(), headless: true, args: [...CHROMIUM_ARGS, ...extraArgs] });
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
