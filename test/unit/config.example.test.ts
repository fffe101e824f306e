import { existsSync, readFileSync } from 'node:fs';
import { loadConfigFile, parseConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/config/types.js';

const EXAMPLE_PATH = 'config/example.yaml';
const example = readFileSync(new URL('../../config/example.yaml', import.meta.url), 'utf8');
const schema = JSON.parse(readFileSync(new URL('../../config/schema.json', import.meta.url), 'utf8')) as unknown;

type SchemaNode = { properties?: Record<string, SchemaNode>; [keyword: string]: unknown };

/** Every (name, schema) pair under any `properties` in the schema, definitions included. */
function schemaProperties(node: unknown, out: Array<[string, SchemaNode]> = []): Array<[string, SchemaNode]> {
  if (Array.isArray(node)) {
    for (const item of node) schemaProperties(item, out);
  } else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'properties') {
        for (const [name, property] of Object.entries(value as Record<string, SchemaNode>)) out.push([name, property]);
      }
      schemaProperties(value, out);
    }
  }
  return out;
}

/** The example with every commented-out option switched on (prose comments stay comments). */
function uncommentOptions(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const match = /^(\s*)# (.*)$/.exec(line);
      if (!match) return line;
      const [, indent, rest] = match as unknown as [string, string, string];
      return /^\s*([A-Za-z_][\w-]*:(\s|$)|[{[-])/.test(rest) ? indent + rest : line;
    })
    .join('\n');
}

describe('config/example.yaml', () => {
  test('is valid and runnable on a fresh clone', async () => {
    const config = await loadConfigFile(EXAMPLE_PATH, {});
    expect(config.servers).toHaveLength(1);
    const [server] = config.servers;
    expect(server).toMatchObject({ kind: 'stdio', name: 'everything', command: 'node', enabled: true });
    if (server?.kind !== 'stdio') throw new Error('expected a stdio server');
    // The quick start relies on the devDependency being where args say.
    expect(existsSync(server.args[0]!)).toBe(true);
  });

  test('names every property of the schema, commented or not', () => {
    const missing = schemaProperties(schema)
      .map(([name]) => name)
      .filter((name) => !new RegExp(`(^|[\\s{,"])${name}"?:`, 'm').test(example));
    expect(missing).toEqual([]);
  });

  test('its commented-out options are valid too, apart from the documented either/or pairs', () => {
    const everything = uncommentOptions(example);
    expect(everything).not.toBe(example);
    let problems: string[] = [];
    try {
      parseConfig(everything, EXAMPLE_PATH, { GITHUB_TOKEN: 'x' });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems = error.problems.map((p) => p.message);
    }
    expect(problems).toEqual([
      'both "servers" and "mcpServers" are given; use one',
      'server "everything" has both "enabled" and "disabled"; use one',
    ]);
  });
});

describe('config/schema.json', () => {
  test('describes every property: it doubles as user documentation', () => {
    const definitions = (schema as { definitions: Record<string, SchemaNode> }).definitions;
    const described = (node: SchemaNode | undefined): boolean =>
      typeof node?.description === 'string' ||
      (typeof node?.$ref === 'string' && described(definitions[node.$ref.replace('#/definitions/', '')]));
    const undocumented = schemaProperties(schema)
      .filter(([, property]) => !described(property))
      .map(([name]) => name);
    expect(undocumented).toEqual([]);
  });
});
