import { Codes, RpcError } from '../rpc/errors.js';
import { quoted } from './param-text.js';

/**
 * Serves a list in pages. The cursor is opaque to clients: an offset into the merged list, so it
 * works across upstreams whatever their own cursors look like.
 */
export function page<T>(items: readonly T[], cursor: unknown, pageSize: number): { items: T[]; nextCursor?: string } {
  const offset = cursor === undefined ? 0 : decode(cursor);
  const end = offset + pageSize;
  return {
    items: items.slice(offset, end),
    ...(end < items.length ? { nextCursor: encode(end) } : {}),
  };
}

function encode(offset: number): string {
  return Buffer.from(`o:${offset}`).toString('base64url');
}

function decode(cursor: unknown): number {
  if (typeof cursor === 'string') {
    const match = /^o:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (match) return Number(match[1]);
  }
  throw new RpcError(Codes.InvalidParams, `invalid cursor: ${quoted(JSON.stringify(cursor) ?? String(cursor))}`);
}
