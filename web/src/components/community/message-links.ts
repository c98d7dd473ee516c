// Splits a chat message into plain text and web addresses. Only http(s) addresses become links;
// anything else (javascript:, data:, a bare "www.") stays text. The pieces are rendered as
// elements and text nodes, so a message can never inject markup.

export type MessagePiece = { kind: 'text'; text: string } | { kind: 'link'; text: string; href: string };

const ADDRESS = /\bhttps?:\/\/[^\s<>"'`]+/gi;
/** Punctuation that ends a sentence rather than an address: "see https://example.org." */
const TRAILING = /[.,;:!?*'"]+$/;

/** Drops trailing punctuation, and a closing bracket that has no opening one inside the address. */
function trimAddress(candidate: string): string {
  let address = candidate;
  for (;;) {
    const before = address;
    address = address.replace(TRAILING, '');
    for (const [open, close] of [
      ['(', ')'],
      ['[', ']'],
    ] as const) {
      if (address.endsWith(close) && address.split(open).length < address.split(close).length)
        address = address.slice(0, -1);
    }
    if (address === before) return address;
  }
}

/** The address as a safe href: parsed, http(s) only, with a host; null otherwise. */
export function safeHref(address: string): string | null {
  try {
    const url = new URL(address);
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') return null;
    return url.href;
  } catch {
    return null;
  }
}

export function messagePieces(content: string): MessagePiece[] {
  const pieces: MessagePiece[] = [];
  let textStart = 0;
  for (const match of content.matchAll(ADDRESS)) {
    const address = trimAddress(match[0]);
    const href = safeHref(address);
    if (!href) continue;
    const start = match.index;
    if (start > textStart) pieces.push({ kind: 'text', text: content.slice(textStart, start) });
    pieces.push({ kind: 'link', text: address, href });
    textStart = start + address.length;
  }
  if (textStart < content.length) pieces.push({ kind: 'text', text: content.slice(textStart) });
  return pieces;
}
