// "Pop out": a Document Picture-in-Picture window (Chromium) with the time and the counters, which
// stays on top while the student works elsewhere. It renders with this page's Preact and signals,
// so a count there is the same action as a click here. Hidden where the API is missing, except
// where only the page's plain-HTTP address keeps it away: there the button says what it needs.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { PopOutIcon } from '../../components/icons.tsx';
import { SecureAddressNote } from '../../components/SecureAddressNote.tsx';
import { usePopover } from '../../components/usePopover.ts';
import { clock } from '../../lib/format.ts';
import { isSecurePage } from '../../lib/secure-page.ts';
import { advance, remainingMs, type Attempts } from '../../lib/timer.ts';
import { countFromAfar, toggleTimer } from '../../state/focus.ts';
import { timer } from '../../state/signals.ts';
import { phaseLabel } from './phase-label.ts';

interface DocumentPictureInPicture {
  requestWindow(options: { width: number; height: number }): Promise<Window>;
  window: Window | null;
}

function pipApi(): DocumentPictureInPicture | undefined {
  return (window as unknown as { documentPictureInPicture?: DocumentPictureInPicture }).documentPictureInPicture;
}

export function popOutSupported(): boolean {
  return pipApi() !== undefined;
}

/**
 * Chromium on a computer has Document Picture-in-Picture for secure pages only, so on a plain-HTTP
 * address its API is missing. Other browsers (Firefox, every phone) have none on any page and are
 * offered nothing. (`window.chrome` is there on every Chromium page, secure or not.)
 */
function popOutNeedsSecurePage(): boolean {
  return !isSecurePage() && 'chrome' in window && !/Android|Mobi/.test(navigator.userAgent);
}

/** The window's counters: the count each shows, the action a press sends, and its name. */
const POP_COUNTERS: { kind: keyof Attempts; action: 'correct' | 'incorrect' | 'skip'; label: string }[] = [
  { kind: 'correct', action: 'correct', label: 'Correct' },
  { kind: 'incorrect', action: 'incorrect', label: 'Incorrect' },
  { kind: 'skipped', action: 'skip', label: 'Skip' },
];

function PopOutView() {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(id);
  }, []);
  const state = advance(timer.value, now);
  return (
    <main class="popout">
      <p class="popout-phase">{phaseLabel(state)}</p>
      <p class="popout-time tabular" role="timer">
        {clock(remainingMs(state, now))}
      </p>
      <div class="popout-counters">
        {POP_COUNTERS.map(({ kind, action, label }) => (
          <button
            key={kind}
            type="button"
            class={`counter counter-${kind}`}
            onClick={() => countFromAfar(action)}
            aria-label={label}
            aria-describedby={`pop-${kind}`}
          >
            <span id={`pop-${kind}`} class="counter-value tabular">
              {state.attempts[kind]}
            </span>
            <span class="counter-label">{label}</span>
          </button>
        ))}
      </div>
      <div class="popout-foot">
        <button type="button" class="button" onClick={toggleTimer} disabled={state.complete}>
          {state.running ? 'Pause' : state.phase === 'idle' ? 'Start' : 'Resume'}
        </button>
        <button
          type="button"
          class="button button-quiet"
          onClick={() => countFromAfar('undo')}
          disabled={state.history.length === 0}
        >
          Undo
        </button>
      </div>
    </main>
  );
}

async function openPopOut(): Promise<void> {
  const api = pipApi();
  if (!api) return;
  if (api.window) {
    api.window.focus();
    return;
  }
  const pip = await api.requestWindow({ width: 340, height: 300 });
  // The same stylesheets as this page (same origin, so the page's policy allows them).
  for (const sheet of document.querySelectorAll<HTMLLinkElement | HTMLStyleElement>('link[rel="stylesheet"], style')) {
    pip.document.head.append(sheet.cloneNode(true));
  }
  pip.document.title = 'studyhall timer';
  pip.document.documentElement.lang = 'en';
  pip.document.body.classList.add('popout-body');
  render(<PopOutView />, pip.document.body);
  pip.addEventListener('pagehide', () => render(null, pip.document.body));
}

/** The Pop out button where only the page's address keeps it away: it opens what it needs. */
function PopOutNeedsSecurePage() {
  const { open, anchor, toggleProps } = usePopover('pop-out-note');
  return (
    <div class="popover-anchor" ref={anchor}>
      <button type="button" class="button button-quiet" {...toggleProps}>
        <PopOutIcon />
        Pop out
      </button>
      {open && (
        <div id="pop-out-note" class="popover popout-note" role="region" aria-label="Pop out">
          <p class="popover-title">Keep the timer on top of other windows</p>
          <SecureAddressNote feature="pop-out" />
        </div>
      )}
    </div>
  );
}

export function PopOutButton() {
  if (!popOutSupported()) return popOutNeedsSecurePage() ? <PopOutNeedsSecurePage /> : null;
  return (
    <button
      type="button"
      class="button button-quiet"
      onClick={() => void openPopOut()}
      title="Keep the timer and counters on top of other windows"
    >
      <PopOutIcon />
      Pop out
    </button>
  );
}
