// #34 finding 3: a tool result whose text is JSON nested 20 000 deep ("[[[…]]]") went through the pipeline's JSON
// readers (detection, the outline of a stored document) in time that grows with the square of the depth, on the
// event loop: 15 s here, every session frozen meanwhile. The probe nests twice as deep (a minute here), so no machine
// is fast enough to hide it within the bounds; a proxy that walks such text in bounded time answers at once.
import { deepResultProbe } from './harness/deep-result.js';

const DEPTH = 40_000;

deepResultProbe('a tool result whose text is JSON 40 000 levels deep', async (connection, id) => {
  await connection.answer(id, { content: [{ type: 'text', text: `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}` }] });
});
