// A phone in Chromium: 390 x 844, touch, mobile, in the given colour scheme. Every response of the
// remote carries the gateway's Content-Security-Policy (the web app's; added here were it missing),
// and any violation is recorded, so a test proves the remote runs under it.
import type { Browser, BrowserContext, Page } from 'playwright-core';

export const PHONE_VIEWPORT = { width: 390, height: 844 };

/**
 * tsx (esbuild with keepNames) wraps named functions in __name(...) calls, which then travel into the
 * browser with page.evaluate; this defines that helper there (as a string, so it is not rewritten).
 */
export const NAME_HELPER = 'globalThis.__name = (target) => target;';

export const APP_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; " +
  "font-src 'self'; worker-src 'self'; manifest-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

export interface Phone {
  context: BrowserContext;
  page: Page;
  /** CSP violations and uncaught errors seen so far. */
  problems(): Promise<string[]>;
}

export async function openPhone(
  browser: Browser,
  url: string,
  colorScheme: 'light' | 'dark' = 'light',
  /**
   * `addCsp: false` leaves the remote's answers as the server sent them: for a remote opened at a
   * host name that only the browser's resolver rules know (Node cannot fetch it), and whose page
   * must come from the server's own address for Chromium to let it call that address.
   */
  { addCsp = true }: { addCsp?: boolean } = {},
): Promise<Phone> {
  const context = await browser.newContext({
    viewport: PHONE_VIEWPORT,
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    colorScheme,
    // The worker would answer from its cache around the CSP route below; it is tested on its own.
    serviceWorkers: 'block',
  });
  // The gateway sends the app's policy with the remote; were it missing, the test adds it, so the
  // remote is proven to run under it either way (and a stricter one sent by the gateway stays).
  if (addCsp)
    await context.route('**/companion/**', async (route) => {
      const response = await route.fetch();
      const headers = response.headers();
      if (headers['content-security-policy']) return route.fulfill({ response });
      await route.fulfill({ response, headers: { ...headers, 'content-security-policy': APP_CSP } });
    });
  await context.addInitScript(NAME_HELPER);
  await context.addInitScript(() => {
    const seen: string[] = [];
    Object.assign(window, { __companionProblems: seen });
    document.addEventListener('securitypolicyviolation', (event) =>
      seen.push(`CSP ${event.violatedDirective} ${event.blockedURI}`),
    );
    window.addEventListener('error', (event) => seen.push(`error ${event.message}`));
  });
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(`pageerror ${error.message}`));
  await page.goto(url);
  return {
    context,
    page,
    problems: async () => [
      ...pageErrors,
      ...(await page.evaluate(() => (window as unknown as { __companionProblems: string[] }).__companionProblems)),
    ],
  };
}
