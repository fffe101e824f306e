// A 2026-07-28 client (server/discover first, then requests that each carry the `_meta` envelope: protocol
// version, clientInfo, clientCapabilities) in front of a legacy upstream: a list, a call, and a call during which
// the upstream asks the client (elicitation/create), which the client can only get as an input_required answer; its
// retry carries the answer, which the proxy hands the upstream as the answer to its question.
import { ask, envelope, legacyHandshake, modernOpening, result, tool } from './lib.mjs';

const CAPABILITIES = '{"elicitation":{"form":{}}}';

export default {
  name: 'modern-client-legacy-upstream',
  transports: ['stdio', 'http'],
  client: { modern: true },
  upstream: {
    transport: 'stdio',
    rules: [
      ...legacyHandshake(['echo', 'ask']),
      tool('echo', result('{"content":[{"type":"text","text":"echo: \\u00e9 1.50"}],"structuredContent":{"n":1.50}}')),
      tool('ask', [
        '{"jsonrpc":"2.0","id":"srv-1","method":"elicitation/create","params":{"mode":"form","message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}',
        { waitFor: { id: 'srv-1' } },
        result('{"content":[{"type":"text","text":"Hello!"}]}'),
      ]),
    ],
  },
  steps: [
    ...modernOpening(CAPABILITIES),
    ...ask(2, 'tools/list', `{"_meta":{${envelope(CAPABILITIES)}}}`),
    ...ask(3, 'tools/call', `{"name":"echo","arguments":{"text":"hi","n":2.0},"_meta":{${envelope(CAPABILITIES)}}}`),
    {
      send: `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ask","arguments":{},"_meta":{${envelope(CAPABILITIES)}}}}`,
    },
    { expect: { id: 4, result: { resultType: 'input_required' } }, as: 'asked', what: 'the input_required answer' },
    {
      send: ({ asked }) => {
        const { inputRequests, requestState } = asked.message.result;
        const key = Object.keys(inputRequests)[0];
        return `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ask","arguments":{},"inputResponses":{${JSON.stringify(key)}:{"action":"accept","content":{"name":"Ada"}}},"requestState":${JSON.stringify(requestState)},"_meta":{${envelope(CAPABILITIES)}}}}`;
      },
    },
    { expect: { id: 5 }, what: 'the answer to the retry' },
  ],
};
