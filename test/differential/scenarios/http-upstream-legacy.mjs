// A legacy upstream over Streamable HTTP (a 2025-11-25 session: Mcp-Session-Id), answering on SSE streams: a call
// answered in odd but valid JSON, a call with progress, and a call during which the upstream asks the client
// (elicitation/create on the call's stream; the proxy answers it with a POST of its own).
import { ask, legacyHandshake, legacyOpening, result, tool } from './lib.mjs';

const step = (n) =>
  `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":{{progressToken}},"progress":${n},"total":2}}`;

export default {
  name: 'http-upstream-legacy',
  transports: ['stdio', 'http'],
  upstream: {
    transport: 'http',
    http: { answer: 'sse', sessionId: 'upstream-session-1' },
    rules: [
      ...legacyHandshake(['plain', 'steps', 'ask']),
      tool(
        'plain',
        '{"id":{{id}}, "jsonrpc":"2.0", "result":{"content":[{"type":"text","text":"\\u00e9t\\u00e9"}],"structuredContent":{"x":1E2,"y":0.10}}}',
      ),
      tool('steps', [step(1), step(2), result('{"content":[{"type":"text","text":"done"}]}')]),
      tool('ask', [
        '{"jsonrpc":"2.0","id":"srv-1","method":"elicitation/create","params":{"mode":"form","message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}',
        { waitFor: { id: 'srv-1' } },
        result('{"content":[{"type":"text","text":"thanks"}]}'),
      ]),
    ],
  },
  steps: [
    ...legacyOpening('{"elicitation":{"form":{}}}'),
    ...ask(2, 'tools/call', '{"name":"plain","arguments":{"n":1.0}}'),
    ...ask(3, 'tools/call', '{"name":"steps","arguments":{},"_meta":{"progressToken":42}}'),
    { send: '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ask","arguments":{}}}' },
    { expect: { method: 'elicitation/create' }, as: 'elicit' },
    { send: ({ elicit }) => `{"jsonrpc":"2.0","id":${elicit.idText},"result":{"action":"decline"}}` },
    { expect: { id: 4 }, what: 'the answer to the call' },
  ],
};
