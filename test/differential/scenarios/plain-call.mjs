// A 2025-11-25 client in front of a legacy upstream: the opening, tools/list, and one plain tools/call whose answer
// is valid JSON written unusually (spaces around the separators, keys in odd order, 1.0 and 1e2, \u escapes), which a
// transparent proxy hands on as it came.
import { ask, legacyHandshake, legacyOpening, tool } from './lib.mjs';

export default {
  name: 'plain-call',
  transports: ['stdio', 'http', 'sse'],
  upstream: {
    transport: 'stdio',
    rules: [
      ...legacyHandshake(['plain']),
      tool(
        'plain',
        '{ "result" : { "structuredContent" : {"z":1.0, "a":1e2, "m":[ 1 , 2.50 ], "s":"caf\\u00e9 \\u2603 \\ud83d\\ude00"}, "content":[ {"text":"caf\\u00e9 \\/ \\"q\\"", "type":"text"} ] } , "id" : {{id}} ,"jsonrpc":"2.0"}',
      ),
    ],
  },
  steps: [
    ...legacyOpening(),
    ...ask(2, 'tools/list'),
    ...ask(3, 'tools/call', '{"name":"plain","arguments":{"b":2,"a":"x"}}'),
  ],
};
