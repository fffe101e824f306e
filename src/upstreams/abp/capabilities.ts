/**
 * Capability lists as the runtime reports them, made safe to use (missing fields absent, malformed entries
 * dropped), merged with the manifest, and the binary check the MCP side applies before the guard's outputs.
 */
import { findAbpPayloads } from '../../pipeline/detect/abp-shapes.js';
import type { Logger } from '../../logger.js';
import type { AbpAppInfo, AbpCapability, AbpManifest } from './types.js';
import type { InitializeResult } from './runtime.js';
import { isPlainObject } from '../../config/pointer.js';

/** `listCapabilities()`'s answer (a plain array; `{capabilities: [...]}` tolerated) as AbpCapability[]. */
export function normalizeCapabilities(raw: unknown, logger: Logger): AbpCapability[] {
  const list = Array.isArray(raw)
    ? raw
    : isPlainObject(raw) && Array.isArray(raw.capabilities)
      ? raw.capabilities
      : undefined;
  if (!list)
    throw new Error(
      `listCapabilities() did not answer an array of capabilities: ${JSON.stringify(raw)?.slice(0, 200)}`,
    );
  const out: AbpCapability[] = [];
  for (const entry of list) {
    if (!isPlainObject(entry) || typeof entry.name !== 'string' || entry.name === '') {
      logger.warn({ entry }, 'listCapabilities() returned an entry without a name; ignored');
      continue;
    }
    const capability: AbpCapability = { name: entry.name };
    if (typeof entry.description === 'string') capability.description = entry.description;
    if (isPlainObject(entry.inputSchema)) capability.inputSchema = entry.inputSchema;
    if (isPlainObject(entry.outputSchema)) capability.outputSchema = entry.outputSchema;
    if (typeof entry.available === 'boolean') capability.available = entry.available;
    if (typeof entry.experimental === 'boolean') capability.experimental = entry.experimental;
    if (typeof entry.deprecated === 'boolean') capability.deprecated = entry.deprecated;
    if (entry.requirements !== undefined && entry.requirements !== null) capability.requirements = entry.requirements;
    out.push(capability);
  }
  return out;
}

/**
 * Manifest and runtime merged: a runtime entry's fields win over the manifest's (fields it lacks, such as a
 * schema, are kept from the manifest), runtime-only entries are added. A manifest entry the runtime does not
 * confirm is kept but marked `available: false` (the protocol: capabilities must be confirmed at runtime).
 */
export function mergeCapabilities(manifest: AbpCapability[], runtime: AbpCapability[]): AbpCapability[] {
  const byName = new Map(runtime.map((c) => [c.name, c]));
  const merged = manifest.map((m) => {
    const r = byName.get(m.name);
    byName.delete(m.name);
    return r ? { ...m, ...r } : { ...m, available: false };
  });
  return [...merged, ...runtime.filter((c) => byName.has(c.name))];
}

function appInfo(value: unknown): AbpAppInfo | undefined {
  if (
    !isPlainObject(value) ||
    typeof value.id !== 'string' ||
    typeof value.name !== 'string' ||
    typeof value.version !== 'string'
  ) {
    return undefined;
  }
  const app: AbpAppInfo = { id: value.id, name: value.name, version: value.version };
  for (const key of ['description', 'homepage', 'icon', 'support'] as const) {
    if (typeof value[key] === 'string') app[key] = value[key];
  }
  return app;
}

/** The app as the runtime describes it, else as the fallback (the manifest, or the extension's manifest.json). */
export function runtimeApp(init: InitializeResult, fallback: AbpAppInfo): AbpAppInfo {
  return appInfo(init.app) ?? fallback;
}

/** Extensions have no manifest URL: the manifest is built from `initialize` and `listCapabilities`. */
export function synthesizeManifest(
  init: InitializeResult,
  runtime: AbpCapability[],
  fallback: AbpAppInfo,
): AbpManifest {
  const abp = typeof init.protocolVersion === 'string' ? init.protocolVersion : '0.1';
  return { abp, app: runtimeApp(init, fallback), capabilities: runtime };
}

/**
 * Whether an ABP response's `data` holds BinaryData or a BinaryDataReference at the top level or one level
 * down (the data-flow document's rule): when it does, the guard's intercepted outputs are not used.
 */
export function hasBinaryData(data: unknown): boolean {
  return findAbpPayloads(data, 1).length > 0;
}
