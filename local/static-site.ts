import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { REFERENCE_PATH, REFERENCE_SITE_HEADERS, WORKSPACE_PATH, WORKSPACE_SITE_HEADERS } from '../shared/workspace/site-headers';
import type { GatewayResponse } from './api-gateway-event';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};

/** Answers GET and HEAD for a path, or undefined when the path is not the site's. */
export type StaticSite = (method: string, path: string) => GatewayResponse | undefined;

/**
 * The workspace's built files (web/dist) under /workspace/, as CloudFront serves them from S3 when
 * deployed: hashed assets cached for a year, the pages themselves never, the same security headers,
 * and no CORS headers (S3 sends none). /workspace/reference/ is the API reference page, with its own
 * policy (sandboxed into an opaque origin); any other path is the workspace app's one page.
 * /workspace/api/… is not the site's: it goes to the workspace function.
 */
export function workspaceSite(dir: string): StaticSite {
  return (method, path) => {
    if (method !== 'GET' && method !== 'HEAD') return undefined;
    if (path !== WORKSPACE_PATH && !path.startsWith(`${WORKSPACE_PATH}/`)) return undefined;
    if (path.startsWith(`${WORKSPACE_PATH}/api/`) || path === `${WORKSPACE_PATH}/api`) return undefined;
    if (path === WORKSPACE_PATH || path === REFERENCE_PATH) return redirect(`${path}/`);
    if (path.startsWith(`${REFERENCE_PATH}/`)) return page(join(dir, 'reference', 'index.html'), REFERENCE_SITE_HEADERS);
    const relative = normalize(path.slice(WORKSPACE_PATH.length + 1) || 'index.html');
    const file = join(dir, relative);
    const asset = relative.startsWith(`assets${sep}`);
    if (!file.startsWith(dir + sep) || !existsSync(file) || !statSync(file).isFile()) {
      if (asset) return { statusCode: 404, headers: [['content-type', 'text/plain; charset=utf-8']], body: Buffer.from('Not found') };
      return page(join(dir, 'index.html'));
    }
    return asset ? respond(file, 'public, max-age=31536000, immutable') : page(file);
  };
}

const redirect = (location: string): GatewayResponse => ({ statusCode: 308, headers: [['location', location]], body: Buffer.alloc(0) });

const page = (file: string, headers = WORKSPACE_SITE_HEADERS) => respond(file, 'no-cache', headers);

function respond(file: string, cacheControl: string, headers = WORKSPACE_SITE_HEADERS): GatewayResponse {
  return {
    statusCode: 200,
    headers: [
      ['content-type', TYPES[extname(file)] ?? 'application/octet-stream'],
      ['cache-control', cacheControl],
      ...Object.entries(headers),
    ],
    body: readFileSync(file),
  };
}
