import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspaceSite } from '../../../local/static-site';

const dir = mkdtempSync(join(tmpdir(), 'bureau-site-'));
mkdirSync(join(dir, 'assets'));
writeFileSync(join(dir, 'index.html'), '<!doctype html><title>page</title>');
writeFileSync(join(dir, 'assets', 'app-1234.js'), 'console.log(1)');
writeFileSync(join(tmpdir(), 'bureau-site-secret.txt'), 'secret');
const site = workspaceSite(dir);
const header = (response: ReturnType<typeof site>, name: string) => response?.headers.find(([key]) => key === name)?.[1];

describe('the local workspace site', () => {
  it('serves the page uncached and hashed assets for a year, with the security headers', () => {
    const page = site('GET', '/workspace/');
    const asset = site('GET', '/workspace/assets/app-1234.js');

    expect(page?.statusCode).toBe(200);
    expect(header(page, 'cache-control')).toBe('no-cache');
    expect(header(page, 'content-security-policy')).toContain("frame-ancestors 'none'");
    expect(header(asset, 'content-type')).toBe('text/javascript; charset=utf-8');
    expect(header(asset, 'cache-control')).toContain('immutable');
  });

  it('leaves the API and other paths alone, and redirects the bare folder', () => {
    expect(site('GET', '/workspace/api/session')).toBeUndefined();
    expect(site('POST', '/workspace/')).toBeUndefined();
    expect(site('GET', '/v1/search')).toBeUndefined();
    expect(site('GET', '/workspace')?.statusCode).toBe(308);
  });

  it('never serves a file outside its folder, and answers 404 for a missing asset', () => {
    const escaped = site('GET', '/workspace/../bureau-site-secret.txt');

    expect(escaped?.body.toString()).not.toContain('secret');
    expect(site('GET', '/workspace/assets/missing.js')?.statusCode).toBe(404);
  });
});
