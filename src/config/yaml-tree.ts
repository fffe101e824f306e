/**
 * Turns a parsed YAML document into plain data while remembering where every value (and the key
 * that names it) sits in the file, so that later checks on plain data can still point at a
 * line:column. Aliases are followed; string values go through `mapString` (env substitution).
 */
import { isAlias, isMap, isPair, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';
import { joinPointer } from './pointer.js';

export interface Position {
  line: number;
  column: number;
}

export interface NodeInfo {
  /** Position of the key naming this value, when it is a mapping entry. */
  key?: Position;
  value: Position;
  /** The source text of a plain non-string scalar (`1.10`, `true`), to turn it back into text. */
  text?: string;
}

export interface YamlData {
  data: unknown;
  /** JSON pointer → where it is in the file. */
  nodes: Map<string, NodeInfo>;
  problems: Array<{ pointer: string; message: string }>;
}

export type StringMapper = (value: string, pointer: string) => string;

export function yamlToData(doc: Document, lineCounter: LineCounter, mapString: StringMapper): YamlData {
  const nodes = new Map<string, NodeInfo>();
  const problems: YamlData['problems'] = [];
  const at = (offset: number | undefined): Position | undefined => {
    if (offset === undefined) return undefined;
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const start = (node: unknown): Position | undefined =>
    at((node as { range?: [number, number, number] } | null)?.range?.[0]);

  // `following` guards against an alias that (indirectly) contains itself.
  const convert = (node: unknown, pointer: string, keyPos: Position | undefined, following: Set<unknown>): unknown => {
    const valuePos = start(node) ?? keyPos ?? { line: 1, column: 1 };
    const info: NodeInfo = { value: valuePos };
    if (keyPos) info.key = keyPos;
    nodes.set(pointer, info);

    if (isAlias(node)) {
      const target = node.resolve(doc);
      if (!target || following.has(target)) return null;
      const result = convert(target, pointer, keyPos, new Set(following).add(target));
      // The alias itself, not its anchor, is where this value appears.
      nodes.set(pointer, { ...nodes.get(pointer)!, value: valuePos });
      return result;
    }
    if (isScalar(node)) {
      if (typeof node.value === 'string') return mapString(node.value, pointer);
      if (node.value !== null && typeof node.value !== 'object' && node.source !== undefined) {
        info.text = String(node.source);
      }
      return node.value ?? null;
    }
    if (isSeq(node)) {
      return node.items.map((item, index) => convert(item, joinPointer(pointer, index), undefined, following));
    }
    if (isMap(node)) {
      const out: Record<string, unknown> = {};
      for (const pair of node.items) {
        const key = keyText(pair.key);
        if (key === undefined) {
          problems.push({ pointer, message: 'a key must be plain text, not a list or mapping' });
          continue;
        }
        const childPointer = joinPointer(pointer, key);
        const childKeyPos = start(pair.key) ?? start(pair.value) ?? valuePos;
        setOwn(out, key, convert(pair.value, childPointer, childKeyPos, following));
      }
      return out;
    }
    if (isPair(node)) {
      // A `key: value` inside a flow sequence, e.g. `[a: 1]`.
      const key = keyText(node.key) ?? '';
      const out: Record<string, unknown> = {};
      setOwn(out, key, convert(node.value, joinPointer(pointer, key), start(node.key) ?? valuePos, following));
      return out;
    }
    return null;
  };

  const data = convert(doc.contents as Node | null, '', undefined, new Set());
  return { data, nodes, problems };
}

function keyText(key: unknown): string | undefined {
  if (key === null || key === undefined) return '';
  if (!isScalar(key)) return undefined;
  if (typeof key.value === 'string') return key.value;
  if (key.value === null) return '';
  return key.source !== undefined ? String(key.source) : String(key.value);
}

/** Assign without triggering the `__proto__` setter: a server may be called anything. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
