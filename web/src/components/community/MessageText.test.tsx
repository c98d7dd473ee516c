// @vitest-environment happy-dom
// Web addresses in a chat message become links, safely: only http(s), opened in a new tab with
// rel="noopener noreferrer nofollow ugc", sentence punctuation left outside, and markup in a
// message staying text.
import { cleanup, render } from '@testing-library/preact';
import { afterEach, describe, expect, it } from 'vitest';
import { messagePieces, safeHref } from './message-links.ts';
import { MessageText } from './MessageText.tsx';

afterEach(cleanup);

function shown(content: string) {
  const { container } = render(
    <p>
      <MessageText content={content} />
    </p>,
  );
  return { container, links: [...container.querySelectorAll('a')] };
}

describe('MessageText', () => {
  it('makes an https address a link that opens in a new tab and tells the target nothing', () => {
    const { container, links } = shown('Notes are at https://example.org/anatomy?week=3#heart, have a look');
    expect(container.textContent).toBe('Notes are at https://example.org/anatomy?week=3#heart, have a look');
    expect(links).toHaveLength(1);
    expect(links[0]!.getAttribute('href')).toBe('https://example.org/anatomy?week=3#heart');
    expect(links[0]!.textContent).toBe('https://example.org/anatomy?week=3#heart');
    expect(links[0]!.getAttribute('target')).toBe('_blank');
    expect(links[0]!.getAttribute('rel')).toBe('noopener noreferrer nofollow ugc');
  });

  it('links several http and https addresses and leaves the text between them alone', () => {
    const { links, container } = shown('a http://one.example/x and (https://two.example/y).');
    expect(links.map((link) => link.getAttribute('href'))).toEqual(['http://one.example/x', 'https://two.example/y']);
    expect(container.textContent).toBe('a http://one.example/x and (https://two.example/y).');
  });

  it('keeps a bracket that belongs to the address', () => {
    const { links } = shown('see https://en.wikipedia.org/wiki/Heart_(disambiguation).');
    expect(links[0]!.getAttribute('href')).toBe('https://en.wikipedia.org/wiki/Heart_(disambiguation)');
  });

  it('never links javascript:, data: or other schemes, and keeps markup as text', () => {
    const content =
      'javascript:alert(1) data:text/html,<b>x</b> <a href="javascript:alert(2)">click</a> <img src=x onerror=alert(3)> ftp://files.example/a';
    const { container, links } = shown(content);
    expect(links).toHaveLength(0);
    expect(container.querySelector('img, b')).toBeNull();
    expect(container.textContent).toBe(content);
  });

  it('does not let an address carry markup or quotes into the link', () => {
    const { container, links } = shown('https://evil.example/"><img src=x onerror=alert(1)>');
    expect(links).toHaveLength(1);
    expect(links[0]!.getAttribute('href')).toBe('https://evil.example/');
    expect(container.querySelector('img')).toBeNull();
    expect(container.textContent).toBe('https://evil.example/"><img src=x onerror=alert(1)>');
  });

  it('leaves a message without addresses as one piece of text', () => {
    expect(messagePieces('Anyone up for a 25-minute sprint?')).toEqual([
      { kind: 'text', text: 'Anyone up for a 25-minute sprint?' },
    ]);
    expect(messagePieces('http:// is not an address')).toEqual([{ kind: 'text', text: 'http:// is not an address' }]);
  });
});

describe('safeHref', () => {
  it('accepts http(s) with a host and refuses everything else', () => {
    expect(safeHref('https://example.org')).toBe('https://example.org/');
    expect(safeHref('javascript:alert(1)')).toBeNull();
    expect(safeHref('JAVASCRIPT:alert(1)')).toBeNull();
    expect(safeHref('data:text/html,x')).toBeNull();
    expect(safeHref('not a url')).toBeNull();
  });
});
