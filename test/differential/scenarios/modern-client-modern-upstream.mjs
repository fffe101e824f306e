// A 2026-07-28 client in front of a 2026-07-28 upstream (its server/discover names 2026-07-28 alone; its answers
// carry resultType). One call goes through an input_required round: the upstream asks for a name, the client
// answers in the retry (inputResponses, and the requestState it was given), the upstream answers that.
import { ask, envelope, modernHandshake, modernOpening, result, tool } from './lib.mjs';

const CAPABILITIES = '{"elicitation":{"form":{}}}';
const INPUT_REQUIRED =
  '{"resultType":"input_required","inputRequests":{"name":{"method":"elicitation/create","params":{"mode":"form","message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}},"requestState":"state-1"}';

export default {
  name: 'modern-client-modern-upstream',
  transports: ['stdio', 'http'],
  client: { modern: true },
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
    ...modernOpening(CAPABILITIES),
    ...ask(2, 'tools/list', `{"_meta":{${envelope(CAPABILITIES)}}}`),
    ...ask(3, 'tools/call', `{"name":"echo","arguments":{"text":"hi"},"_meta":{${envelope(CAPABILITIES)}}}`),
    {
      send: `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ask","arguments":{},"_meta":{${envelope(CAPABILITIES)}}}}`,
    },
    { expect: { id: 4, result: { resultType: 'input_required' } }, as: 'asked', what: 'the input_required answer' },
    {
      // The retry names the input request by the key the proxy gave it, and hands back the proxy's requestState.
      send: ({ asked }) => {
        const { inputRequests, requestState } = asked.message.result;
        const key = Object.keys(inputRequests)[0];
        return `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ask","arguments":{},"inputResponses":{${JSON.stringify(key)}:{"action":"accept","content":{"name":"Ada"}}},"requestState":${JSON.stringify(requestState)},"_meta":{${envelope(CAPABILITIES)}}}}`;
      },
    },
    { expect: { id: 5 }, what: 'the answer to the retry' },
  ],
};
