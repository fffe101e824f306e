// The MCP side of the ABP backend on real inputs: the capability registry, argument validation, the
// mapping of app elicitations to MCP forms and back, how call outcomes are shaped for file mode (and what
// file mode then makes of them), and abp_connect's argument rules.
import { describe, expect, test } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '../../src/artifacts/store.js';
import { silentLogger } from '../../src/logger.js';
import { ResultPipeline } from '../../src/pipeline/pipeline.js';
import { RuleBook } from '../../src/pipeline/rules.js';
import { answerFrom, planElicitation } from '../../src/upstreams/abp/elicitation.js';
import { CapabilityRegistry, toolNameOf } from '../../src/upstreams/abp/registry.js';
import { appErrorResult, callResult } from '../../src/upstreams/abp/results.js';
import { connectTarget } from '../../src/upstreams/abp/static-handlers.js';
import { STATIC_TOOL_NAMES, dynamicTool } from '../../src/upstreams/abp/tools.js';
import type { AbpCapability, CallOutcome } from '../../src/upstreams/abp/types.js';
import { ArgumentValidator } from '../../src/upstreams/abp/validation.js';

describe('capability registry', () => {
  const manifest: AbpCapability[] = [
    { name: 'convert.markdownToHtml', description: 'from the manifest', inputSchema: { type: 'object' } },
    { name: 'export.pdf', description: 'declared only' },
    { name: 'status', description: 'would be abp_status' },
  ];

  test('tool names: abp_ and dots as underscores; other characters MCP names cannot hold become _', () => {
    expect(toolNameOf('convert.markdownToHtml')).toBe('abp_convert_markdownToHtml');
    expect(toolNameOf('a.b-c.d e/f')).toBe('abp_a_b-c_d_e_f');
  });

  test('runtime fields win, runtime-only capabilities are added, unconfirmed and unavailable ones are hidden', () => {
    const registry = new CapabilityRegistry(manifest, STATIC_TOOL_NAMES);
    registry.update([
      { name: 'convert.markdownToHtml', description: 'from the runtime', available: true },
      { name: 'image.render', available: true },
      { name: 'export.later', available: false },
      { name: 'status', available: true },
    ]);
    expect(registry.tools().map((t) => t.toolName)).toEqual(['abp_convert_markdownToHtml', 'abp_image_render']);
    expect(registry.getByToolName('abp_convert_markdownToHtml')).toEqual({
      name: 'convert.markdownToHtml',
      description: 'from the runtime',
      inputSchema: { type: 'object' },
      available: true,
    });
    expect(registry.get('export.pdf')?.available).toBe(false);
    expect(registry.get('export.later')?.available).toBe(false);
    expect(registry.getByToolName('abp_export_later')).toBeUndefined();
    // A capability whose tool name is a static tool's is reachable through abp_call only.
    expect(registry.shadowed).toEqual(['status']);
    expect(registry.get('status')).toBeDefined();
  });

  test('without a runtime list the manifest stands; a change replaces the runtime view; clear empties it', () => {
    const registry = new CapabilityRegistry(manifest);
    expect(registry.tools().map((t) => t.capability.name)).toEqual(['convert.markdownToHtml', 'export.pdf', 'status']);
    registry.update([{ name: 'export.pdf' }]);
    expect(registry.tools().map((t) => t.capability.name)).toEqual(['export.pdf']);
    registry.clear();
    expect(registry.list()).toEqual([]);
  });

  test("a dynamic tool keeps the capability's schema and gains `session`, unless the app uses that name", () => {
    const tool = dynamicTool(
      {
        toolName: 'abp_x',
        capability: {
          name: 'x',
          inputSchema: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
        },
      },
      ['default'],
    );
    expect(tool.inputSchema).toMatchObject({
      type: 'object',
      additionalProperties: false,
      properties: { a: { type: 'string' }, session: { type: 'string' } },
    });
    const own = dynamicTool(
      { toolName: 'abp_y', capability: { name: 'y', inputSchema: { properties: { session: { type: 'integer' } } } } },
      ['default'],
    );
    expect(own.inputSchema).toEqual({ type: 'object', properties: { session: { type: 'integer' } } });
  });
});

