// Helpers for the integration tests of the artifact pipeline (test/integration/pipeline-*.test.ts).
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, ContentBlock, ResourceLink } from '@modelcontextprotocol/sdk/types.js';
import { NODE, connectDirect, type StdioConnection } from './fixtures.js';
import { connectAs, startProxy, testConfig, type ProxyUnderTest, type TestOptions } from './proxy.js';

/** Absolute path of the tableau fixture server. */
export const TABLEAU = fileURLToPath(new URL('../fixtures/tableau-server.mjs', import.meta.url));

/** The tableau fixture as a server of testConfig. */
export const tableau = (name = 'tableau') => ({ name, command: NODE, args: [TABLEAU, '--name', name] });

/** A proxy in front of the tableau fixture alone (so tool names are not prefixed). */
export function startTableau(options: TestOptions = {}): Promise<ProxyUnderTest> {
  return startProxy(testConfig([tableau()], options));
}

/** A client connected straight to the tableau fixture, for the results the upstream really sends. */
export function connectTableau(): Promise<StdioConnection> {
  return connectDirect(NODE, [TABLEAU]);
}

export const sha256 = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

/** callTool, typed as the CallToolResult every tool here returns. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

export function blocks(result: CallToolResult): ContentBlock[] {
  return result.content ?? [];
}

/** The text of each text block, in order. */
export function texts(result: CallToolResult): string[] {
  return blocks(result).flatMap((b) => (b.type === 'text' ? [b.text] : []));
}

export function links(result: CallToolResult): ResourceLink[] {
  return blocks(result).filter((b): b is ResourceLink => b.type === 'resource_link');
}

/** The single resource_link of a result (fails the test when there is not exactly one). */
export function onlyLink(result: CallToolResult): ResourceLink {
  const found = links(result);
  if (found.length !== 1)
    throw new Error(`expected one resource_link, got ${found.length}: ${JSON.stringify(result).slice(0, 2000)}`);
  return found[0];
}

/** The text block that is a summary (it carries `File saved:`). */
export function summaries(result: CallToolResult): string[] {
  return texts(result).filter((t) => t.includes('File saved: '));
}

export interface ArtifactMeta {
  uri: string;
  path: string;
  mimeType: string;
  size: number;
  sha256: string;
  source: string;
  sources?: string[];
}

/** `_meta['mcp-offload/artifacts']` of a result ([] when absent). */
export function artifactMeta(result: CallToolResult): ArtifactMeta[] {
  return ((result._meta ?? {})['mcp-offload/artifacts'] as ArtifactMeta[] | undefined) ?? [];
}

/** Files under `dir` (relative paths, recursively), leaving out the store's own `.meta` and `.tmp`. */
export async function filesIn(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (at: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(at, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR')
        return;
      throw error;
    }
    for (const entry of entries) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) {
        if (at === dir && (entry.name === '.meta' || entry.name === '.tmp')) continue;
        await walk(path);
      } else {
        out.push(relative(dir, path));
      }
    }
  };
  await walk(dir);
  return out.sort();
}

/** Calls each tool through the proxy and directly, expecting the same result for each. */
export async function expectSameResults(
  proxy: Client,
  direct: Client,
  calls: [string, Record<string, unknown>][],
): Promise<void> {
  for (const [name, args] of calls) {
    expect({ name, result: await call(proxy, name, args) }).toEqual({ name, result: await call(direct, name, args) });
  }
}

/** A second client session on the same gateway, over its own in-memory transport pair. */
export function connectSecondClient(proxy: ProxyUnderTest): Promise<Client> {
  return connectAs(proxy.gateway, { name: 'second-client', version: '1.0.0' });
}

/** The blob of a resources/read answer, decoded (fails when the answer is not one blob). */
export async function readBlob(client: Client, uri: string): Promise<{ bytes: Buffer; mimeType?: string }> {
  const { contents } = await client.readResource({ uri });
  if (contents.length !== 1 || typeof (contents[0] as { blob?: unknown }).blob !== 'string') {
    throw new Error(`expected one blob for ${uri}, got ${JSON.stringify(contents).slice(0, 500)}`);
  }
  const content = contents[0] as { blob: string; mimeType?: string };
  return { bytes: Buffer.from(content.blob, 'base64'), mimeType: content.mimeType };
}
