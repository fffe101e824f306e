/**
 * `pipeline.download.allow`: the host names, addresses and CIDR ranges BinaryDataReference downloads may reach
 * although internal (src/pipeline/detect/address-policy.ts). Each entry is read here, for the config check (an
 * entry that is none of them is an error at its line) and for the policy alike.
 */
import { isIP } from 'node:net';
import type { RawProblem } from './ajv-messages.js';
import { isPlainObject } from './pointer.js';

export type AllowEntry = { host: string } | { network: string; prefix: number; family: 'ipv4' | 'ipv6' };

const HOST_NAME = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?$/i;

/** One entry, or why it is none. */
export function parseAllowEntry(entry: string): AllowEntry | string {
  const parts = entry.trim().split('/');
  if (parts.length > 2) return `"${entry}" is neither a host name, an address nor a CIDR range`;
  const [network, prefixText] = parts;
  const bare = network.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(bare);
  if (family === 0) {
    if (prefixText !== undefined) return `"${entry}" is not a CIDR range: "${network}" is no IP address`;
    return HOST_NAME.test(bare)
      ? { host: bare.toLowerCase().replace(/\.$/, '') }
      : `"${entry}" is neither a host name, an address nor a CIDR range`;
  }
  const max = family === 4 ? 32 : 128;
  if (prefixText !== undefined && (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > max))
    return `"${entry}": the prefix length must be a whole number from 0 to ${max}`;
  return {
    network: bare,
    prefix: prefixText === undefined ? max : Number(prefixText),
    family: family === 4 ? 'ipv4' : 'ipv6',
  };
}

/** Every `download.allow` entry of the config: the global pipeline, each server's, each rule's. */
export function checkDownloadAllow(
  root: Record<string, unknown>,
  mapKey: string,
  report: (p: RawProblem) => void,
): void {
  const check = (download: unknown, pointer: string) => {
    if (!isPlainObject(download) || !Array.isArray(download.allow)) return;
    download.allow.forEach((entry, index) => {
      if (typeof entry !== 'string') return; // the schema reports it
      const parsed = parseAllowEntry(entry);
      if (typeof parsed === 'string')
        report({ pointer: `${pointer}/allow/${index}`, anchor: 'value', message: `download.allow: ${parsed}` });
    });
  };
  if (isPlainObject(root.pipeline)) check(root.pipeline.download, '/pipeline/download');
  const servers = root[mapKey];
  if (isPlainObject(servers))
    for (const [name, server] of Object.entries(servers))
      if (isPlainObject(server) && isPlainObject(server.pipeline))
        check(
          server.pipeline.download,
          `/${mapKey}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}/pipeline/download`,
        );
  if (Array.isArray(root.rules))
    root.rules.forEach((rule, index) => isPlainObject(rule) && check(rule.download, `/rules/${index}/download`));
}
