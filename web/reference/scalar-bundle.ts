import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';

/** Scalar's self-contained browser build: the reference page's script. */
export const SCALAR_BUNDLE = fileURLToPath(new URL('../../node_modules/@scalar/api-reference/dist/browser/standalone.js', import.meta.url));
/** Run before Scalar's bundle, so that it loads under the page's policy without a violation. */
export const ZOD_JITLESS = fileURLToPath(new URL('./zod-jitless.js', import.meta.url));
/** Run before Scalar's bundle, so that it finds a Storage in the sandbox, which has none. */
export const STORAGE_IN_MEMORY = fileURLToPath(new URL('./storage-in-memory.js', import.meta.url));

interface Script {
  readonly source: Buffer;
  readonly fileName: string;
}

/**
 * Puts Scalar's bundle, and what must run before it, among the built assets under names carrying
 * their content's hash (cached for a year like the other assets; a new version of the package is a
 * new file), and adds their <script> elements to the reference page. They are copied as they are
 * rather than bundled: Scalar's is already minified and Rollup would spend most of the build on
 * it. They are classic scripts, not modules, because Scalar mounts itself as soon as it runs, after
 * the element holding its configuration, and the others must have run by then.
 */
export function scalarBundle(page: string): Plugin {
  let scripts: readonly Script[] | undefined;
  let base = '/';
  const load = () => {
    scripts ??= [ZOD_JITLESS, STORAGE_IN_MEMORY, SCALAR_BUNDLE].map((path) => {
      const source = readFileSync(path);
      const name = path === SCALAR_BUNDLE ? 'scalar' : basename(path, extname(path));
      return { source, fileName: `assets/${name}-${createHash('sha256').update(source).digest('hex').slice(0, 12)}.js` };
    });
    return scripts;
  };
  return {
    name: 'bureau:scalar-bundle',
    configResolved(config) {
      base = config.base;
    },
    configureServer(server) {
      server.middlewares.use((request, response, next) => {
        const script = load().find((candidate) => request.url === `${base}${candidate.fileName}`);
        if (!script) return next();
        response.setHeader('content-type', 'text/javascript; charset=utf-8');
        response.end(script.source);
      });
    },
    transformIndexHtml(_html, context) {
      if (context.filename !== page) return;
      return load().map((script) => ({ tag: 'script', attrs: { src: `${base}${script.fileName}` }, injectTo: 'body' as const }));
    },
    generateBundle() {
      for (const script of load()) this.emitFile({ type: 'asset', fileName: script.fileName, source: script.source });
    },
  };
}
