// The web app's real /focus page in a desktop Chromium context, signed in as its own student, for
// the companion's browser tests and benchmark. It is driven by role and accessible name, as a
// student would: add a subject, Start, open "Phone remote" and read the pairing code, and read the
// QR code off the screen (its pixels, decoded) to give a phone the link a camera would open.
//
// Every test here runs on loopback, so the server has no LAN address to offer; the context answers
// /api/client-config with the test server's own address in `companion_urls`, standing in for the
// LAN address a real server lists, so the panel draws its QR code. Every HTML answer carries the
// app's Content-Security-Policy (the gateway may not send it yet) and violations are recorded.
import decodeQR from 'qr/decode.js';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import {
  accountSession,
  APP_CSP,
  collectCspViolations,
  signedInContext,
  VIEWPORTS,
  type CspViolation,
} from '../app-driver.ts';
import { NAME_HELPER } from './phone.ts';

export interface FocusPageOptions {
  /** The student's e-mail (each focus page of a test is its own student unless two share one). */
  email: string;
  subject: string;
}

export type CounterName = 'Correct' | 'Incorrect' | 'Skip';

export interface FocusPage {
  context: BrowserContext;
  page: Page;
  /** The pairing code the page shows (PIP_PAIRING=on), read off the panel; undefined when off. */
  code: string | undefined;
  /** The link the page's QR code holds, decoded from its pixels. */
  qrLink: string;
  /** CSP violations seen on this page. */
  violations: CspViolation[];
  /** The number on a counter button, as the page shows it. */
  count(counter: CounterName): Promise<number>;
  /** The target as the page shows it: "None set" or "3 of 35 answered". */
  targetText(): Promise<string>;
  /** Resolves when the page shows `value` on the counter; rejects after timeoutMs. */
  waitForCount(counter: CounterName, value: number, timeoutMs: number): Promise<void>;
  /** Presses a control of the page (Pause, Resume, Finish, Correct...), closing the remote's panel first as a student would. */
  press(name: string): Promise<void>;
  /** The phone remote's panel, opened (once) with its button. */
  remotePanel(): Promise<Locator>;
}

/** A context of a signed-in student whose client config names `phoneUrl` as the LAN address. */
export async function studentContext(
  browser: Browser,
  appUrl: string,
  email: string,
  phoneUrl = appUrl,
): Promise<BrowserContext> {
  const session = await accountSession(appUrl, email, `${email}-password-1`);
  // The service worker would answer around these routes; the app's offline life is tested on its own.
  const context = await signedInContext(browser, session, { viewport: VIEWPORTS.desktop, serviceWorkers: 'block' });
  await context.addInitScript(NAME_HELPER);
  await context.route(`${appUrl}/**`, async (route) => {
    const request = route.request();
    if (new URL(request.url()).pathname === '/api/client-config') {
      const response = await route.fetch();
      const config = (await response.json()) as Record<string, unknown>;
      return route.fulfill({ response, json: { ...config, companion_urls: [phoneUrl] } });
    }
    // Only documents are fetched here: a stream (the page's /__pip/events) must pass untouched.
    if (request.resourceType() !== 'document') return route.continue();
    const response = await route.fetch();
    const headers = response.headers();
    if (headers['content-security-policy']) return route.fulfill({ response });
    await route.fulfill({ response, headers: { ...headers, 'content-security-policy': APP_CSP } });
  });
  return context;
}

/** Reads the QR code's pixels in the page (drawn on a canvas, 6 px a module) and decodes them. */
export async function readQrCode(page: Page): Promise<string> {
  const image = await page.locator('svg.qr').evaluate(async (svg) => {
    const scale = 6;
    const size = Number(svg.getAttribute('viewBox')?.split(' ')[2]);
    const clone = svg.cloneNode(true) as SVGSVGElement;
    // The page colours the code with its stylesheet, which a standalone image does not have.
    for (const selector of ['rect', 'path']) {
      const painted = svg.querySelector(selector);
      if (painted) clone.querySelector(selector)?.setAttribute('fill', getComputedStyle(painted).fill);
    }
    clone.setAttribute('width', String(size * scale));
    clone.setAttribute('height', String(size * scale));
    const url = URL.createObjectURL(
      new Blob([new XMLSerializer().serializeToString(clone)], { type: 'image/svg+xml' }),
    );
    const picture = new Image();
    await new Promise((resolve, reject) => {
      picture.onload = resolve;
      picture.onerror = reject;
      picture.src = url;
    });
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = size * scale;
    const drawing = canvas.getContext('2d');
    if (!drawing) throw new Error('no 2d canvas');
    drawing.drawImage(picture, 0, 0);
    URL.revokeObjectURL(url);
    return {
      width: canvas.width,
      height: canvas.height,
      data: Array.from(drawing.getImageData(0, 0, canvas.width, canvas.height).data),
    };
  });
  return decodeQR({ width: image.width, height: image.height, data: Uint8ClampedArray.from(image.data) });
}

/** Opens /focus in its own signed-in context, picks a new subject, starts, and reads the pairing. */
export async function openFocusPage(
  browser: Browser,
  appUrl: string,
  { email, subject }: FocusPageOptions,
): Promise<FocusPage> {
  const context = await studentContext(browser, appUrl, email);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const violations = await collectCspViolations(page);
  await page.goto(`${appUrl}/focus`);
  await page.getByRole('button', { name: 'Start' }).waitFor();
  await page.getByLabel('Subject').selectOption({ label: 'New subject…' });
  await page.getByLabel('New subject').fill(subject);
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await page.getByLabel('Subject').locator('option:checked', { hasText: subject }).waitFor({ state: 'attached' });
  await page.getByRole('button', { name: 'Start' }).click();
  await page.getByRole('button', { name: 'Pause' }).waitFor();

  let panel: Locator | undefined;
  const remotePanel = async () => {
    panel ??= page.getByRole('region', { name: 'Phone remote' });
    if (!(await panel.isVisible())) await page.getByRole('button', { name: /^Phone remote/ }).click();
    await panel.waitFor();
    return panel;
  };
  const opened = await remotePanel();
  // The status says the page has its code (or knows pairing is off) and its stream is up.
  await opened.getByText(/^(Waiting for your phone|No phone yet|Phone connected)$/).waitFor();
  const codeElement = opened.getByLabel('Pairing code');
  const code =
    (await codeElement.count()) > 0 ? ((await codeElement.textContent()) ?? '').replace(/\s/g, '') : undefined;
  await opened.getByRole('img', { name: /^QR code/ }).waitFor();
  const qrLink = await readQrCode(page);

  const counter = (name: CounterName) => page.getByRole('button', { name, exact: true }).locator('.counter-value');
  return {
    context,
    page,
    code,
    qrLink,
    violations,
    count: async (name) => Number(await counter(name).textContent()),
    targetText: async () => ((await page.locator('#target-value').textContent()) ?? '').trim(),
    async waitForCount(name, value, timeoutMs) {
      await counter(name)
        .filter({ hasText: new RegExp(`^${value}$`) })
        .waitFor({ timeout: timeoutMs });
    },
    async press(name) {
      if (panel && (await panel.isVisible())) {
        await page.keyboard.press('Escape');
        await panel.waitFor({ state: 'detached' });
      }
      await page.getByRole('button', { name, exact: true }).click();
    },
    remotePanel,
  };
}
