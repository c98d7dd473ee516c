// The admin console's only templating: an `html` tagged template that escapes every interpolated
// value, and `raw()` for the few fragments that are trusted markup already (another `html` result
// is trusted by construction). Arrays are joined; null, undefined and false render nothing.
//
//   html`<td>${user.email}</td>`            -> the e-mail, escaped
//   html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>`
//   html`<script nonce="${nonce}">${raw(SCRIPT)}</script>`

export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? character);
}

/** Marks trusted markup: a constant, never anything that came from a request or the database. */
export function raw(text: string): SafeHtml {
  return new SafeHtml(text);
}

export type HtmlValue = SafeHtml | string | number | bigint | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let text = strings[0] ?? '';
  values.forEach((value, index) => {
    text += render(value) + (strings[index + 1] ?? '');
  });
  return new SafeHtml(text);
}

/**
 * JSON for a `<script type="application/json">` block: `<`, `>`, `&` and the line separators are
 * escaped so no value can close the element or start a comment.
 */
export function jsonForScript(value: unknown): SafeHtml {
  const text = JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  return new SafeHtml(text);
}
