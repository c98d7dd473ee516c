// Vite's build of the student app: web/ in, web/dist out. The build manifest lists every hashed
// file; the gateway reads it to fill the service worker's precache list, and the budget check
// reads it to measure what a cold load of /focus needs.
import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [preact({ prerender: { enabled: false } })],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true,
    target: 'es2022',
    // The app's Content-Security-Policy allows same-origin scripts only; no polyfill is needed
    // (every supported browser preloads modules natively).
    modulePreload: { polyfill: false },
    // Icons stay files: nothing is inlined into CSS or JS as a data URL.
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
});
