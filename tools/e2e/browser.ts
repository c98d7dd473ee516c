// Debian's Chromium under playwright-core: never a downloaded browser. The flags keep a headless
// run quiet on a machine without internet (no background networking, sync or component updates).
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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

/** `extraArgs`: more command-line switches (a host-resolver rule that maps a name to 127.0.0.1). */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: assertChromium(),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}
