import { Ajv } from 'ajv';
import { REFERENCE_DEF, rewriteOutputSchema } from '../../src/pipeline/output-schema.js';
import { DEFAULT_PIPELINE, effectiveSettings, type PipelineSettings } from '../../src/pipeline/settings.js';

const auto = DEFAULT_PIPELINE;
const file = effectiveSettings({ ...DEFAULT_PIPELINE, mode: 'file' });
const reference = { $artifact: 'artifact://s/t_0123456789ab.json', mimeType: 'application/json', size: 12 };
const ajv = new Ajv({ strict: false, validateFormats: false });

const closed = {
  type: 'object',
  properties: { content: { type: 'string' }, when: { type: 'string', format: 'date-time' } },
  required: ['content'],
  additionalProperties: false,
  $schema: 'http://json-schema.org/draft-07/schema#',
};
const withArray = {
  type: 'object',
  properties: { items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } } },
  required: ['items'],
  additionalProperties: false,
};

test('a closed schema without arrays is shown as it is: its strings take the artifact URI, which is a string', () => {
  expect(rewriteOutputSchema(closed, auto)).toBe(closed);
  expect(ajv.validate(closed, { content: 'artifact://s/t_0123456789ab.txt' })).toBe(true);
});

test('passthrough never changes a schema', () => {
  expect(rewriteOutputSchema(withArray, { ...auto, mode: 'passthrough' })).toBe(withArray);
});

test.each([
  ['an array', withArray],
  ['an open object', { type: 'object', properties: { a: { type: 'number' } } }],
  ['a map', { type: 'object', additionalProperties: { type: 'number' }, properties: {} }],
])('a schema with %s may need its root replaced: one $ref to one small $defs entry', (_what, schema) => {
  const widened = rewriteOutputSchema(schema as Record<string, unknown>, auto);
  expect(widened.type).toBe('object');
  expect(widened.$defs).toEqual({ [REFERENCE_DEF]: { type: 'object', required: ['$artifact'] } });
  expect(widened.anyOf).toEqual([expect.any(Object), { $ref: `#/$defs/${REFERENCE_DEF}` }]);
  expect(JSON.stringify(widened).match(/\$defs\//g)).toHaveLength(1);
  expect(ajv.validate(widened, reference)).toBe(true);
  expect(ajv.validate(widened, { not: 'a reference' })).toBe(ajv.validate(schema, { not: 'a reference' }));
});

test("the upstream's own $defs stay, and its $refs still resolve from the root", () => {
  const schema = {
    type: 'object',
    $defs: { item: { type: 'string' } },
    properties: { list: { type: 'array', items: { $ref: '#/$defs/item' } } },
  };
  const widened = rewriteOutputSchema(schema, auto);
  expect(Object.keys(widened.$defs as object).sort()).toEqual([REFERENCE_DEF, 'item'].sort());
  expect(ajv.validate(widened, { list: ['a', 'b'] })).toBe(true);
  expect(ajv.validate(widened, { list: [1] })).toBe(false);
  expect(ajv.validate(widened, reference)).toBe(true);
});

test('a field a rule names may hold a reference, through the same $ref', () => {
  const settings: PipelineSettings = { ...auto, fields: [{ path: 'result.report' }] };
  const schema = {
    type: 'object',
    properties: { result: { type: 'object', properties: { report: { type: 'object' } }, additionalProperties: false } },
    additionalProperties: false,
  };
  const widened = rewriteOutputSchema(schema, settings);
  expect(ajv.validate(schema, { result: { report: reference } })).toBe(true); // an object anyway
  expect(ajv.validate(widened, { result: { report: reference } })).toBe(true);
  expect(JSON.stringify(widened)).toContain(`"anyOf":[{"type":"object"},{"$ref":"#/$defs/${REFERENCE_DEF}"}]`);
});

test('a BinaryDataReference shape accepts a reference (the download is a file now); in mode file BinaryData too', () => {
  const shape = (key: string) => ({
    type: 'object',
    properties: {
      doc: {
        type: 'object',
        properties: { [key]: { type: 'string' }, mimeType: { type: 'string' } },
        required: [key],
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  });
  expect(ajv.validate(rewriteOutputSchema(shape('downloadUrl'), auto), { doc: reference })).toBe(true);
  // In mode auto a BinaryData keeps its shape (the URI becomes its content): nothing to widen.
  const binaryData = shape('content');
  expect(rewriteOutputSchema(binaryData, auto)).toBe(binaryData);
  expect(ajv.validate(rewriteOutputSchema(shape('content'), file), { doc: reference })).toBe(true);
  expect(ajv.validate(rewriteOutputSchema(shape('content'), file), reference)).toBe(true);
});
