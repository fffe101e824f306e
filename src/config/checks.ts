/**
 * Checks the schema cannot express readably: which servers key is used, command vs url vs `type: abp`,
 * `type` agreeing with the rest, aliases given twice, restart delays in order. They run on data that may
 * also have failed the schema, so every access is guarded.
 */
import type { RawProblem } from './ajv-messages.js';
import { hasOwn, isPlainObject, joinPointer } from './pointer.js';
import { DEFAULTS } from './types.js';
import picomatch from 'picomatch';
import { closestKey } from './suggest.js';
import { abpEnvironment } from './abp.js';
import { checkDownloadAllow } from './download-allow.js';

export interface CheckOptions {
  allowNoServers: boolean;
  /** Servers the command line adds to the file's (`--abp` adds "browser"), for rules that name them. */
  extraServers?: readonly string[];
}

type Report = (problem: RawProblem) => void;

const TRANSPORT_OF_TYPE: Record<string, string> = {
  http: 'streamable-http',
  'streamable-http': 'streamable-http',
  sse: 'sse',
};
const LOCAL_ONLY_KEYS = ['args', 'env', 'cwd', 'isolation', 'probeTimeoutMs', 'exitGraceMs'];
const REMOTE_ONLY_KEYS = ['headers', 'transport', 'oauth'];

/** Which of `servers` / `mcpServers` holds the servers (`servers` when neither is given). */
export function serverMapKey(root: Record<string, unknown>): 'servers' | 'mcpServers' {
  return hasOwn(root, 'mcpServers') && !hasOwn(root, 'servers') ? 'mcpServers' : 'servers';
}

export function checkConfig(root: unknown, options: CheckOptions, report: Report): void {
  if (!isPlainObject(root)) return; // the schema reports the wrong type
  if (hasOwn(root, 'servers') && hasOwn(root, 'mcpServers')) {
    report({ pointer: '/mcpServers', anchor: 'key', message: 'both "servers" and "mcpServers" are given; use one' });
  }
  const mapKey = serverMapKey(root);
  const servers = root[mapKey];
  if (servers !== undefined && servers !== null && !isPlainObject(servers)) return;
  const entries = Object.entries(servers ?? {});
  if (entries.length === 0 && !options.allowNoServers) {
    report({ pointer: hasOwn(root, mapKey) ? `/${mapKey}` : '', anchor: 'key', message: 'no servers configured' });
  }
  const defaults = isPlainObject(root.defaults) ? root.defaults : {};
  for (const [name, server] of entries) {
    if (isPlainObject(server)) checkServer(name, server, joinPointer(`/${mapKey}`, name), defaults, report);
  }
  const names = [...entries.map(([name]) => name), ...(options.extraServers ?? [])];
  checkRuleServers(root.rules, names, report);
  checkDownloadAllow(root, mapKey, report);
  checkArtifactBackend(root.artifacts, report);
  checkViewer(root.artifacts, names, report);
}

/**
 * The viewer's tool takes a name of its own (two built-in tools of one name would hide one), and each glob of
 * `linkTools` names a configured server, as a rule's `server` must.
 */
function checkViewer(artifacts: unknown, servers: readonly string[], report: Report): void {
  if (!isPlainObject(artifacts)) return;
  const viewer = isPlainObject(artifacts.viewer) ? artifacts.viewer : {};
  const tools = isPlainObject(artifacts.tools) ? artifacts.tools : {};
  const name = typeof viewer.toolName === 'string' ? viewer.toolName : DEFAULTS.artifacts.viewer.toolName;
  const clash = (['listName', 'readName'] as const).find(
    (key) => (typeof tools[key] === 'string' ? tools[key] : DEFAULTS.artifacts.tools[key]) === name,
  );
  if (clash && viewer.enabled !== false && tools.enabled !== false) {
    // Reported where the clashing name is written: the viewer's, else the built-in tool's.
    const [pointer, given] = hasOwn(viewer, 'toolName')
      ? ['/artifacts/viewer/toolName', true]
      : [`/artifacts/tools/${clash}`, hasOwn(tools, clash)];
    report({
      pointer: given ? pointer : '/artifacts',
      anchor: given ? 'value' : 'key',
      message: `the viewer's tool is named ${JSON.stringify(name)}, as a built-in artifact tool is: give it another name`,
    });
  }
  if (!Array.isArray(viewer.linkTools)) return;
  viewer.linkTools.forEach((glob, index) => {
    if (typeof glob !== 'string' || !glob.includes('/')) return; // the schema reports it
    const server = glob.slice(0, glob.indexOf('/'));
    const matches = picomatch(server);
    if (servers.some((s) => matches(s))) return;
    const meant = picomatch.scan(server).isGlob ? undefined : closestKey(server, servers);
    const known = servers.length ? servers.map((s) => `"${s}"`).join(', ') : 'none';
    report({
      pointer: `/artifacts/viewer/linkTools/${index}`,
      anchor: 'value',
      message:
        `linkTools: ${JSON.stringify(glob)} names no configured server` +
        (meant ? ` (did you mean "${meant}/${glob.slice(server.length + 1)}"?)` : ` (the servers are ${known})`),
    });
  });
}

