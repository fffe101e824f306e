import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';

/** The first revision of the modern era (`server/discover`, per-request envelopes, no `initialize`). */
const FIRST_MODERN_PROTOCOL_VERSION = '2026-07-28';

/**
 * The protocol versions the proxy speaks, on both sides: the legacy era (2025-11-25 and older),
 * newest first. SDK v2 can also negotiate the modern era; a relay must not, until it forwards that
 * era's requests faithfully, so both the client and the server sides are pinned to this list.
 */
export const LEGACY_PROTOCOL_VERSIONS: string[] = SUPPORTED_PROTOCOL_VERSIONS.filter(
  (version) => version < FIRST_MODERN_PROTOCOL_VERSION,
);
