// Errors: a JSON-RPC error from the upstream (with data), an isError result, a tool the upstream does not have, and
// a method nobody knows.
import { ask, legacyHandshake, legacyOpening, result, tool } from './lib.mjs';

export default {
  name: 'errors',
  transports: ['stdio', 'http'],
  upstream: {
    transport: 'stdio',
    rules: [
      ...legacyHandshake(['invalid', 'failing']),
      tool(
        'invalid',
        '{"jsonrpc":"2.0","id":{{id}},"error":{"code":-32602,"message":"Invalid params: x must be a number","data":{"field":"x","got":"abc","codes":[1.5e3,-0]}}}',
      ),
      tool('failing', result('{"content":[{"type":"text","text":"the tool failed: disk full"}],"isError":true}')),
    ],
  },
  steps: [
    ...legacyOpening(),
    ...ask(2, 'tools/call', '{"name":"invalid","arguments":{"x":"abc"}}'),
    ...ask(3, 'tools/call', '{"name":"failing","arguments":{}}'),
    ...ask(4, 'tools/call', '{"name":"no_such_tool","arguments":{}}'),
    ...ask(5, 'no/such/method', '{"x":1}'),
  ],
};
