// The frame around every screen: a left rail on wide screens, a bottom bar of four on phones (the
// rest under More), the banners, and the sync status. The current place is always marked.
import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { places, type Place } from '../routes.ts';
import { account, profile, signInAgainOpen, syncLine } from '../state/signals.ts';
import { Banners } from './Banners.tsx';
import { Lazy } from './Lazy.tsx';
import { usePopover } from './usePopover.ts';
import { MoreIcon } from './icons.tsx';

const loadSignInAgain = () => import('./SignInAgainDialog.tsx');

function isCurrent(place: Place, path: string): boolean {
  const under = (prefix: string) => path === prefix || path.startsWith(`${prefix}/`);
  return under(place.path) || (place.marks ?? []).some(under) || (path === '/' && place.path === '/focus');
}

/** The sync line: a live region, so a change of state is read out without moving the focus. */
function SyncStatus({ place }: { place: 'rail' | 'phone' }) {
  const { tone, text } = syncLine.value;
  return (
    <p class={`sync-line sync-line-${place}`} role="status">
      <a class={`sync-status sync-${tone}`} href="/backups" data-testid={`sync-status-${place}`}>
        <span class="sync-dot" aria-hidden="true" />
        {text}
      </a>
    </p>
  );
}

function MoreMenu({ items, path }: { items: Place[]; path: string }) {
  const { open, close, anchor, toggleProps } = usePopover('more-menu');
  const active = items.some((place) => isCurrent(place, path));
  useEffect(close, [path]);
  return (
    <div class="more" ref={anchor}>
      <button type="button" class={`bar-link${active ? ' is-current' : ''}`} {...toggleProps}>
        <MoreIcon size={22} />
        <span>More</span>
      </button>
      {open && (
        <ul id="more-menu" class="more-menu">
          {items.map((place) => (
            <li key={place.path}>
              <a href={place.path} class="more-link" aria-current={isCurrent(place, path) ? 'page' : undefined}>
                <place.icon />
                {place.label}
              </a>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Shell({ children }: { children: ComponentChildren }) {
  const { path } = useLocation();
  const nav = places.filter((place) => place.inNav);
  const bar = nav.filter((place) => place.phoneBar).slice(0, 3);
  const rest = nav.filter((place) => !bar.includes(place));
  const who = profile.value?.displayName || profile.value?.handle || account.value?.email || '';
  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <nav class="rail" aria-label="Main">
        <a class="brand" href="/focus">
          <img src="/icon.svg" alt="" width="28" height="28" />
          studyhall
        </a>
        <ul class="rail-list">
          {nav.map((place) => (
            <li key={place.path}>
              <a href={place.path} class="rail-link" aria-current={isCurrent(place, path) ? 'page' : undefined}>
                <place.icon />
                {place.label}
              </a>
            </li>
          ))}
        </ul>
        <div class="rail-foot">
          <SyncStatus place="rail" />
          {who && (
            <p class="rail-who" title={who}>
              {who}
            </p>
          )}
        </div>
      </nav>
      <div class="main-column">
        <SyncStatus place="phone" />
        <Banners />
        <main id="main" class="main" tabIndex={-1}>
          {children}
        </main>
      </div>
      {signInAgainOpen.value && <Lazy load={loadSignInAgain} props={{}} />}
      <nav class="bar" aria-label="Main, phone">
        {bar.map((place) => (
          <a
            key={place.path}
            href={place.path}
            class="bar-link"
            aria-current={isCurrent(place, path) ? 'page' : undefined}
          >
            <place.icon size={22} />
            <span>{place.label}</span>
          </a>
        ))}
        <MoreMenu items={rest} path={path} />
      </nav>
    </div>
  );
}
