// Progress: the client's call carries a progressToken; the upstream reports three steps under the token the proxy
// gave it, then answers. The client should get the three under its own token, before the result.
import { ask, legacyHandshake, legacyOpening, result, tool } from './lib.mjs';

const step = (n) =>
  `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":{{progressToken}},"progress":${n},"total":3,"message":"step ${n} of 3"}}`;

export default {
  name: 'progress',
  transports: ['stdio', 'http'],
  upstream: {
    transport: 'stdio',
    rules: [
      ...legacyHandshake(['steps']),
      tool('steps', [step(1), step(2), step(3), result('{"content":[{"type":"text","text":"done"}]}')]),
    ],
  },
  steps: [
    ...legacyOpening(),
    ...ask(2, 'tools/call', '{"name":"steps","arguments":{},"_meta":{"progressToken":"client-token-1"}}'),
  ],
};
