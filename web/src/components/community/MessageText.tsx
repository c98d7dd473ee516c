// A chat message's text with its web addresses as links that open in a new tab, tell the target
// nothing about the page, and carry no endorsement (rel: user-generated, nofollow).
import { messagePieces } from './message-links.ts';

export function MessageText({ content }: { content: string }) {
  return (
    <>
      {messagePieces(content).map((piece, index) =>
        piece.kind === 'link' ? (
          <a key={index} href={piece.href} target="_blank" rel="noopener noreferrer nofollow ugc">
            {piece.text}
          </a>
        ) : (
          piece.text
        ),
      )}
    </>
  );
}
