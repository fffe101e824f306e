import fc from 'fast-check';
import { sniff } from '../../src/artifacts/mime.js';
import { decodeBase64Prefix, isFullyBase64 } from '../../src/codec/base64.js';
import { detectBase64Binary } from '../../src/pipeline/detect/base64.js';
import { findDataUris } from '../../src/pipeline/detect/data-uri.js';
import { isBinaryMimeType } from '../../src/artifacts/mime.js';
import { findStringsDeep, setAtPath, type JsonPath } from '../../src/pipeline/detect/walk.js';
import { renderTemplate } from '../../src/pipeline/summary/template.js';
import * as fx from './detect-fixtures.js';

/** The property detectBase64Binary promises: a result only when the decoded start has a binary signature. */
async function detectionIsJustified(s: string, minLength: number): Promise<boolean> {
  const found = await detectBase64Binary(s, minLength);
  if (found === undefined) return true;
  const sniffed = await sniff(decodeBase64Prefix(s));
  return sniffed?.mimeType === found.mimeType && isBinaryMimeType(found.mimeType) && isFullyBase64(s);
}

const base64OfBytes = fc.uint8Array({ minLength: 0, maxLength: 3000 }).map((b) => Buffer.from(b).toString('base64'));

describe('detectBase64Binary', () => {
  test('never throws on arbitrary strings, and detects only with a signature', async () => {
    await fc.assert(fc.asyncProperty(fc.string({ maxLength: 2000 }), fc.nat(50), detectionIsJustified), {
      numRuns: 300,
    });
  });

  test('holds for base64-alphabet strings and base64 of arbitrary bytes', async () => {
    await fc.assert(fc.asyncProperty(fc.base64String({ maxLength: 4000 }), fc.nat(50), detectionIsJustified), {
      numRuns: 300,
    });
    await fc.assert(fc.asyncProperty(base64OfBytes, fc.nat(50), detectionIsJustified), { numRuns: 300 });
  });

  test('holds for strings taken from arbitrary JSON', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        const strings: string[] = [];
        findStringsDeep(value, (s) => strings.push(s) > 0);
        for (const s of strings) if (!(await detectionIsJustified(s, 0))) return false;
        return true;
      }),
      { numRuns: 200 },
    );
  });

  test('finds a real file followed by arbitrary bytes, in any layout', async () => {
    const files = fc.constantFrom(
      { bytes: fx.png(4, 4), mimeType: 'image/png' },
      { bytes: fx.pdf(1), mimeType: 'application/pdf' },
      { bytes: fx.gif(2, 2), mimeType: 'image/gif' },
      { bytes: fx.jpeg(8, 8), mimeType: 'image/jpeg' },
    );
    await fc.assert(
      fc.asyncProperty(
        files,
        fc.uint8Array({ minLength: 1000, maxLength: 5000 }),
        fc.constantFrom('plain', 'wrapped', 'url'),
        async (file, rest, layout) => {
          let s = Buffer.concat([file.bytes, rest]).toString('base64');
          if (layout === 'wrapped') s = fx.wrapLines(s);
          if (layout === 'url') s = fx.toUrlSafe(s);
          return (await detectBase64Binary(s))?.mimeType === file.mimeType;
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('findDataUris', () => {
  const withUris = fc
    .array(
      fc.oneof(
        fc.string({ maxLength: 50 }),
        fc.base64String({ maxLength: 200 }).map((p) => `data:image/png;base64,${p}`),
        fc.string({ maxLength: 100 }).map((p) => `data:text/plain,${p}`),
        fc.constantFrom('data:', 'data:;base64,', 'metadata:', '](', '"', ',', ';base64,', '%', '%E0'),
      ),
      { maxLength: 20 },
    )
    .map((parts) => parts.join(''));

  test('never throws, and returns ordered, non-overlapping ranges inside the text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), withUris), fc.nat(20), (text, min) => {
        const found = findDataUris(text, min);
        let at = 0;
        for (const m of found) {
          if (m.start < at || m.end <= m.start || m.end > text.length) return false;
          if (!text.startsWith('data:', m.start)) return false;
          at = m.end;
        }
        return true;
      }),
      { numRuns: 1000 },
    );
  });
});

describe('renderTemplate', () => {
  test('never throws, and output with no placeholders is the template with braces unescaped', () => {
    fc.assert(
      fc.property(fc.string(), fc.dictionary(fc.string(), fc.jsonValue()), (template, vars) => {
        renderTemplate(template, vars);
        const plain = template.replace(/[{}]/g, '');
        return renderTemplate(plain, vars) === plain;
      }),
      { numRuns: 1000 },
    );
  });

  test('a value never adds more than 201 characters', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => renderTemplate('{v}', { v: value }).length <= 201),
      { numRuns: 500 },
    );
  });
});

describe('walk', () => {
  function allPaths(value: unknown, prefix: JsonPath = []): JsonPath[] {
    if (typeof value === 'string') return [prefix];
    if (Array.isArray(value)) return value.flatMap((v, i) => allPaths(v, [...prefix, i]));
    if (typeof value === 'object' && value !== null)
      return Object.entries(value).flatMap(([k, v]) => allPaths(v, [...prefix, k]));
    return [];
  }

  test('findStringsDeep visits every string exactly once, with its path', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const visited: JsonPath[] = [];
        findStringsDeep(value, (s, place) => {
          const path = place.path();
          const at = path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], value);
          if (at !== s) throw new Error(`wrong path ${JSON.stringify(path)}`);
          visited.push(path);
          return true;
        });
        expect(visited).toEqual(allPaths(value));
      }),
      { numRuns: 500 },
    );
  });

  test('setAtPath never mutates its input and sets exactly the given place', () => {
    const withPath = fc.jsonValue().chain((value) => {
      const paths: JsonPath[] = [[]];
      const walk = (v: unknown, p: JsonPath): void => {
        if (Array.isArray(v)) v.forEach((x, i) => (paths.push([...p, i]), walk(x, [...p, i])));
        else if (typeof v === 'object' && v !== null)
          Object.entries(v).forEach(([k, x]) => (paths.push([...p, k]), walk(x, [...p, k])));
      };
      walk(value, []);
      return fc.tuple(fc.constant(value), fc.constantFrom(...paths));
    });
    fc.assert(
      fc.property(withPath, fc.jsonValue(), ([root, path], replacement) => {
        const before = structuredClone(root);
        const next = setAtPath(root, path, replacement);
        expect(root).toStrictEqual(before);
        const at = path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], next);
        expect(at).toBe(replacement);
      }),
      { numRuns: 500 },
    );
  });
});
