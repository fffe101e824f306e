// Only a final (`complete`) result is a tool's output: what a modern server answers instead of one passes as it
// came, the very same object.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from '@jest/globals';
import type { Result } from '../../src/pipeline/types.js';
import { ArtifactStore } from '../../src/artifacts/store.js';
import { silentLogger } from '../../src/logger.js';
import { ARTIFACTS_META_KEY, ResultPipeline } from '../../src/pipeline/pipeline.js';
import { RuleBook } from '../../src/pipeline/rules.js';
import { png } from './detect-fixtures.js';

let dir: string;
let pipeline: ResultPipeline;
const call = { server: 'modern', tool: 'picture', owner: 'session' };
// Large enough to be worth storing: its summary and link are smaller than it is.
const image = { type: 'image', mimeType: 'image/png', data: png(2000, 2000).toString('base64') };

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'result-types-'));
  const store = new ArtifactStore({ dir, maxArtifactBytes: 50_000_000, quotaBytes: 0, ttlMs: 0 }, silentLogger);
  await store.init();
  pipeline = new ResultPipeline(
    new RuleBook({ pipeline: { keepInline: { imageMaxBytes: 0 } }, rules: [], servers: [] }),
    store,
    silentLogger,
  );
});
afterEach(() => rm(dir, { recursive: true, force: true }));

it.each([undefined, 'complete'])('rewrites a result whose resultType is %s', async (resultType) => {
  const result = { ...(resultType ? { resultType } : {}), content: [image] } as Result;
  const processed = await pipeline.process(result, call);
  expect(processed._meta?.[ARTIFACTS_META_KEY]).toHaveLength(1);
  expect(processed.resultType).toBe(resultType);
});

it.each(['input_required', 'task'])('passes a result of type %s on as the same object', async (resultType) => {
  const result = { resultType, content: [image], inputRequests: {}, taskId: 't' } as Result;
  expect(await pipeline.process(result, call)).toBe(result);
});
