// A 2025-11-25 client in front of a 2026-07-28-only upstream: the upstream's input_required must reach the client
// as a real elicitation/create request, and the client's answer go back to the upstream in the retry.
import { ask, legacyOpening, modernHandshake, result, tool } from './lib.mjs';

const INPUT_REQUIRED =
  '{"resultType":"input_required","inputRequests":{"name":{"method":"elicitation/create","params":{"mode":"form","message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}},"requestState":"state-1"}';

export default {
  name: 'legacy-client-modern-upstream',
  transports: ['stdio'],
  upstream: {
    transport: 'stdio',
    rules: [
      ...modernHandshake(['echo', 'ask']),
      tool('echo', result('{"resultType":"complete","content":[{"type":"text","text":"echo: hi"}]}')),
      tool('ask', result('{"resultType":"complete","content":[{"type":"text","text":"Hello, Ada!"}]}'), {
        params: { requestState: 'state-1' },
      }),
      tool('ask', result(INPUT_REQUIRED)),
    ],
  },
  steps: [
    ...legacyOpening('{"elicitation":{"form":{}}}'),
    ...ask(2, 'tools/list'),
    ...ask(3, 'tools/call', '{"name":"echo","arguments":{"text":"hi"}}'),
    { send: '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ask","arguments":{}}}' },
    { expect: { method: 'elicitation/create' }, as: 'elicit' },
    {
      send: ({ elicit }) =>
        `{"jsonrpc":"2.0","id":${elicit.idText},"result":{"action":"accept","content":{"name":"Ada"}}}`,
    },
    { expect: { id: 4 }, what: 'the answer to the call' },
  ],
};
