// The shape of src/: folders in layers, each importing only from the layers below it (and itself), no import cycles,
// and no reach into the SDK's private parts. ARCHITECTURE.md describes the layers; this keeps them true.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from '@jest/globals';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/**
 * The layers, lowest first. A module may import from its own layer's folders and from every layer below; a folder
 * of a higher layer never. (Layers of several folders: those folders do not import each other at all.)
 */
const LAYERS: string[][] = [
  ['config', 'version'],
  ['logger'],
  ['wire', 'protocol', 'codec'],
  ['tracing'],
  ['rpc'],
  ['artifacts'],
  ['pipeline'],
  ['transports'],
  ['upstreams'],
  ['relay'],
  ['gateway'],
  ['shared'],
  ['http'],
  ['cli', 'index'],
];

/** Private members of SDK objects the proxy used to reach into; none may come back. */
const SDK_INTERNALS =
  /\b_(oninitialize|capabilities|serverInfo|instructions|wireCodec|outboundServerInfo|outboundMetaEnvelope|webStandardTransport|streamMapping|requestToStreamMapping|supportedProtocolVersions|closed|initialized|scopeChallengeResolver|authProvider)\b/;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Each module's relative imports (`import`, `export … from`, `import()`), as paths under src/. */
function imports(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files(SRC)) {
    const text = readFileSync(file, 'utf8');
    const targets: string[] = [];
    for (const match of text.matchAll(/(?:import|export)\s[^;]*?from\s+'(\.[^']+)'|import\('(\.[^']+)'\)/gs)) {
      const spec = match[1] ?? match[2]!;
      targets.push(relative(SRC, resolve(dirname(file), spec.replace(/\.js$/, '.ts'))));
    }
    graph.set(relative(SRC, file), targets);
  }
  return graph;
}

const folderOf = (path: string) => (path.includes('/') ? path.split('/')[0]! : path.replace(/\.ts$/, ''));

function layerOf(folder: string): number {
  const layer = LAYERS.findIndex((folders) => folders.includes(folder));
  if (layer === -1) throw new Error(`src/${folder} is in no layer of test/unit/structure.test.ts`);
  return layer;
}

describe('the layers of src/', () => {
  const graph = imports();

  test('every folder is in a layer', () => {
    for (const path of graph.keys()) expect(() => layerOf(folderOf(path))).not.toThrow();
  });

  test('no module imports from a layer above its own, nor from another folder of its layer', () => {
    const wrong: string[] = [];
    for (const [path, targets] of graph) {
      const from = folderOf(path);
      for (const target of targets) {
        const to = folderOf(target);
        if (from === to) continue;
        if (layerOf(to) >= layerOf(from)) wrong.push(`${path} → ${target}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  test('no import cycles', () => {
    const cycles: string[][] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (node: string) => {
      state.set(node, 'open');
      stack.push(node);
      for (const next of graph.get(node) ?? []) {
        if (!graph.has(next)) continue;
        if (state.get(next) === 'open') cycles.push(stack.slice(stack.indexOf(next)));
        else if (!state.has(next)) visit(next);
      }
      stack.pop();
      state.set(node, 'done');
    };
    for (const node of graph.keys()) if (!state.has(node)) visit(node);
    expect(cycles).toEqual([]);
  });

  test('no private member of the SDK is read or written, and no deep import into its packages', () => {
    const found: string[] = [];
    for (const file of files(SRC)) {
      const text = readFileSync(file, 'utf8');
      if (SDK_INTERNALS.test(text)) found.push(`${relative(SRC, file)}: ${SDK_INTERNALS.exec(text)![0]}`);
      for (const match of text.matchAll(/from '(@modelcontextprotocol\/[^']+)'/g)) {
        if (!/^@modelcontextprotocol\/(client|server)(\/stdio)?$/.test(match[1]!)) found.push(`${file}: ${match[1]}`);
      }
    }
    expect(found).toEqual([]);
  });

  test('node:http and node:https are required through wire/node-http.ts, never imported as ESM (type imports aside)', () => {
    // An ESM import of node:http reads every export, and the `WebSocket` getter loads undici and http2 (~10 MiB).
    const found: string[] = [];
    for (const file of files(SRC)) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(
        /(?:import|export)\s+(?!type\s)[^;]*?from\s+'node:https?'|import\('node:https?'\)/gs,
      ))
        found.push(`${relative(SRC, file)}: ${match[0].replace(/\s+/g, ' ')}`);
    }
    expect(found).toEqual([]);
  });
});