describe('argument validation', () => {
  const validator = new ArgumentValidator(silentLogger);
  const schema = {
    type: 'object',
    properties: {
      text: { type: 'string' },
      mode: { enum: ['a', 'b'] },
      nested: { type: 'object', properties: { n: { type: 'integer' } } },
    },
    required: ['text'],
    additionalProperties: false,
  };

  test('every problem is listed in plain words', () => {
    expect(validator.check('t.x', schema, { mode: 'c', nested: { n: 'one' }, extra: 1 })).toBe(
      'Invalid arguments for t.x: missing required property "text"; unknown property "extra"; mode must be one of "a", "b"; nested.n must be integer',
    );
    expect(validator.check('t.x', schema, { text: 'ok' })).toBeUndefined();
  });

  test('2020-12 schemas are understood; a schema that cannot compile lets the app judge', () => {
    const modern = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $defs: { num: { type: 'number' } },
      type: 'object',
      properties: { n: { $ref: '#/$defs/num' } },
      unevaluatedProperties: false,
    };
    expect(validator.check('m', modern, { n: 'x', extra: 1 })).toBe(
      'Invalid arguments for m: n must be number; the arguments must NOT have unevaluated properties',
    );
    expect(
      validator.check('broken', { type: 'object', properties: { a: { type: 'no-such-type' } } }, { a: 1 }),
    ).toBeUndefined();
    expect(validator.check('none', undefined, 'anything')).toBeUndefined();
  });
});

describe('elicitation mapping', () => {
  test('confirm: a boolean field defaulting to yes unless destructive; decline means no', () => {
    const plan = planElicitation({ method: 'elicitation/confirm', params: { message: 'Delete?', destructive: true } })!;
    expect(plan.request).toEqual({
      message: 'Delete?',
      requestedSchema: {
        type: 'object',
        properties: { confirmed: { type: 'boolean', title: 'Confirm (destructive)', default: false } },
        required: ['confirmed'],
      },
    });
    expect(answerFrom(plan, { action: 'accept', content: { confirmed: true } })).toEqual({
      success: true,
      data: { confirmed: true },
    });
    expect(answerFrom(plan, { action: 'decline' })).toEqual({ success: true, data: { confirmed: false } });
    expect(answerFrom(plan, { action: 'cancel' })).toEqual({ success: false, cancelled: true });
    expect(plan.fallback()).toEqual({ success: true, data: { confirmed: false } });
  });

  test("select: titled options, the answer mapped back to the option's own value; fallback is the first", () => {
    const plan = planElicitation({
      method: 'elicitation/select',
      params: {
        prompt: 'Size?',
        options: [
          { value: 1, label: 'Small' },
          { value: 2, label: 'Large' },
        ],
      },
    })!;
    expect(plan.request.requestedSchema.properties.choice).toEqual({
      type: 'string',
      title: 'Choice',
      oneOf: [
        { const: '1', title: 'Small' },
        { const: '2', title: 'Large' },
      ],
    });
    expect(answerFrom(plan, { action: 'accept', content: { choice: '2' } })).toEqual({
      success: true,
      data: { selected: 2 },
    });
    expect(plan.fallback()).toEqual({ success: true, data: { selected: 1 } });
  });

  test('input: a primitive schema is one field, an object of primitives is the form; defaults or empty', () => {
    const one = planElicitation({
      method: 'elicitation/input',
      params: { prompt: 'Count?', schema: { type: 'integer', minimum: 1, default: 3 } },
    })!;
    expect(one.request.requestedSchema).toEqual({
      type: 'object',
      properties: { value: { type: 'integer', title: 'Value', minimum: 1, default: 3 } },
      required: ['value'],
    });
    expect(one.fallback()).toEqual({ success: true, data: { value: 3 } });
    const form = planElicitation({
      method: 'elicitation/input',
      params: {
        prompt: 'Who?',
        schema: {
          type: 'object',
          properties: { name: { type: 'string' }, admin: { type: 'boolean' } },
          required: ['name'],
        },
      },
    })!;
    expect(form.request.requestedSchema).toEqual({
      type: 'object',
      properties: { name: { type: 'string', title: 'name' }, admin: { type: 'boolean', title: 'admin' } },
      required: ['name'],
    });
    expect(answerFrom(form, { action: 'accept', content: { name: 'Ada', admin: true } })).toEqual({
      success: true,
      data: { value: { name: 'Ada', admin: true } },
    });
    expect(form.fallback()).toEqual({ success: true, data: { value: { name: '', admin: false } } });
    expect(planElicitation({ method: 'elicitation/unknown' })).toBeUndefined();
  });
});

