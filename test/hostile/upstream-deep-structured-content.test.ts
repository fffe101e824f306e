// #34 finding 3, in structuredContent: a tool result whose structuredContent nests objects and arrays 40 000 deep.
// The pipeline walks structuredContent as it walks JSON text (1.4 s at 4 000 levels before the fix, growing with the
// square of the depth); deeper, a JSON.stringify of it overflows the stack and the result passes on unchanged.
// Either way the proxy answers, and goes on answering meanwhile.
import { deepResultProbe } from './harness/deep-result.js';

const DEPTH = 40_000;

deepResultProbe('a tool result whose structuredContent is 40 000 levels deep', async (connection, id) => {
  // Written as text: the upstream's own JSON.stringify would overflow on it.
  const deep = `${'{"a":['.repeat(DEPTH / 2)}1${']}'.repeat(DEPTH / 2)}`;
  await connection.write(
    `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"ok"}],"structuredContent":${deep}}}\n`,
  );
});
