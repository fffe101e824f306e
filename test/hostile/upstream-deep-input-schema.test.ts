// A hostile upstream lists a tool whose inputSchema nests 40 000 levels, to a proxy that shows tools by search. The
// search's answer was written with JSON.stringify, which overflowed whenever that tool was among the hits: a search
// failed (-32603) for every query that found it, the other servers' tools with it. Now the search answers, that tool
// and the calm server's included, and the tool can be called through call_tool.
import { expect } from '@jest/globals';
import { eachClient } from './harness/each-client.js';
import { CALM, HOSTILE } from './harness/proxy.js';

const DEPTH = 40_000;

interface ToolsAnswer {
  result?: { structuredContent: { tools: Array<{ name: string }> } };
  error?: unknown;
}

eachClient(
  'a tool whose inputSchema is 40 000 levels deep, shown by search',
  async (client) => {
    const search = async (query: string) =>
      (await client.ask('tools/call', { name: 'search_tools', arguments: { query } })) as ToolsAnswer;
    const deep = await search('deep nested hostile');
    expect(deep.error).toBeUndefined();
    expect(deep.result!.structuredContent.tools.map((tool) => tool.name)).toContain(`${HOSTILE}__deep`);
    const calm = await search('echo a message back');
    expect(calm.result!.structuredContent.tools.map((tool) => tool.name)).toContain(`${CALM}__echo`);
    const called = (await client.ask('tools/call', {
      name: 'call_tool',
      arguments: { name: `${HOSTILE}__deep`, arguments: {} },
    })) as { result?: { content: Array<{ text?: string }> } };
    expect(called.result!.content[0]!.text).toBe('called');
  },
  {
    proxy: { yaml: ['gateway:', '  disclosure: search'] },
    upstream: {
      async list(connection, id) {
        const schema = `${'{"type":"object","properties":{"a":'.repeat(DEPTH)}{"type":"string"}${'}}'.repeat(DEPTH)}`;
        await connection.write(
          `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"tools":[` +
            `{"name":"deep","description":"A deep nested hostile tool","inputSchema":${schema}},` +
            '{"name":"act","inputSchema":{"type":"object"}}]}}\n',
        );
        return undefined;
      },
      call: () => ({ content: [{ type: 'text', text: 'called' }] }),
    },
  },
);
