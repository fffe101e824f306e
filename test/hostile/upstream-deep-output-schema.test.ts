// A hostile upstream lists a tool whose outputSchema nests 40 000 levels. Rewriting output schemas walks them
// recursively: the stack overflowed, and a gateway that met such a server at start did not start at all, its other
// servers' tools lost with it. Now that tool is listed without its schema (a warning says why), and every other
// tool, of this server and the others, as it was.
import { expect } from '@jest/globals';
import { eachClient } from './harness/each-client.js';
import { CALM, HOSTILE } from './harness/proxy.js';

const DEPTH = 40_000;

eachClient(
  'a tool whose outputSchema is 40 000 levels deep',
  async (client) => {
    const listed = (await client.ask('tools/list', {})) as {
      result: { tools: Array<{ name: string; outputSchema?: unknown }> };
    };
    const tools = new Map(listed.result.tools.map((tool) => [tool.name, tool]));
    expect(tools.has(`${HOSTILE}__deep`)).toBe(true);
    expect(tools.get(`${HOSTILE}__deep`)!.outputSchema).toBeUndefined();
    expect(tools.get(`${HOSTILE}__act`)!.outputSchema).toEqual({
      type: 'object',
      properties: { ok: { type: 'boolean' } },
      additionalProperties: false,
    });
    expect([...tools.keys()].some((name) => name.startsWith(`${CALM}__`))).toBe(true);
  },
  {
    upstream: {
      async list(connection, id) {
        const deep = `${'{"type":"object","properties":{"a":'.repeat(DEPTH)}{"type":"string"}${'}}'.repeat(DEPTH)}`;
        const plain = '{"type":"object","properties":{"ok":{"type":"boolean"}},"additionalProperties":false}';
        await connection.write(
          `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"tools":[` +
            `{"name":"deep","inputSchema":{"type":"object"},"outputSchema":${deep}},` +
            `{"name":"act","inputSchema":{"type":"object"},"outputSchema":${plain}}]}}\n`,
        );
        return undefined;
      },
    },
  },
);
