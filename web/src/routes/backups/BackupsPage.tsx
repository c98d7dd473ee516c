export default function BackupsPage() {
  return <div class="page"><h1 class="page-title">BackupsPage</h1></div>;
}
