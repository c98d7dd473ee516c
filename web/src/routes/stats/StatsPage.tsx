export default function StatsPage() {
  return <div class="page"><h1 class="page-title">StatsPage</h1></div>;
}
