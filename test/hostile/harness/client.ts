// What every probe's client can do, whatever carries it (the proxy's stdio, a Streamable HTTP session, a 2026-07-28
// request over HTTP): ask a request and wait, within a bound, for its answer.
import type { Message } from './scripted-upstream.js';

export type Era = 'legacy' | 'modern';

export const LEGACY_VERSION = '2025-11-25';
export const MODERN_VERSION = '2026-07-28';

/** How long any one answer may take before the probe calls the proxy stuck (a bound, not a timing). */
export const ANSWER_BOUND_MS = 10_000;

export interface AskOptions {
  timeoutMs?: number;
  /** The request's id (default: the client's next number). */
  id?: unknown;
}

export interface ProbeClient {
  readonly era: Era;
  /** What carries it, for failure messages: "stdio", "http". */
  readonly transport: string;
  /** Sends a request (with the 2026-07-28 envelope for a modern client) and resolves with its answer. */
  ask(method: string, params?: Record<string, unknown>, options?: AskOptions): Promise<Message>;
  /**
   * The same with params written by the probe, as JSON text of their members without the braces
   * (`"name":123456789012345678901234567890`): numbers no double holds, duplicate keys, anything JSON.stringify
   * cannot write. A modern client's envelope is put in front.
   */
  askRaw(method: string, members: string, options?: AskOptions): Promise<Message>;
  close(): Promise<void>;
}

/** The `_meta` a 2026-07-28 client's every request carries. */
export function envelope(name = 'hostile-probe'): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
    'io.modelcontextprotocol/clientInfo': { name, version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
}

/** `params` as a client of `era` sends them: a modern client's with its envelope in `_meta`. */
export function withEnvelope(era: Era, params: Record<string, unknown> = {}): Record<string, unknown> {
  if (era === 'legacy') return params;
  const meta = (params._meta as Record<string, unknown> | undefined) ?? {};
  return { ...params, _meta: { ...envelope(), ...meta } };
}

/** The text of a request whose params are `members` (see ProbeClient.askRaw), as a client of `era` sends it. */
export function requestText(era: Era, id: unknown, method: string, members: string): string {
  const meta = era === 'modern' ? `"_meta":${JSON.stringify(envelope())}${members ? ',' : ''}` : '';
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":${JSON.stringify(method)},"params":{${meta}${members}}}`;
}

/** Rejects with a message naming what was not answered, once `ms` have passed without `work` settling. */
export function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms (is the proxy stuck?)`)), ms);
  });
  return Promise.race([work, bound]).finally(() => clearTimeout(timer));
}

const rawTexts = new WeakMap<Message, string>();

/** Remembers the text a message arrived as (JSON.parse rounds numbers a double cannot hold). */
export function parsed(text: string): Message {
  const message = JSON.parse(text) as Message;
  rawTexts.set(message, text);
  return message;
}

/** The text `message` arrived as. */
export function rawText(message: Message): string {
  const text = rawTexts.get(message);
  if (text === undefined) throw new Error('this message was not read by a probe client');
  return text;
}

/** The text of a tool result's content blocks, joined. */
export function textOf(answer: Message): string {
  const result = answer.result as { content?: Array<{ text?: string }> } | undefined;
  return (result?.content ?? []).map((block) => block.text ?? '').join('\n');
}

/** The artifact:// URIs a tool result links to (what the proxy stored of it). */
export function linksOf(answer: Message): string[] {
  const result = answer.result as { content?: Array<{ type?: string; uri?: string }> } | undefined;
  return (result?.content ?? []).filter((block) => block.type === 'resource_link').map((block) => block.uri!);
}
