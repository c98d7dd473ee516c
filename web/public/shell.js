/* global document */
// The placeholder shell's script, in a file: the app runs under a Content-Security-Policy that
// allows scripts from this origin only (no inline script).
fetch('/api/version')
  .then((response) => response.json())
  .then((info) => {
    document.getElementById('version').textContent = `Version ${info.version} (${info.git_sha ?? 'no git'})`;
  });
if ('serviceWorker' in navigator) navigator.serviceWorker.register('/sw.js');
