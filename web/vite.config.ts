import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

/** The workspace is served under /workspace/ on the API's own origin. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/workspace/',
  plugins: [preact()],
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    // No inline script or style anywhere: the Content-Security-Policy allows only files of this origin.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  logLevel: 'warn',
});
