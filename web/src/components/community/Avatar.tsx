// A student's or a group's picture, or their initial on the accent tint when there is none (or it
// fails to load). Decorative: the name always sits beside it.
import { useEffect, useState } from 'preact/hooks';

export function Avatar({
  url,
  name,
  size = 'medium',
  square = false,
}: {
  url: string | null;
  name: string;
  size?: 'small' | 'medium' | 'large';
  square?: boolean;
}) {
  const [broken, setBroken] = useState(false);
  useEffect(() => setBroken(false), [url]);
  const initial = name.trim().replace(/^@/, '').slice(0, 1).toUpperCase() || '?';
  const shape = square ? ' c-avatar-square' : '';
  return url && !broken ? (
    <img class={`c-avatar c-avatar-${size}${shape}`} src={url} alt="" loading="lazy" onError={() => setBroken(true)} />
  ) : (
    <span class={`c-avatar c-avatar-${size} c-avatar-initial${shape}`} aria-hidden="true">
      {initial}
    </span>
  );
}

/**
 * How a student is named on screen, the same everywhere (chat, board, buddies, leaderboards, whose
 * rows the database names the same way): display name, else the handle as it is, else a neutral word.
 */
export function nameOf(
  person: { displayName?: string | null; handle?: string | null },
  fallback = 'A student',
): string {
  return person.displayName?.trim() || person.handle || fallback;
}
