import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';
import { noCorsLinks } from './reference/no-cors-links.ts';
import { scalarBundle } from './reference/scalar-bundle.ts';

const page = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The workspace is served under /workspace/ on the API's own origin, the API reference under
 * /workspace/reference/ (sandboxed in an opaque origin: its files load without CORS).
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/workspace/',
  plugins: [preact(), scalarBundle(page('./reference/index.html')), noCorsLinks(page('./reference/index.html'))],
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    rollupOptions: { input: { index: page('./index.html'), reference: page('./reference/index.html') } },
    // No inline script or style anywhere: the Content-Security-Policy allows only files of this origin.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  logLevel: 'warn',
});
