export default function ProfilePage() {
  return <div class="page"><h1 class="page-title">ProfilePage</h1></div>;
}
