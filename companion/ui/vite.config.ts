// Builds the phone remote into companion/ui/dist: the remote (index.html), the Android overlay page
// (overlay.html) and the service worker (sw.js). Paths are relative (base "./"), so the same build
// works at /companion/ on the gateway and at the root of the Android app's web view.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';
import { companionServiceWorker, SERVICE_WORKER_ENTRY, SERVICE_WORKER_FILE } from './build/service-worker-plugin.ts';

const uiDir = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: uiDir,
  base: './',
  publicDir: path.join(uiDir, 'public'),
  logLevel: 'warn',
  plugins: [
    preact({ devToolsEnabled: false, prefreshEnabled: false }),
    companionServiceWorker(path.join(uiDir, 'public')),
  ],
  build: {
    outDir: path.join(uiDir, 'dist'),
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    rollupOptions: {
      input: {
        index: path.join(uiDir, 'index.html'),
        overlay: path.join(uiDir, 'overlay.html'),
        [SERVICE_WORKER_ENTRY]: path.join(uiDir, 'src', 'service-worker.ts'),
      },
      output: {
        entryFileNames: (chunk) =>
          chunk.name === SERVICE_WORKER_ENTRY ? SERVICE_WORKER_FILE : 'assets/[name]-[hash].js',
      },
    },
  },
});
