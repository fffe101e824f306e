// #34 finding 3, with objects: a tool result whose text is JSON objects nested 40 000 deep ('{"a":{"a":…}}'). As with
// the arrays of upstream-deep-json-text.test.ts, the pipeline's walks copied a value's path for each level (time
// growing with the square of the depth: 22 s at 20 000 levels before the fix, every session frozen meanwhile).
import { deepResultProbe } from './harness/deep-result.js';

const DEPTH = 40_000;

deepResultProbe('a tool result whose text is JSON objects 40 000 levels deep', async (connection, id) => {
  await connection.answer(id, { content: [{ type: 'text', text: `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}` }] });
});
