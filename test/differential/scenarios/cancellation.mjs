// Cancellation: the client cancels a call the upstream never answers. What the upstream gets (the call, then a
// notifications/cancelled naming the proxy's id for it), and that the session goes on (a ping, a second call).
import { ask, legacyHandshake, legacyOpening, result, tool } from './lib.mjs';

export default {
  name: 'cancellation',
  transports: ['stdio'],
  upstream: {
    transport: 'stdio',
    rules: [
      ...legacyHandshake(['hold', 'echo']),
      tool('hold', []),
      tool('echo', result('{"content":[{"type":"text","text":"still here"}]}')),
    ],
  },
  steps: [
    ...legacyOpening(),
    { send: '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold","arguments":{}}}' },
    { upstream: { method: 'tools/call', params: { name: 'hold' } } },
    {
      send: '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"changed my mind"}}',
    },
    { upstream: { method: 'notifications/cancelled' } },
    ...ask(3, 'ping'),
    ...ask(4, 'tools/call', '{"name":"echo","arguments":{}}'),
  ],
};
