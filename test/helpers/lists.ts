import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

const METHODS = {
  tools: 'listTools',
  prompts: 'listPrompts',
  resources: 'listResources',
  resourceTemplates: 'listResourceTemplates',
} as const;

/** Every item of a list, following nextCursor across pages. */
export async function listAll(client: Client, kind: keyof typeof METHODS): Promise<unknown[]> {
  const items: unknown[] = [];
  let cursor: string | undefined;
  do {
    const page = (await (client[METHODS[kind]] as (p?: { cursor?: string }) => Promise<Record<string, unknown>>).call(
      client,
      cursor ? { cursor } : undefined,
    )) as Record<string, unknown> & { nextCursor?: string };
    items.push(...(page[kind] as unknown[]));
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}
