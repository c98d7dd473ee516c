// Shown instead of the timer when the server runs with pairing on and has no (or a wrong) code.
import { useState } from 'preact/hooks';
import type { Companion } from '../state/companion.ts';

export function PairingCard({ companion }: { companion: Companion }) {
  const problem = companion.poll.value.problem;
  const wrongCode = problem?.kind === 'pairing' && problem.reason === 'pairing_code_invalid';
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);

  async function pair(event: Event) {
    event.preventDefault();
    const result = await companion.savePairing(code);
    setError(result.ok ? undefined : result.message);
    if (result.ok) setCode('');
  }

  const message =
    error ??
    (wrongCode ? 'That code is not shown on any focus page now. Check the code on the focus page.' : undefined);
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
          id="pairing-input"
          class="input input--code input--big"
          type="text"
          autocomplete="one-time-code"
          autocapitalize="characters"
          spellcheck={false}
          maxLength={7}
          placeholder="K7M 2QD"
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
