// Shown instead of the timer when the server runs with pairing on and has no (or a wrong) code. A
// wrong code stays in the field, marked and focused, with why it failed, so one mistyped character
// is fixed in place rather than typed again.
import { useEffect, useRef, useState } from 'preact/hooks';
import { formatPairingCode } from '../../../core/pairing-code.ts';
import type { Companion } from '../state/companion.ts';

export function PairingCard({ companion }: { companion: Companion }) {
  const problem = companion.poll.value.problem;
  const wrongCode = problem?.kind === 'pairing' && problem.reason === 'pairing_code_invalid';
  const saved = companion.settings.value?.pairingCode ?? null;
  // The card is drawn again when the server's answer arrives: start from the code that was tried.
  const [code, setCode] = useState(() => (wrongCode && saved ? formatPairingCode(saved) : ''));
  const [error, setError] = useState<string | undefined>(undefined);
  const input = useRef<HTMLInputElement>(null);

  async function pair(event: Event) {
    event.preventDefault();
    const result = await companion.savePairing(code);
    setError(result.ok ? undefined : result.message);
  }

  const message =
    error ??
    (wrongCode
      ? `No focus page shows ${saved ? formatPairingCode(saved) : 'this code'} now. Check the code on the Focus page (a new one appears after the server restarts) and correct it here.`
      : undefined);

  useEffect(() => {
    if (message) input.current?.focus();
  }, [message]);

  return (
    <section class="face pairing" aria-labelledby="pairing-title">
      <h1 id="pairing-title" class="pairing-title">
        Pair with your focus page
      </h1>
      <p class="face-hint">This server keeps timers private. Enter the code shown on the Focus page of studyhall.</p>
      <form class="pairing-form" onSubmit={pair} noValidate>
        <label class="visually-hidden" for="pairing-input">
          Pairing code
        </label>
        <input
          ref={input}
          id="pairing-input"
          class="input input--code input--big"
          type="text"
          autocomplete="one-time-code"
          autocapitalize="characters"
          spellcheck={false}
          maxLength={7}
          placeholder="6 characters"
          value={code}
          aria-invalid={message ? 'true' : 'false'}
          aria-describedby={message ? 'pairing-error' : undefined}
          onInput={(event) => setCode((event.target as HTMLInputElement).value)}
        />
        <button type="submit" class="button button--primary">
          Pair
        </button>
      </form>
      {message ? (
        <p class="field-error" id="pairing-error" role="alert">
          {message}
        </p>
      ) : null}
    </section>
  );
}
