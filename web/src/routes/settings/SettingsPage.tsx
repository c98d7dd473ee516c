export default function SettingsPage() {
  return <div class="page"><h1 class="page-title">SettingsPage</h1></div>;
}
