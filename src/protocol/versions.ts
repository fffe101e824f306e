/** The first revision of the modern era (`server/discover`, per-request envelopes, no `initialize`). */
export const FIRST_MODERN_PROTOCOL_VERSION = '2026-07-28';

/** Whether a version names a revision of the modern era: the first one or a later one (the SDK's own rule). */
export function isModernVersion(version: string): boolean {
  return version >= FIRST_MODERN_PROTOCOL_VERSION;
}

/**
 * The modern-era revisions the proxy speaks to upstreams, newest first. The SDK keeps its own list internal
 * (its exported SUPPORTED_PROTOCOL_VERSIONS is the legacy era's), so the revision it implements is named here.
 */
export const MODERN_PROTOCOL_VERSIONS: string[] = [FIRST_MODERN_PROTOCOL_VERSION];

/**
 * The protocol versions of the legacy era (2025-11-25 and older), newest first: what the proxy offers in
 * `initialize`, on both sides. The SDK's SUPPORTED_PROTOCOL_VERSIONS, written out so that starting the proxy does not
 * load the SDK (test/unit/sdk-contract.test.ts holds the two equal, so an SDK upgrade that changes the list fails
 * there).
 */
export const LEGACY_PROTOCOL_VERSIONS: string[] = [
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
];

/** Which family of revisions a connection speaks (the SDK's `ProtocolEra`). */
export type ProtocolEra = 'modern' | 'legacy';

/** Every version a downstream Server lists: the modern ones, and the legacy ones it negotiates in `initialize`. */
export const SERVED_PROTOCOL_VERSIONS: string[] = [...MODERN_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS];

export function isLegacyVersion(version: string | undefined): boolean {
  return version !== undefined && LEGACY_PROTOCOL_VERSIONS.includes(version);
}
