import { ARTIFACT_URI_PREFIX } from '../artifacts/metadata.js';
import type { LiteralKind } from '../artifacts/literals.js';
import { isMintedId } from '../artifacts/names.js';
import type { ArtifactStore } from '../artifacts/store.js';
import type { ArtifactRecord } from '../artifacts/types.js';
import { jsonText } from '../wire/json.js';
import { findReferences } from './json-locate.js';
import { isReference } from './reference.js';

/**
 * The way back for what the pipeline replaced in place. A text the model read had its `data:` URIs
 * shown as `artifact://` URIs and its JSON payloads as `{"$artifact": …}` references; when such a text
 * (edited or not) comes back in a tool call, the exact literal each stood for is put back, byte for
 * byte, before the call goes upstream. Only the session's own artifacts count, and only the kinds of
 * replacement recorded for them (store.addLiteral): an `artifact://` URI the model cites on purpose,
 * say of a stored image, is left as it is.
 *
 * Which URIs are stand-ins is decided by their shape: only one the proxy could have handed out
 * (`artifact://<server>/<tool>_<hash>.<ext>`, names.ts isMintedId), whole or inside a longer text, is
 * looked up, and stops the call when the owner has no such artifact (it expired, or was never theirs).
 * Any other `artifact://` URI (prose about artifact URIs, `see artifact://nothing/x.png`) is text the
 * proxy did not write, and goes upstream byte for byte.
 */
export interface Restored {
  args: Record<string, unknown> | undefined;
  /** How many literals were put back. */
  restored: number;
}

/** Why a call must not go upstream: a stand-in whose literal is no longer known would be written as is. */
export class UnrestorableArgument extends Error {}

// An id ends in its extension, so a sentence's full stop after a URI is not part of it.
const URI = /artifact:\/\/[A-Za-z0-9._~/-]*[A-Za-z0-9](?:#\d+)?/g;

/** Whether the arguments may hold an artifact URI (or a reference carrying one): false means nothing to restore. */
export function mayHoldArtifactUris(args: Record<string, unknown> | undefined): boolean {
  return args !== undefined && jsonText(args).includes(ARTIFACT_URI_PREFIX);
}

export async function restoreArguments(
  args: Record<string, unknown> | undefined,
  store: ArtifactStore,
  owner: string,
): Promise<Restored> {
  if (!mayHoldArtifactUris(args)) return { args, restored: 0 };
  const restorer = new Restorer(store, owner);
  const restoredArgs = (await restorer.value(args)) as Record<string, unknown>;
  return { args: restorer.count ? restoredArgs : args, restored: restorer.count };
}

class Restorer {
  count = 0;

  constructor(
    private readonly store: ArtifactStore,
    private readonly owner: string,
  ) {}

  async value(node: unknown): Promise<unknown> {
    if (typeof node === 'string') return node.includes(ARTIFACT_URI_PREFIX) ? this.text(node) : node;
    if (typeof node !== 'object' || node === null) return node;
    if (isReference(node)) {
      const literal = await this.literal(node.$artifact, 'json-string');
      if (literal !== undefined) {
        this.count++;
        return JSON.parse(literal) as unknown;
      }
    }
    if (Array.isArray(node)) return Promise.all(node.map((item) => this.value(item)));
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) out[key] = await this.value(value);
    return out;
  }

  /** A string: references in JSON text first (their URIs are inside them), then URIs standing for `data:` URIs. */
  private async text(text: string): Promise<string> {
    let out = text;
    if (out.includes('"$artifact"')) {
      for (const found of (await findReferences(out)).reverse()) {
        const literal = await this.literal(found.uri, 'json-string');
        if (literal === undefined) continue;
        out = out.slice(0, found.start) + literal + out.slice(found.end);
        this.count++;
      }
    }
    const matches = [...out.matchAll(URI)];
    for (const match of matches.reverse()) {
      const literal = await this.literal(match[0], 'data-uri');
      if (literal === undefined) continue;
      out = out.slice(0, match.index) + literal + out.slice(match.index + match[0].length);
      this.count++;
    }
    return out;
  }

  /**
   * The literal a URI stands for as a replacement of this kind; undefined when the artifact was never
   * one (a URI cited on purpose) or the URI is not of the proxy's form. An artifact of the session that
   * is gone, or whose literal cannot be read, stops the call: sent on, the stand-in would be written
   * where the payload was.
   */
  private async literal(uri: string, kind: LiteralKind): Promise<string | undefined> {
    const hash = uri.indexOf('#');
    const n = hash === -1 ? 1 : Number(uri.slice(hash + 1));
    const bare = hash === -1 ? uri : uri.slice(0, hash);
    // Not a name the proxy gives: no artifact goes by it, and the text is someone's own.
    if (!bare.startsWith(ARTIFACT_URI_PREFIX) || !isMintedId(bare.slice(ARTIFACT_URI_PREFIX.length))) return undefined;
    const record = await this.store.find(bare, this.owner);
    if (!record || !record.owners.includes(this.owner)) {
      throw new UnrestorableArgument(
        `the arguments hold ${uri}, which mcp-offload does not hold for this client (expired, removed, or never given to it), so what it ` +
          'stood for cannot be put back; the call was not sent. Read the original again to get a fresh copy.',
      );
    }
    if (!record.literals?.[kind]) return undefined;
    return this.read(record, kind, n, uri);
  }

  private async read(record: ArtifactRecord, kind: LiteralKind, n: number, uri: string): Promise<string> {
    let literal: string | undefined;
    try {
      literal = await this.store.literal(record, kind, n);
    } catch (error) {
      throw new UnrestorableArgument(
        `${uri} could not be put back (${error instanceof Error ? error.message : String(error)}); the call was not sent.`,
      );
    }
    if (literal === undefined)
      throw new UnrestorableArgument(`${uri} names no payload mcp-offload replaced; the call was not sent.`);
    return literal;
  }
}