/** A presigned URL outlives nothing: SigV4 caps it at seven days. */
const MAX_PRESIGNED_SECONDS = 604_800;

/** backend, s3 and links.via must agree: a bucket named but unused, or presigned links without one, is a mistake. */
function checkArtifactBackend(artifacts: unknown, report: Report): void {
  if (!isPlainObject(artifacts)) return;
  const s3 = artifacts.backend === 's3';
  if (s3 && !hasOwn(artifacts, 's3'))
    report({
      pointer: '/artifacts/backend',
      anchor: 'value',
      message: 'backend s3 needs artifacts.s3 with at least a bucket',
    });
  if (!s3 && hasOwn(artifacts, 's3'))
    report({
      pointer: '/artifacts/s3',
      anchor: 'key',
      message: 'artifacts.s3 is set but artifacts are kept locally: add "backend: s3" next to it, or remove it',
    });
  if (isPlainObject(artifacts.s3) && hasOwn(artifacts.s3, 'accessKeyId') !== hasOwn(artifacts.s3, 'secretAccessKey')) {
    const given = hasOwn(artifacts.s3, 'accessKeyId') ? 'accessKeyId' : 'secretAccessKey';
    report({
      pointer: `/artifacts/s3/${given}`,
      anchor: 'key',
      message: 'give accessKeyId and secretAccessKey together, or neither to use the AWS default credential chain',
    });
  }
  const links = isPlainObject(artifacts.links) ? artifacts.links : undefined;
  if (links?.via !== 'presigned') return;
  if (!s3)
    report({
      pointer: '/artifacts/links/via',
      anchor: 'value',
      message: 'presigned links need backend s3: local files have no presigned URL',
    });
  if (typeof links.ttlSeconds === 'number' && links.ttlSeconds > MAX_PRESIGNED_SECONDS)
    report({
      pointer: '/artifacts/links/ttlSeconds',
      anchor: 'value',
      message: `presigned URLs last at most ${MAX_PRESIGNED_SECONDS} seconds (7 days); got ${links.ttlSeconds}`,
    });
}

/** A rule whose `server` matches no server is a typo or a leftover: it would silently never apply. */
function checkRuleServers(rules: unknown, servers: readonly string[], report: Report): void {
  if (!Array.isArray(rules)) return;
  rules.forEach((rule, index) => {
    if (!isPlainObject(rule) || typeof rule.server !== 'string' || rule.server === '') return;
    const glob = rule.server;
    const matches = picomatch(glob);
    if (servers.some((name) => matches(name))) return;
    const literal = !picomatch.scan(glob).isGlob;
    const meant = literal ? closestKey(glob, servers) : undefined;
    const known = servers.length ? servers.map((s) => `"${s}"`).join(', ') : 'none';
    report({
      pointer: `/rules/${index}/server`,
      anchor: 'value',
      message:
        `rule ${index + 1}: server ${JSON.stringify(glob)} matches no configured server` +
        (meant ? ` (did you mean "${meant}"?)` : ` (the servers are ${known})`),
    });
  });
}

