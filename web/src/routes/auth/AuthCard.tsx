// The card the pages before the app stand on (log in, sign up, reset and set a password): the
// page's main landmark, with the brand above what the page asks.
import type { ComponentChildren } from 'preact';

export function AuthCard({ children }: { children: ComponentChildren }) {
  return (
    <main class="welcome" id="main">
      <div class="welcome-card card">
        <div class="welcome-brand">
          <img src="/icon.svg" alt="" width="40" height="40" />
          <p class="welcome-name">studyhall</p>
        </div>
        {children}
      </div>
    </main>
  );
}
