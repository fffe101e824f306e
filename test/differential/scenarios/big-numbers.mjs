// Numbers a double cannot hold, both ways: in the client's arguments (what reaches the upstream) and in the
// upstream's structuredContent (what reaches the client): 2^53 + 1, a 23-digit integer, 1e400 (beyond a double's
// range) and -0.
import { ask, legacyHandshake, legacyOpening, result, tool } from './lib.mjs';

const NUMBERS =
  '{"big":9007199254740993,"huge":12345678901234567890123,"inf":1e400,"negativeZero":-0,"list":[9007199254740993,-0,1e400]}';

export default {
  name: 'big-numbers',
  transports: ['stdio', 'http'],
  upstream: {
    transport: 'stdio',
    rules: [
      ...legacyHandshake(['numbers']),
      tool(
        'numbers',
        result(`{"content":[{"type":"text","text":"numbers"}],"structuredContent":${NUMBERS},"_meta":{"n":-0}}`),
      ),
    ],
  },
  steps: [...legacyOpening(), ...ask(2, 'tools/call', `{"name":"numbers","arguments":${NUMBERS}}`)],
};