function checkServer(
  name: string,
  server: Record<string, unknown>,
  pointer: string,
  defaults: Record<string, unknown>,
  report: Report,
): void {
  const at = (key: string, anchor: RawProblem['anchor'], message: string) =>
    report({ pointer: key ? joinPointer(pointer, key) : pointer, anchor, message });
  const hasCommand = hasOwn(server, 'command');
  const hasUrl = hasOwn(server, 'url');
  const type = typeof server.type === 'string' ? server.type : undefined;
  const typeTransport = type === undefined ? undefined : TRANSPORT_OF_TYPE[type];

  if (type === 'abp') {
    for (const key of ['command', 'url', ...LOCAL_ONLY_KEYS, ...REMOTE_ONLY_KEYS]) {
      if (hasOwn(server, key))
        at(key, 'key', `"${key}" does not apply to the built-in browser backend ("type: abp") of server "${name}"`);
    }
  } else if (hasCommand && hasUrl) {
    at('', 'key', `server "${name}" has both "command" and "url"; use one`);
  } else if (!hasCommand && !hasUrl) {
    if (type === 'stdio') at('', 'key', `server "${name}" has "type: stdio" but no "command"`);
    else if (typeTransport) at('', 'key', `server "${name}" has "type: ${type}" but no "url"`);
    else at('', 'key', `server "${name}" needs either "command" (a local process) or "url" (a remote server)`);
  } else if (hasUrl) {
    if (type === 'stdio') at('type', 'value', `"type: stdio" means a local process, but server "${name}" has a "url"`);
    for (const key of LOCAL_ONLY_KEYS) {
      if (hasOwn(server, key))
        at(key, 'key', `"${key}" applies only to a local process ("command"), but server "${name}" has a "url"`);
    }
    checkUrl(server.url, (message) => at('url', 'value', message));
  } else {
    if (typeTransport)
      at('type', 'value', `"type: ${type}" means a remote server, but server "${name}" has a "command"`);
    for (const key of REMOTE_ONLY_KEYS) {
      if (hasOwn(server, key))
        at(key, 'key', `"${key}" applies only to a remote server ("url"), but server "${name}" has a "command"`);
    }
  }
  if (typeTransport && typeof server.transport === 'string' && server.transport !== typeTransport) {
    at('transport', 'value', `"transport: ${server.transport}" contradicts "type: ${type}"; give one of them`);
  }
  if (hasOwn(server, 'abp') && type !== 'abp') {
    at(
      'abp',
      'key',
      `"abp" settings apply only to the built-in browser backend; add "type: abp" to server "${name}" or remove them`,
    );
  }
  const storeUrl = isPlainObject(server.abp) ? server.abp.extensionStoreUrl : undefined;
  if (typeof storeUrl === 'string' && /^https?:\/\//i.test(storeUrl) && !storeUrl.includes('{id}')) {
    report({
      pointer: joinPointer(joinPointer(pointer, 'abp'), 'extensionStoreUrl'),
      anchor: 'value',
      message: '"extensionStoreUrl" must contain {id}, where the extension\'s id goes',
    });
  }
  if (hasOwn(server, 'enabled') && hasOwn(server, 'disabled')) {
    at('disabled', 'key', `server "${name}" has both "enabled" and "disabled"; use one`);
  }
  if (server.prefix === true) {
    at('prefix', 'value', '"prefix: true" has no meaning; give the prefix itself, or false for none');
  }
  checkRestart(server, pointer, defaults, report);
}

function checkUrl(url: unknown, report: (message: string) => void): void {
  if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) return; // the schema reports it
  try {
    new URL(url);
  } catch {
    report(`"url" is not a valid URL: ${JSON.stringify(url)}`);
  }
}

/**
 * The delay between restarts grows from initialDelayMs to maxDelayMs. When only initialDelayMs is
 * raised above the default maximum, normalization raises the maximum with it; two explicit values in
 * the wrong order are an error.
 */
function checkRestart(
  server: Record<string, unknown>,
  pointer: string,
  defaults: Record<string, unknown>,
  report: Report,
): void {
  const own = isPlainObject(server.restart) ? server.restart : {};
  const inherited = isPlainObject(defaults.restart) ? defaults.restart : {};
  const initial = own.initialDelayMs ?? inherited.initialDelayMs ?? DEFAULTS.restart.initialDelayMs;
  const max = own.maxDelayMs ?? inherited.maxDelayMs;
  if (!Number.isInteger(initial) || !Number.isInteger(max) || (max as number) >= (initial as number)) return;
  const initialIsDefault = own.initialDelayMs === undefined && inherited.initialDelayMs === undefined;
  const maxPointer = hasOwn(own, 'maxDelayMs') ? joinPointer(pointer, 'restart') : '/defaults/restart';
  report({
    pointer: joinPointer(maxPointer, 'maxDelayMs'),
    anchor: 'value',
    message: `"maxDelayMs" (${String(max)}) must be at least "initialDelayMs" (${String(initial)}${initialIsDefault ? ', the default' : ''})`,
  });
}

/**
 * The ABP bridge's environment variables are defaults of every `type: abp` server; one set to something
 * unusable is reported at the first such server (nothing to report without one).
 */
export function checkAbpEnvironment(root: unknown, env: NodeJS.ProcessEnv, report: Report): void {
  if (!isPlainObject(root)) return;
  const mapKey = serverMapKey(root);
  const servers = isPlainObject(root[mapKey]) ? root[mapKey] : {};
  const first = Object.entries(servers).find(([, server]) => isPlainObject(server) && server.type === 'abp');
  if (!first) return;
  for (const message of abpEnvironment(env).problems) {
    report({
      pointer: joinPointer(joinPointer(`/${mapKey}`, first[0]), 'type'),
      anchor: 'value',
      message: `${message} (the environment of server "${first[0]}")`,
    });
  }
}
