// The documentation stays true to the code: docs/configuration.md is what scripts/config-docs.mjs renders from
// config/schema.json, and every relative link in README.md, the top-level *.md files and docs/*.md resolves.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/cli.js';
// @ts-expect-error: a plain ES module script, without types
import { render } from '../../scripts/config-docs.mjs';
// @ts-expect-error: a plain ES module script, without types
import { anchors, brokenLinks } from '../../scripts/check-links.mjs';

test('docs/configuration.md is what scripts/config-docs.mjs renders from config/schema.json', () => {
  const committed = readFileSync(join(REPO_ROOT, 'docs', 'configuration.md'), 'utf8');
  expect(committed).toBe(render());
});

test('the configuration reference names every top-level key and definition of the schema', () => {
  const schema = JSON.parse(readFileSync(join(REPO_ROOT, 'config', 'schema.json'), 'utf8'));
  const text = render(schema) as string;
  for (const key of Object.keys(schema.properties)) expect(text).toContain(`**\`${key}\`**`);
  for (const name of Object.keys(schema.definitions)) expect(text).toContain(`\n## ${name}\n`);
});

test('a changed description in the schema changes the rendered reference', () => {
  const schema = JSON.parse(readFileSync(join(REPO_ROOT, 'config', 'schema.json'), 'utf8'));
  schema.properties.logLevel.description = 'A description nobody wrote.';
  expect(render(schema)).toContain('A description nobody wrote.');
  expect(render(schema)).not.toBe(readFileSync(join(REPO_ROOT, 'docs', 'configuration.md'), 'utf8'));
});

test('every relative link in README.md and docs/*.md points at an existing file and heading', () => {
  expect(brokenLinks()).toEqual([]);
});

test('anchors are GitHub’s: lower case, punctuation dropped, spaces as hyphens, repeats numbered', () => {
  const found = anchors(
    '# Servers that need a login (OAuth)\n## `a.b` and C\n## Same\n## Same\n```\n# not a heading\n```\n',
  );
  expect([...found]).toEqual(['servers-that-need-a-login-oauth', 'ab-and-c', 'same', 'same-1']);
});
