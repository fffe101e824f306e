/**
 * A GET that reaches only the addresses an AddressPolicy lets through, for URLs an upstream names. The check is made
 * on the address the socket connects to (a `lookup` that refuses denied answers, so a name that resolves to a public
 * address for a check and to 127.0.0.1 for the connection gains nothing), and again at every redirect, each hop
 * being a request of its own. Headers given for the first URL (a bearer token) go to that origin only.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { IncomingMessage } from 'node:http';
import { isIP, type LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { http, https } from '../../wire/node-http.js';
import { deniedAddress, type AddressPolicy } from './address-policy.js';

const MAX_REDIRECTS = 5;

export interface GuardedGetOptions {
  headers: Record<string, string>;
  signal: AbortSignal;
  policy: AddressPolicy;
  /** Origins reached whatever their address (the ABP backend's app). */
  trustedOrigins?: ReadonlySet<string>;
}

/** The refusal of an address, as the download's error names it. */
export class DeniedAddressError extends Error {}

export async function guardedGet(first: URL, options: GuardedGetOptions): Promise<Response> {
  let url = first;
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new DeniedAddressError(`a redirect to ${url.protocol} (only http and https are fetched)`);
    // Headers of the first request follow no redirect to another origin: a token is its origin's.
    const headers = url.origin === first.origin ? options.headers : {};
    const response = await getOnce(url, headers, options);
    const location = response.headers.location;
    if (response.statusCode! >= 300 && response.statusCode! < 400 && location !== undefined) {
      response.resume();
      if (hop >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
      url = new URL(location, url);
      continue;
    }
    return asResponse(response);
  }
}

function getOnce(url: URL, headers: Record<string, string>, options: GuardedGetOptions): Promise<IncomingMessage> {
  const trusted = options.trustedOrigins?.has(url.origin) === true;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const allowedByName = trusted || options.policy.hosts.has(host.replace(/\.$/, ''));
  // An address in the URL is connected to without a lookup: checked here.
  if (!allowedByName && isIP(host) !== 0) {
    const why = deniedAddress(host, options.policy);
    if (why) return Promise.reject(new DeniedAddressError(why));
  }
  const request = url.protocol === 'https:' ? https().request : http.request;
  return new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(url, {
      method: 'GET',
      headers,
      signal: options.signal,
      agent: false,
      ...(allowedByName ? {} : { lookup: checkedLookup(options.policy) }),
    });
    req.on('response', resolve);
    req.on('error', reject);
    req.end();
  });
}

/** dns.lookup, failing when any address the name resolves to is denied (no answer is picked around a denied one). */
function checkedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      for (const { address } of addresses) {
        const why = deniedAddress(address, policy);
        if (why) return callback(new DeniedAddressError(`${hostname} resolves to ${why}`), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const [chosen] = addresses;
      if (!chosen)
        return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, chosen.address, chosen.family);
    });
  };
}

function asResponse(message: IncomingMessage): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(message.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const status = message.statusCode!;
  const body = status === 204 || status === 304 ? null : (Readable.toWeb(message) as ReadableStream<Uint8Array>);
  return new Response(body, { status, statusText: message.statusMessage, headers });
}
