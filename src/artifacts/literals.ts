import { encodePayload, likelyEncoding, PAYLOAD_ENCODINGS, type PayloadEncoding } from '../codec/base64.js';

/**
 * How a payload was written where the proxy replaced it in place (a `data:` URI in a text, a base64 string
 * in JSON text), so the exact literal can be put back when the text comes back in a tool call. Most
 * literals are the artifact's bytes in a standard encoding between a fixed head and tail: that is all
 * that is kept. Any other is kept whole beside the artifact (a "sidecar"), so every literal is restored
 * byte for byte.
 */
export type LiteralKind = 'data-uri' | 'json-string';

export type LiteralForm =
  /** `before` + the bytes in `encoding` + `after`. */
  | { before: string; encoding: PayloadEncoding; after: string }
  /** Kept whole: the sha256 of the literal's UTF-8 bytes, the name of its sidecar. */
  | { sidecar: string };

/**
 * The form of `literal`, whose payload is the text from `start` to `end`, for these bytes; undefined when
 * no standard encoding gives it back exactly (the literal must then be kept whole). The guess comes from
 * the payload's last characters, so only one encoding is tried on a long payload.
 */
export function formOf(literal: string, start: number, end: number, bytes: Buffer): LiteralForm | undefined {
  const payload = literal.slice(start, end);
  for (const encoding of likelyEncodings(payload)) {
    if (encodePayload(bytes, encoding) === payload) return formIn(literal, start, end, encoding);
  }
  return undefined;
}

/** The form of `literal` whose payload, from `start` to `end`, is known to be written in `encoding` exactly. */
export function formIn(literal: string, start: number, end: number, encoding: PayloadEncoding): LiteralForm {
  return { before: literal.slice(0, start), encoding, after: literal.slice(end) };
}

function likelyEncodings(payload: string): PayloadEncoding[] {
  return [likelyEncoding(payload), 'utf8'];
}

/** The literal a form stands for, from the artifact's bytes (a sidecar's text is read by the caller). */
export function rebuildLiteral(form: Exclude<LiteralForm, { sidecar: string }>, bytes: Buffer): string {
  return form.before + encodePayload(bytes, form.encoding) + form.after;
}

export function sameForm(a: LiteralForm, b: LiteralForm): boolean {
  if ('sidecar' in a || 'sidecar' in b) return 'sidecar' in a && 'sidecar' in b && a.sidecar === b.sidecar;
  return a.before === b.before && a.encoding === b.encoding && a.after === b.after;
}

/** The forms of a record as read from disk, checked: metadata files are input like any other. */
export function parseLiterals(raw: unknown): Partial<Record<LiteralKind, LiteralForm[]>> | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const out: Partial<Record<LiteralKind, LiteralForm[]>> = {};
  for (const kind of ['data-uri', 'json-string'] as const) {
    const list = (raw as Record<string, unknown>)[kind];
    if (!Array.isArray(list)) continue;
    const forms = list.filter(isForm);
    if (forms.length === list.length && forms.length) out[kind] = forms;
  }
  return Object.keys(out).length ? out : undefined;
}

function isForm(value: unknown): value is LiteralForm {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  if (typeof v.sidecar === 'string') return /^[0-9a-f]{64}$/.test(v.sidecar);
  return (
    typeof v.before === 'string' &&
    typeof v.after === 'string' &&
    PAYLOAD_ENCODINGS.includes(v.encoding as PayloadEncoding)
  );
}
