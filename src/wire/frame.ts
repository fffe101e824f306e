import type { BlobView } from './blob-view.js';
import { Blobs, byteLengthOf } from './blobs.js';
import { isExactNumber, jsonText, parseJson, type ExactNumber } from './json.js';
import { memberValue, objectAt, skipSpace, type Member, type ObjectSpan } from './spans.js';

/** A JSON-RPC id: a string, a number, or a number a double cannot hold (kept as its text). */
export type Id = string | number | ExactNumber;

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** A JSON-RPC 2.0 message as the relay reads it: request, notification, result or error. */
export interface Message {
  jsonrpc?: unknown;
  id?: Id | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: RpcError;
}

export type FrameKind = 'request' | 'notification' | 'response' | 'invalid';

/** A member of the message changed by the relay: `[key]` at the top, or `[key, member]` one level down. */
export type Path = readonly [string] | readonly [string, string];

/** Marks a member the relay removed. */
const REMOVED = Symbol('removed');
type Edit = unknown;

/**
 * One JSON-RPC message on its way through the proxy: the text it came as, the parsed view the relay reads, and the
 * few members the relay changed. Written out, it is its own text with only those members spliced in, so everything
 * else reaches the other side byte for byte (the spacing, the key order, `1.0`, `\u00e9`); a frame the proxy built,
 * or rewrote wholesale, is serialized once. `blobs` are the long string literals the reader kept out of the text
 * (literal-cutter.ts); writing puts them back.
 */
export class Frame {
  private constructor(
    /** What the relay reads: the message with the edits applied. */
    readonly message: Message,
    /** The text as it came, when it is still the base of what is written. */
    private readonly text: string | undefined,
    /** Members changed since the text: top-level key → value, or → member → value one level down. */
    private readonly edits: ReadonlyMap<string, Edit | Map<string, Edit>> | undefined,
    readonly blobs: Blobs,
  ) {}

  /** Whether the text has no backslash (plainText), found once. */
  private plain: boolean | undefined;

  /** A frame read from `text` (one JSON value); throws SyntaxError when it is not JSON. */
  static read(text: string, blobs: Blobs = Blobs.NONE): Frame {
    const value = parseJson(text);
    return new Frame(value as Message, text, undefined, blobs);
  }

  /** A frame of a message the proxy made (or got as an object, from an in-process peer). */
  static of(message: Message, blobs: Blobs = Blobs.NONE): Frame {
    return new Frame(message, undefined, undefined, blobs);
  }

