#!/usr/bin/env node
// Every relative link in README.md, the top-level *.md files and docs/*.md must point at a file that exists and, with
// a #fragment into a markdown file, at a heading of that file (GitHub's anchors). `node scripts/check-links.mjs` prints
// the broken ones; test/unit/docs-links.test.ts runs the same check.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The markdown files whose links are checked: the top-level ones and docs/. */
export function markdownFiles(root = ROOT) {
  const top = readdirSync(root).filter((f) => f.endsWith('.md'));
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f));
  return [...top, ...docs];
}

/** The text of a markdown file without its fenced code blocks and inline code, which hold no links. */
function prose(text) {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchors of a markdown file's headings. */
export function anchors(text) {
  const seen = new Map();
  const out = new Set();
  const body = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, title] of body.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = title
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

/** The broken relative links of the given files, as "file: target (reason)". */
export function brokenLinks(root = ROOT, files = markdownFiles(root)) {
  const broken = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const [, target] of prose(text).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, ...
      const [path, fragment] = target.split('#', 2);
      const dest = path ? resolve(root, dirname(file), decodeURIComponent(path)) : join(root, file);
      if (!existsSync(dest)) {
        broken.push(`${file}: ${target} (no such file)`);
        continue;
      }
      if (fragment !== undefined && dest.endsWith('.md') && statSync(dest).isFile()) {
        if (!anchors(readFileSync(dest, 'utf8')).has(fragment)) {
          broken.push(`${file}: ${target} (no heading #${fragment} in ${relative(root, dest)})`);
        }
      }
    }
  }
  return broken;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const broken = brokenLinks();
  for (const line of broken) console.log(line);
  process.exit(broken.length ? 1 : 0);
}
