// Shared steps for the community's browser tests and bench: students with a display name and a
// handle, reads through the Data API as a student (so RLS applies, as in the app), the restore
// offer a fresh browser may show, and what a page's chat holds.
import type { Page } from 'playwright-core';
import { accountSession, type SessionJson } from './app-driver.ts';

export interface Student {
  name: string;
  handle: string;
  email: string;
  session: SessionJson;
  id: string;
}

/** Signs a student up through the gateway and gives them a display name and a handle. */
export async function student(baseUrl: string, name: string, handle: string): Promise<Student> {
  const email = `${handle}@example.com`;
  const session = await accountSession(baseUrl, email, `${handle}-password-1`);
  const answer = await fetch(`${baseUrl}/__auth/profile`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${session.access_token}` },
    body: JSON.stringify({ display_name: name, handle }),
  });
  if (!answer.ok) throw new Error(`setting ${name}'s profile failed: ${answer.status} ${await answer.text()}`);
  return { name, handle, email, session, id: session.user.id };
}

let anonKeyCache: string | undefined;
async function anonKey(baseUrl: string): Promise<string> {
  anonKeyCache ??= ((await (await fetch(`${baseUrl}/api/client-config`)).json()) as { anon_key: string }).anon_key;
  return anonKeyCache;
}

/** A Data API call as the student, through the gateway's /__backend (RLS decides, as in the app). */
export async function asStudent<T = unknown>(
  baseUrl: string,
  who: Student,
  path: string,
  init: { method?: string; body?: unknown; prefer?: string } = {},
): Promise<T> {
  const response = await fetch(`${baseUrl}/__backend${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: {
      apikey: await anonKey(baseUrl),
      authorization: `Bearer ${who.session.access_token}`,
      'content-type': 'application/json',
      ...(init.prefer ? { prefer: init.prefer } : {}),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${path} answered ${response.status}: ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

/** The privacy switches of a community enrollment (the app's Privacy page). */
export interface Privacy {
  stealthMode: boolean;
  shareTasks: boolean;
  shareSubjectBreakdown: boolean;
  shareQuestionCounts: boolean;
  shareExactTime: boolean;
  shareCurrentSubject: boolean;
}

/** What a new enrollment shares: only the exact time, nothing of what is studied. */
export const SHARE_TIME_ONLY: Privacy = {
  stealthMode: false,
  shareTasks: false,
  shareSubjectBreakdown: false,
  shareQuestionCounts: false,
  shareExactTime: true,
  shareCurrentSubject: false,
};

/** The student agrees to take part in the community, with these switches (the rest as SHARE_TIME_ONLY). */
export async function enroll(
  baseUrl: string,
  who: Student,
  privacy: Partial<Privacy>,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await asStudent(baseUrl, who, `/rest/v1/community_enrollments?user_id=eq.${who.id}`, {
    method: 'PATCH',
    body: { consent: true, ...extra, privacy: { ...SHARE_TIME_ONLY, ...privacy } },
  });
}

/** A fresh browser is offered a backup that holds what the server lacks: decline it. */
export async function dismissRestoreOffer(page: Page): Promise<void> {
  const offer = page.getByRole('dialog', { name: 'Restore your backup on this device?' });
  if (await offer.isVisible().catch(() => false)) await offer.getByRole('button', { name: 'Not now' }).click();
}

/** The ids of the messages a page's chat shows, top to bottom. */
export function chatIds(page: Page): Promise<string[]> {
  return page
    .locator('.chat-message')
    .evaluateAll((nodes) => nodes.map((node) => (node as HTMLElement).dataset.messageId ?? ''));
}

/** Resolves once the page's chat shows a message with exactly this text. */
export function chatShows(page: Page, text: string, timeoutMs: number): Promise<unknown> {
  return page.waitForFunction(
    (wanted) => [...document.querySelectorAll('.chat-text')].some((node) => node.textContent === wanted),
    text,
    { timeout: timeoutMs, polling: 'raf' },
  );
}