  static request(id: Id, method: string, params?: Record<string, unknown>): Frame {
    return Frame.of({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) });
  }

  static notification(method: string, params?: Record<string, unknown>): Frame {
    return Frame.of({ jsonrpc: '2.0', method, ...(params !== undefined ? { params } : {}) });
  }

  static result(id: Id | null, result: Record<string, unknown>): Frame {
    return Frame.of({ jsonrpc: '2.0', id, result });
  }

  static error(id: Id | null, error: RpcError): Frame {
    return Frame.of({ jsonrpc: '2.0', id, error });
  }

  get kind(): FrameKind {
    const m = this.message;
    if (m === null || typeof m !== 'object' || Array.isArray(m)) return 'invalid';
    if (typeof m.method === 'string') return m.id === undefined ? 'notification' : 'request';
    if ('result' in m || 'error' in m) return 'response';
    return 'invalid';
  }

  get id(): Id | null | undefined {
    return this.message.id;
  }

  get method(): string | undefined {
    return this.message.method;
  }

  get params(): Record<string, unknown> {
    const params = this.message.params;
    return params !== null && typeof params === 'object' ? params : {};
  }

  get isError(): boolean {
    return this.message.error !== undefined;
  }

  /** Whether the frame is still written from the text it came as (the relay changed no more than a few members). */
  get verbatim(): boolean {
    return this.text !== undefined;
  }

  /**
   * The text the message was read from, when every string of the message reads in it as it is (the frame is
   * verbatim, unedited, holds no blobs, and the text has no backslash, so no escape such as `\/` or `\u0061` hides
   * what a string holds): a search of it answers for every string of the message at once, without a walk. Else
   * undefined, and the caller walks the message.
   */
  get plainText(): string | undefined {
    const text = this.text;
    if (text === undefined || this.edits !== undefined || this.blobs.size > 0) return undefined;
    if (this.plain === undefined) this.plain = !text.includes('\\');
    return this.plain ? text : undefined;
  }

  /**
   * The same message with one member set (`undefined` removes it). Written out, only that member's text changes;
   * the rest is the original text.
   */
  with(path: Path, value: unknown): Frame {
    const [top, inner] = path;
    return inner === undefined ? this.edited(top, undefined, value) : this.edited(top, [[inner, value]]);
  }

  /**
   * The same message with several members of `top` set at once (`undefined` removes one): what as many calls of `with`
   * would make, with one copy of the message and of `top` where each of those makes its own.
   */
  withMembers(top: string, members: ReadonlyArray<readonly [string, unknown]>): Frame {
    return members.length === 0 ? this : this.edited(top, members);
  }

  /** `top` set to `value`, or, with `members`, those members of `top` set. */
  private edited(top: string, members: ReadonlyArray<readonly [string, unknown]> | undefined, value?: unknown): Frame {
    const message = { ...this.message } as Record<string, unknown>;
    if (members === undefined) {
      put(message, top, value);
    } else {
      const parent = message[top];
      const isObject =
        parent !== null && typeof parent === 'object' && !Array.isArray(parent) && !isExactNumber(parent);
      const copy = isObject ? { ...parent } : {};
      for (const [inner, innerValue] of members) put(copy, inner, innerValue);
      put(message, top, copy);
    }
    if (this.text === undefined) return new Frame(message as Message, undefined, undefined, this.blobs);
    const edits = new Map(this.edits);
    if (members === undefined) {
      edits.set(top, stored(value));
    } else {
      const current = edits.get(top);
      // The whole member was set already: it is set again, as the view now has it.
      if (current !== undefined && !(current instanceof Map)) edits.set(top, message[top]);
      else {
        const inner = new Map(current);
        for (const [key, innerValue] of members) inner.set(key, stored(innerValue));
        edits.set(top, inner);
      }
    }
    return new Frame(message as Message, this.text, edits, this.blobs);
  }

  /** Another message in this frame's place: serialized whole when written, with this frame's blobs. */
  replace(message: Message): Frame {
    return new Frame(message, undefined, undefined, this.blobs);
  }

  /** The bytes this frame is written as (a blob counts as the literal it stands for); computed on each read. */
  get byteLength(): number {
    return byteLengthOf(this.pieces());
  }

  /** The text to write, blobs not yet put back. */
  private body(): string {
    if (this.text === undefined) return jsonText(this.message);
    if (this.edits === undefined || this.edits.size === 0) return this.text;
    return splice(this.text, this.edits) ?? jsonText(this.message);
  }

  /** The whole text, blobs put back (a huge payload becomes one string: writers use `chunks`). */
  encode(): string {
    const body = this.body();
    if (this.blobs.size === 0) return body;
    // Decoded as one: a blob's buffers may split a character between them.
    const pieces = this.blobs.fill(body).map((piece) => (typeof piece === 'string' ? Buffer.from(piece) : piece));
    return Buffer.concat(pieces).toString('utf8');
  }

  /**
   * What to write, in pieces (a blob's bytes stay the buffers they arrived in; a spooled blob's are read back from
   * its file). `oneLine`: for a line-delimited wire or an SSE data field, where a text that came with line breaks
   * between its tokens (an HTTP body) has them turned into spaces (inside a JSON string they cannot occur).
   */
  chunks(oneLine = false): Array<string | Buffer> {
    return this.blobs.size === 0 ? [this.line(oneLine)] : this.blobs.fill(this.line(oneLine));
  }

  /**
   * `chunks`, with each spooled blob left as the blob: `writeChunks` reads it from its file as the stream takes it,
   * so a payload passed on as it came is never in memory whole.
   */
  pieces(oneLine = false): Array<string | Buffer | BlobView> {
    return this.blobs.size === 0 ? [this.line(oneLine)] : this.blobs.fill(this.line(oneLine), true);
  }

  private line(oneLine: boolean): string {
    const body = this.body();
    // Looked for in the text as it came, not in the body: what splices put in is JSON.stringify's, which writes no
    // line break outside a string either, and the body spliced together would be joined into one string to be read.
    return oneLine && this.text !== undefined && hasLineBreak(this.text) ? body.replace(/[\r\n]/g, ' ') : body;
  }
}

/** Whether the text holds a line break (two searches for one character: several times faster than /[\r\n]/). */
function hasLineBreak(text: string): boolean {
  return text.indexOf('\n') !== -1 || text.indexOf('\r') !== -1;
}

/** An edit's value as the edit map keeps it: a removal is REMOVED. */
const stored = (value: unknown): Edit => (value === undefined ? REMOVED : value);

