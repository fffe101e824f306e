import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, LOG_LEVEL_KEY, PROTOCOL_VERSION_KEY } from '../protocol/envelope.js';
import type { Frame } from '../wire/frame.js';
import { isExactNumber, numbersAsDoubles } from '../wire/json.js';
import { requestParts, trimmed, type RequestParts } from './request-shape.js';
import { surelyLegacy } from './surely-legacy.js';

/** What the SDK's classification of a POST says: its era, or the rejection to answer it with. */
export type PostEra = { kind: 'legacy' } | { kind: 'modern' } | Extract<Classified, { kind: 'reject' }>;
type Classified = ReturnType<typeof classifyInboundRequest>;

/** The headers the classification reads, each as one text (repeated headers joined). */
export interface EraHeaders {
  protocolVersion?: string;
  mcpMethod?: string;
  mcpName?: string;
}

const LEGACY: PostEra = { kind: 'legacy' };
const MODERN: PostEra = { kind: 'modern' };
/** Envelopes remembered at most (a client sends the same one on every request; a hostile one only costs a check). */
const MAX_ENVELOPES = 256;
/** The longest envelope text remembered. */
const MAX_ENVELOPE_CHARS = 4096;

/**
 * Tells each POST's era as the SDK's `classifyInboundRequest` does, without running its zod checks for the POSTs
 * whose answer plain checks already know: a 2025 session's requests (`surelyLegacy`), and 2026-07-28 requests whose
 * envelope (client info, capabilities, log level) is one the SDK has already accepted here. A client sends the same
 * envelope on every request, so after its first one each is classified from plain checks and one `JSON.stringify` of
 * the envelope (the SDK's checks cost a small call 0.13 to 0.45 ms of CPU, measured). Everything else the SDK
 * classifies; test/unit/post-era.test.ts holds the two to the same answer.
 */
export class PostEras {
  /** Texts of envelopes the SDK accepted, as `modernEnvelopeText` writes them. */
  private readonly accepted = new Set<string>();

  of(frames: readonly Frame[], batch: boolean, headers: EraHeaders): PostEra {
    if (batch)
      return this.sdk(
        frames.map((f) => classifiable(f.message)),
        headers,
      );
    const message = frames[0]!.message;
    // Read once for both glances.
    const parts = requestParts(message);
    const version = trimmed(headers.protocolVersion);
    if (surelyLegacy(parts, version)) return LEGACY;
    const text = modernEnvelopeText(parts, version, trimmed(headers.mcpMethod));
    if (text !== undefined && this.accepted.has(text)) return MODERN;
    const era = this.sdk(classifiable(message), headers);
    // What the SDK accepted is remembered only for a body these checks read as a request with its claim: the SDK calls
    // such a body modern only once its envelope passed.
    if (era.kind === 'modern' && text !== undefined && text.length <= MAX_ENVELOPE_CHARS) {
      if (this.accepted.size >= MAX_ENVELOPES) this.accepted.clear();
      this.accepted.add(text);
    }
    return era;
  }

  private sdk(body: unknown, headers: EraHeaders): PostEra {
    const outcome = classifyInboundRequest({
      httpMethod: 'POST',
      ...optional('protocolVersionHeader', headers.protocolVersion),
      ...optional('mcpMethodHeader', headers.mcpMethod),
      ...optional('mcpNameHeader', headers.mcpName),
      body,
    });
    return outcome.kind === 'reject' ? outcome : outcome.kind === 'modern' ? MODERN : LEGACY;
  }
}

/**
 * The text of a request's envelope members the SDK's envelope schema checks (client info, capabilities, log level),
 * when the body's parts are those of a request these plain checks are sure of (not `initialize`, which the SDK treats
 * apart) with a version claim, and the (trimmed) headers agree with it as the SDK requires; else undefined.
 * Two envelopes of one text are one envelope to the schema: members keep their order, a number its text (and so its
 * double), and an absent member writes nothing where a null one writes `null`.
 */
function modernEnvelopeText(
  parts: RequestParts | undefined,
  versionHeader: string | undefined,
  methodHeader: string | undefined,
): string | undefined {
  if (parts === undefined || parts.method === 'initialize' || parts.meta === undefined) return undefined;
  const { meta, method } = parts;
  const version = meta[PROTOCOL_VERSION_KEY];
  if (typeof version !== 'string') return undefined;
  if (versionHeader !== undefined && versionHeader !== version) return undefined;
  if (methodHeader !== undefined && methodHeader !== method) return undefined;
  return JSON.stringify({ i: meta[CLIENT_INFO_KEY], c: meta[CLIENT_CAPABILITIES_KEY], l: meta[LOG_LEVEL_KEY] });
}

/**
 * A message as the SDK's classification reads it: numbers as doubles, and an id no double holds as 0 (the id does not
 * decide the era, and the SDK's schema refuses an integer past 2^53).
 */
function classifiable(message: Frame['message']): unknown {
  const plain = numbersAsDoubles(message) as Record<string, unknown>;
  return isExactNumber(message.id) ? { ...plain, id: 0 } : plain;
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}