describe('call outcomes, as file mode sees them', () => {
  const pdf = Buffer.from('%PDF-1.4\nprinted by the guard\n%%EOF\n');
  const png = Buffer.from(
    '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a0c1b5d20000000049454e44ae426082',
    'hex',
  );
  const outcome = (data: unknown): CallOutcome => ({
    response: { success: true, data },
    outputs: [
      { kind: 'print', bytes: pdf, mimeType: 'application/pdf', filename: 'page.pdf' },
      { kind: 'download', bytes: Buffer.from('a,b\n'), mimeType: 'text/csv', filename: 'data.csv' },
    ],
    dialogs: [{ type: 'confirm', message: 'Sure?', action: 'accepted' }],
  });

  async function throughFileMode(result: ReturnType<typeof callResult>): Promise<{ texts: string[]; files: Buffer[] }> {
    const dir = mkdtempSync(join(tmpdir(), 'abp-results-'));
    try {
      const store = new ArtifactStore({ dir, maxArtifactBytes: 1e9, quotaBytes: 0, ttlMs: 0 }, silentLogger);
      await store.init();
      const pipeline = new ResultPipeline(
        new RuleBook({ pipeline: { mode: 'file' }, rules: [], servers: [] }),
        store,
        silentLogger,
      );
      const processed = await pipeline.process(result, { server: 'browser', tool: 'abp_call', owner: 'o' });
      const texts = processed.content.flatMap((b) => (b.type === 'text' ? [b.text] : []));
      const files = texts.flatMap((t) => [...t.matchAll(/^File saved: (.+)$/gm)].map((m) => readFileSync(m[1]!)));
      return { texts, files };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  test("without binary in the response, the guard's outputs are the files; the answer and the dialogs are their metadata", async () => {
    const { texts, files } = await throughFileMode(callResult(outcome({ status: 'print_dialog_opened' }), false));
    expect(files).toEqual([pdf, Buffer.from('a,b\n')]);
    expect(texts[0]).toMatch(
      /^File saved: .+\.pdf\nType: application\/pdf\n.*\nMetadata: \{"data":\{"status":"print_dialog_opened"\},"handledDialogs":\[\{"type":"confirm","message":"Sure\?","action":"accepted"\}\]\}/,
    );
  });

  test("binary data in the response takes priority: the guard's outputs are left out", async () => {
    const data = { image: { content: png.toString('base64'), mimeType: 'image/png', encoding: 'base64' }, width: 1 };
    const { texts, files } = await throughFileMode(callResult(outcome(data), true));
    expect(files).toEqual([png]);
    expect(texts[0]).toContain(
      'Metadata: {"width":1,"handledDialogs":[{"type":"confirm","message":"Sure?","action":"accepted"}]}',
    );
  });

  test('data that is not an object is wrapped when dialogs are reported; null data is saved as null', () => {
    const wrapped = callResult(
      {
        response: { success: true, data: [1, 2] },
        outputs: [],
        dialogs: [{ type: 'alert', message: 'hi', action: 'dismissed' }],
      },
      false,
    );
    expect(wrapped.content).toEqual([
      { type: 'text', text: '{"data":[1,2],"handledDialogs":[{"type":"alert","message":"hi","action":"dismissed"}]}' },
    ]);
    expect(callResult({ response: { success: true }, outputs: [], dialogs: [] }, false).content).toEqual([
      { type: 'text', text: 'null' },
    ]);
  });

  test('app errors are inline as CODE: message (retryable)', () => {
    expect(appErrorResult({ code: 'RATE_LIMITED', message: 'slow down', retryable: true })).toEqual({
      content: [{ type: 'text', text: 'RATE_LIMITED: slow down (retryable)' }],
      isError: true,
    });
    expect(appErrorResult(undefined, { cancelled: true }).content).toEqual([
      { type: 'text', text: 'CANCELLED: the call was cancelled' },
    ]);
  });
});

describe('abp_connect arguments', () => {
  test('exactly one target; abpPage only for extensions; ids and urls checked', () => {
    expect(connectTarget({ url: 'http://x/' })).toEqual({ url: 'http://x/' });
    expect(connectTarget({ extensionPath: '/ext', abpPage: 'app.html' })).toEqual({
      extensionPath: '/ext',
      abpPage: 'app.html',
    });
    expect(connectTarget({ extensionId: 'abcdefghijklmnopabcdefghijklmnop' })).toEqual({
      extensionId: 'abcdefghijklmnopabcdefghijklmnop',
    });
    expect(connectTarget({ url: 'http://x/', abpPage: 'a.html' })).toBe(
      '"abpPage" applies to extensions only; give the page in "url" itself',
    );
    expect(connectTarget({ url: 'file:///etc/passwd' })).toBe(
      '"url" must be an http:// or https:// address, got "file:///etc/passwd"',
    );
    expect(connectTarget({ extensionId: 'xyz' })).toBe('"extensionId" must be 32 letters from a to p, got "xyz"');
    expect(connectTarget({ url: 'http://x/', extensionId: 'a', extensionPath: '/p' })).toBe(
      'give only one of "url", "extensionPath", "extensionId" (got "url" and "extensionPath" and "extensionId")',
    );
  });
});
