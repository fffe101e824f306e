/**
 * Which addresses a BinaryDataReference download may reach. The URL comes from an upstream, so without a rule a
 * server could make the proxy fetch what only the proxy's network can see (a metadata service, an admin port on
 * loopback) and read it back as an artifact. Denied by default: every address that is not public unicast. An
 * operator lets some through with `pipeline.download.allow`: host names, addresses and CIDR ranges.
 */
import { BlockList, isIP } from 'node:net';
import { parseAllowEntry } from '../../config/download-allow.js';

/** [network, prefix length, family] of what no download reaches unless allowed. */
const DENIED: Array<[string, number, 'ipv4' | 'ipv6']> = [
  ['0.0.0.0', 8, 'ipv4'], // "this network"; 0.0.0.0 reaches loopback
  ['10.0.0.0', 8, 'ipv4'], // RFC 1918
  ['100.64.0.0', 10, 'ipv4'], // CGNAT, RFC 6598
  ['127.0.0.0', 8, 'ipv4'], // loopback
  ['169.254.0.0', 16, 'ipv4'], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12, 'ipv4'], // RFC 1918
  ['192.0.0.0', 24, 'ipv4'], // IETF protocol assignments
  ['192.168.0.0', 16, 'ipv4'], // RFC 1918
  ['198.18.0.0', 15, 'ipv4'], // benchmarking
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved, broadcast
  ['::', 128, 'ipv6'], // unspecified
  ['::1', 128, 'ipv6'], // loopback
  ['fc00::', 7, 'ipv6'], // unique local (ULA)
  ['fe80::', 10, 'ipv6'], // link-local
  ['fec0::', 10, 'ipv6'], // site-local (deprecated, still routed by some)
  ['ff00::', 8, 'ipv6'], // multicast
];

const denied = new BlockList();
for (const [network, prefix, family] of DENIED) denied.addSubnet(network, prefix, family);

/** IPv6 forms that carry an IPv4 address: checked as that address (`::ffff:127.0.0.1` is loopback). */
const EMBEDDED_V4 = [
  /^::ffff:(?:0:)?([\d.]+)$/i, // IPv4-mapped, IPv4-translated
  /^::([\d.]+)$/, // IPv4-compatible (deprecated)
  /^64:ff9b::([\d.]+)$/i, // NAT64
];

/** The IPv4 address inside an IPv6 one, in dotted form, when it carries one. */
function embeddedV4(address: string): string | undefined {
  const normalized = normalizeV6(address);
  for (const form of EMBEDDED_V4) {
    const v4 = form.exec(normalized)?.[1];
    if (v4 !== undefined && isIP(v4) === 4) return v4;
  }
  return undefined;
}

/** `::ffff:7f00:1` → `::ffff:127.0.0.1`: the hex tail of an embedding form, written as IPv4. */
function normalizeV6(address: string): string {
  const hex = /^(.*:)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex || !/^(::ffff:(0:)?|::|64:ff9b::)$/i.test(hex[1])) return address;
  const high = parseInt(hex[2], 16);
  const low = parseInt(hex[3], 16);
  return `${hex[1]}${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

export interface AddressPolicy {
  /** Host names (lower case) allowed whatever they resolve to. */
  hosts: Set<string>;
  /** Addresses and ranges allowed although denied above. */
  addresses: BlockList;
}

/** The policy of a `pipeline.download.allow` list (entries the config check let through). */
export function addressPolicy(allow: readonly string[]): AddressPolicy {
  const policy: AddressPolicy = { hosts: new Set(), addresses: new BlockList() };
  for (const entry of allow) {
    const parsed = parseAllowEntry(entry);
    if (typeof parsed === 'string') continue;
    if ('host' in parsed) policy.hosts.add(parsed.host);
    else policy.addresses.addSubnet(parsed.network, parsed.prefix, parsed.family);
  }
  return policy;
}

/**
 * Why a download may not connect to `address` (an IP address, as resolved), or undefined when it may: its range
 * by name, for the error the model reads.
 */
export function deniedAddress(address: string, policy: AddressPolicy): string | undefined {
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(bare);
  if (family === 0) return `${address} is not an IP address`;
  const v4 = family === 6 ? embeddedV4(bare) : undefined;
  const [checked, type] =
    v4 !== undefined ? [v4, 'ipv4' as const] : [bare, family === 4 ? ('ipv4' as const) : ('ipv6' as const)];
  if (policy.addresses.check(bare, family === 4 ? 'ipv4' : 'ipv6') || policy.addresses.check(checked, type))
    return undefined;
  if (!denied.check(checked, type)) return undefined;
  return `${address} is a loopback, private, link-local or otherwise internal address`;
}
