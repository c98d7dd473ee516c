export function NotFound() {
  return (
    <div class="page">
      <h1 class="page-title">This page does not exist</h1>
      <p class="muted">The link may be old or mistyped.</p>
      <p>
        <a class="button button-primary" href="/focus">
          Go to Focus
        </a>
      </p>
    </div>
  );
}