/** Sets (or, for undefined, removes) an own member, whatever its name (`__proto__` included). */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (value === undefined) delete target[key];
  // Assigning `__proto__` would set the prototype; every other key (own data members of a plain copy) is assigned.
  else if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** The text with the edited members spliced in; undefined when the text is not an object to splice into. */
function splice(text: string, edits: ReadonlyMap<string, Edit | Map<string, Edit>>): string | undefined {
  // The usual edit, a message's id set anew, is spliced where the id is without reading the rest of the message.
  if (edits.size === 1) {
    const [[key, edit]] = edits;
    if (edit !== REMOVED && !(edit instanceof Map)) {
      const value = memberValue(text, key);
      if (value) return text.slice(0, value.start) + jsonText(edit) + text.slice(value.end);
    }
  }
  const top = objectAt(text, skipSpace(text, 0), nestedKeys(edits));
  if (!top) return undefined;
  const spliced = spliceObject(text, top, edits);
  return spliced === undefined ? undefined : text.slice(0, top.open) + spliced + text.slice(top.close + 1);
}

/**
 * The object at `span` with `edits` applied: each member that stays keeps its own bytes. Without removals the text
 * between members stays too; a removal rebuilds the member list (each member as it was, joined by commas), so that
 * no comma is left over or missing.
 */
function spliceObject(
  text: string,
  span: ObjectSpan,
  edits: ReadonlyMap<string, Edit | Map<string, Edit>>,
): string | undefined {
  // A key given twice is read as its last occurrence (JSON.parse does): that one is edited.
  const members = new Map<string, Member>();
  for (const member of span.members) members.set(member.key, member);
  const valueOf = (key: string, edit: Edit | Map<string, Edit>): string | undefined => {
    if (!(edit instanceof Map)) return jsonText(edit);
    const member = members.get(key);
    // Read with the object around it (objectAt's `within`): a member that is no object has none.
    const inner = member?.inner;
    // An absent member, or one that is no object, becomes the object of the edits (what the view holds).
    if (!inner) return jsonText(Object.fromEntries([...edit].filter(([, v]) => v !== REMOVED)));
    return spliceObject(text, inner, edit);
  };
  const removes = [...edits].some(([key, edit]) => edit === REMOVED && members.has(key));
  if (removes) {
    const pieces: string[] = [];
    for (const member of span.members) {
      if (members.get(member.key) !== member) continue;
      const edit = edits.get(member.key);
      if (edit === REMOVED) continue;
      if (edit === undefined) {
        pieces.push(text.slice(member.start, member.valueEnd));
        continue;
      }
      const value = valueOf(member.key, edit);
      if (value === undefined) return undefined;
      pieces.push(text.slice(member.start, member.valueStart) + value);
    }
    for (const [key, edit] of edits) {
      if (members.has(key) || edit === REMOVED) continue;
      const value = valueOf(key, edit);
      if (value === undefined) return undefined;
      pieces.push(`${JSON.stringify(key)}:${value}`);
    }
    return `{${pieces.join(',')}}`;
  }
  const cuts: Cut[] = [];
  const added: string[] = [];
  for (const [key, edit] of edits) {
    if (edit === REMOVED) continue;
    const value = valueOf(key, edit);
    if (value === undefined) return undefined;
    const member = members.get(key);
    if (member) cuts.push({ start: member.valueStart, end: member.valueEnd, text: value });
    else added.push(`${JSON.stringify(key)}:${value}`);
  }
  if (added.length) {
    const last = span.members[span.members.length - 1];
    if (last) cuts.push({ start: last.valueEnd, end: last.valueEnd, text: `,${added.join(',')}` });
    else cuts.push({ start: span.open + 1, end: span.open + 1, text: added.join(',') });
  }
  cuts.sort((a, b) => a.start - b.start);
  let out = '';
  let copied = span.open;
  for (const cut of cuts) {
    out += text.slice(copied, cut.start) + cut.text;
    copied = cut.end;
  }
  return out + text.slice(copied, span.close + 1);
}

/** The members edited one level down (their edits a Map), or undefined when there are none. */
function nestedKeys(edits: ReadonlyMap<string, Edit | Map<string, Edit>>): Set<string> | undefined {
  let keys: Set<string> | undefined;
  for (const [key, edit] of edits) if (edit instanceof Map) (keys ??= new Set()).add(key);
  return keys;
}

interface Cut {
  start: number;
  end: number;
  text: string;
}
