// Requests from the upstream to the client during a call: elicitation/create, sampling/createMessage and
// roots/list, one after the other. The client answers each under the id the proxy chose; the upstream should get
// each answer under its own id, then answers the call.
import { legacyHandshake, legacyOpening, result, tool } from './lib.mjs';

const CAPABILITIES = '{"elicitation":{"form":{}},"sampling":{},"roots":{"listChanged":true}}';

/** The client's step pair: wait for the proxy's request `method`, answer it with `answer`. */
const answer = (method, answerBody) => [
  { expect: { method }, as: method },
  { send: (ctx) => `{"jsonrpc":"2.0","id":${ctx[method].idText},"result":${answerBody}}` },
];

export default {
  name: 'server-requests',
  transports: ['stdio', 'http'],
  upstream: {
    transport: 'stdio',
    rules: [
      ...legacyHandshake(['ask']),
      tool('ask', [
        '{"jsonrpc":"2.0","id":"srv-1","method":"elicitation/create","params":{"mode":"form","message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}',
        { waitFor: { id: 'srv-1' } },
        '{"jsonrpc":"2.0","id":"srv-2","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Say hi"}}],"maxTokens":10}}',
        { waitFor: { id: 'srv-2' } },
        '{"jsonrpc":"2.0","id":"srv-3","method":"roots/list"}',
        { waitFor: { id: 'srv-3' } },
        result('{"content":[{"type":"text","text":"asked three times"}]}'),
      ]),
    ],
  },
  steps: [
    ...legacyOpening(CAPABILITIES),
    { send: '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{}}}' },
    ...answer('elicitation/create', '{"action":"accept","content":{"name":"Ada"}}'),
    ...answer(
      'sampling/createMessage',
      '{"role":"assistant","content":{"type":"text","text":"hi"},"model":"scripted-model","stopReason":"endTurn"}',
    ),
    ...answer('roots/list', '{"roots":[{"uri":"file:///work/project","name":"project"}]}'),
    { expect: { id: 2 }, what: 'the answer to the call' },
  ],
};
