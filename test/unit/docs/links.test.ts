import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`),
];

/** GitHub's anchor for a heading: lower case, punctuation but hyphens dropped, each space a hyphen. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** A page's text outside its code blocks, where a link or a heading is not one. */
const prose = (page: string) => readFileSync(join(root, page), 'utf8').replace(/```[\s\S]*?```/g, '');

const anchorsByPage = new Map<string, Set<string>>();
function anchorsOf(page: string): Set<string> {
  const known = anchorsByPage.get(page);
  if (known) return known;
  const text = prose(page);
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(heading as string);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  anchorsByPage.set(page, anchors);
  return anchors;
}

describe('the documentation', () => {
  it.each(pages)('%s links only to pages and headings that exist', (page) => {
    const text = prose(page);
    const broken: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target as string)) continue;
      const [path, anchor] = (target as string).split('#') as [string, string | undefined];
      const file = path === '' ? join(root, page) : resolve(dirname(join(root, page)), path);
      if (!existsSync(file)) {
        broken.push(`${target}: no such file`);
        continue;
      }
      const relative = file.slice(root.length);
      if (anchor && relative.endsWith('.md') && !anchorsOf(relative).has(anchor)) broken.push(`${target}: no such heading`);
    }
    expect(broken).toEqual([]);
  });
});
