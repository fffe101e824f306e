// A 2026-07-28 upstream over Streamable HTTP (stateless: no session), answering with application/json, in front of
// a 2026-07-28 client: discovery, a call, and an input_required round.
import { ask, envelope, modernHandshake, modernOpening, result, tool } from './lib.mjs';

const CAPABILITIES = '{"elicitation":{"form":{}}}';
const INPUT_REQUIRED =
  '{"resultType":"input_required","inputRequests":{"confirm":{"method":"elicitation/create","params":{"mode":"form","message":"Sure?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}}},"requestState":"opaque-state"}';

export default {
  name: 'http-upstream-modern',
  transports: ['stdio', 'http'],
  client: { modern: true },
  upstream: {
    transport: 'http',
    http: { answer: 'json' },
    rules: [
      ...modernHandshake(['echo', 'confirm']),
      tool(
        'echo',
        result('{"resultType":"complete","content":[{"type":"text","text":"echo"}],"structuredContent":{"v":1.0}}'),
      ),
      tool('confirm', result('{"resultType":"complete","content":[{"type":"text","text":"confirmed"}]}'), {
        params: { requestState: 'opaque-state' },
      }),
      tool('confirm', result(INPUT_REQUIRED)),
    ],
  },
  steps: [
    ...modernOpening(CAPABILITIES),
    ...ask(2, 'tools/call', `{"name":"echo","arguments":{},"_meta":{${envelope(CAPABILITIES)}}}`),
    {
      send: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"confirm","arguments":{},"_meta":{${envelope(CAPABILITIES)}}}}`,
    },
    { expect: { id: 3, result: { resultType: 'input_required' } }, as: 'asked', what: 'the input_required answer' },
    {
      send: ({ asked }) => {
        const { inputRequests, requestState } = asked.message.result;
        const key = Object.keys(inputRequests)[0];
        return `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"confirm","arguments":{},"inputResponses":{${JSON.stringify(key)}:{"action":"accept","content":{"ok":true}}},"requestState":${JSON.stringify(requestState)},"_meta":{${envelope(CAPABILITIES)}}}}`;
      },
    },
    { expect: { id: 4 }, what: 'the answer to the retry' },
  ],
};
