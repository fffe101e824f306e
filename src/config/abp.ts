/**
 * Settings of the built-in ABP browser backend: the `abp:` block of a `type: abp` server, with the ABP
 * MCP Bridge's environment variables as defaults (a value written in the config wins over the
 * environment, which wins over the built-in default).
 */
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export type ElicitationFallback = 'defaults' | 'cancel';

export type AbpLogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

/** The `abp:` block as written in YAML (after schema validation); every key optional. */
export interface AbpOptionsDoc {
  executablePath?: string;
  headless?: boolean;
  browserTimeoutMs?: number;
  callTimeoutMs?: number;
  downloadTimeoutMs?: number;
  abpWaitMs?: number;
  userDataDir?: string;
  extensionStoreUrl?: string;
  extensionCacheDir?: string;
  elicitation?: ElicitationFallback;
  retries?: { maxRetries?: number; initialDelayMs?: number };
  logLevel?: AbpLogLevel;
}

export interface AbpOptions {
  /** Absent: the browser side looks at CHROME_PATH, then the well-known locations. */
  executablePath?: string;
  headless: boolean;
  browserTimeoutMs: number;
  callTimeoutMs: number;
  downloadTimeoutMs: number;
  abpWaitMs: number;
  /** Persistent profiles: one subfolder per browser session. Absent: a fresh profile every time. */
  userDataDir?: string;
  extensionStoreUrl: string;
  extensionCacheDir: string;
  /** How an elicitation is answered when the MCP client cannot answer it. */
  elicitation: ElicitationFallback;
  retries: { maxRetries: number; initialDelayMs: number };
  /** Level of the backend's own logger; absent: the proxy's level. */
  logLevel?: AbpLogLevel;
}

/** The Chrome Web Store's update service, which redirects to the extension's CRX package. */
export const CHROME_WEB_STORE_URL =
  'https://clients2.google.com/service/update2/crx?response=redirect&prodversion=131.0&acceptformat=crx2,crx3&x=id%3D{id}%26uc';

export const ABP_DEFAULTS = {
  headless: true,
  browserTimeoutMs: 30_000,
  callTimeoutMs: 60_000,
  downloadTimeoutMs: 30_000,
  abpWaitMs: 10_000,
  extensionStoreUrl: CHROME_WEB_STORE_URL,
  elicitation: 'defaults' as ElicitationFallback,
  retries: { maxRetries: 3, initialDelayMs: 1000 },
};

export const DEFAULT_SESSION = 'default';

/** Session names become profile folder names, so they are kept to a safe alphabet. */
export const SESSION_NAME = /^[A-Za-z0-9_-]{1,32}$/;

const LOG_LEVELS: readonly AbpLogLevel[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

export interface EnvironmentDefaults {
  values: AbpOptionsDoc;
  /** One plain-words message per variable that is set but unusable. */
  problems: string[];
}

/** The options the environment sets, and what is wrong with it. Empty variables count as unset. */
export function abpEnvironment(env: NodeJS.ProcessEnv): EnvironmentDefaults {
  const values: AbpOptionsDoc = {};
  const problems: string[] = [];
  const headless = env.ABP_HEADLESS?.trim().toLowerCase();
  if (headless) {
    if (['true', '1', 'yes', 'on'].includes(headless)) values.headless = true;
    else if (['false', '0', 'no', 'off'].includes(headless)) values.headless = false;
    else problems.push(`ABP_HEADLESS must be true or false, got ${JSON.stringify(env.ABP_HEADLESS)}`);
  }
  const millis = (name: string, key: 'browserTimeoutMs' | 'callTimeoutMs' | 'downloadTimeoutMs') => {
    const raw = env[name]?.trim();
    if (!raw) return;
    const value = Number(raw);
    if (/^\d+$/.test(raw) && value >= 1 && value <= 2 ** 31 - 1) values[key] = value;
    else problems.push(`${name} must be a whole number of milliseconds (1 or more), got ${JSON.stringify(env[name])}`);
  };
  millis('ABP_BROWSER_TIMEOUT', 'browserTimeoutMs');
  millis('ABP_CALL_TIMEOUT', 'callTimeoutMs');
  millis('ABP_DOWNLOAD_TIMEOUT', 'downloadTimeoutMs');
  const level = env.ABP_LOG_LEVEL?.trim().toLowerCase();
  if (level) {
    if ((LOG_LEVELS as readonly string[]).includes(level)) values.logLevel = level as AbpLogLevel;
    else
      problems.push(`ABP_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(env.ABP_LOG_LEVEL)}`);
  }
  return { values, problems };
}

/**
 * The config block over the environment over the defaults. Paths are made absolute against the
 * directory the proxy starts in; unusable environment values are ignored here (the config loader
 * and the CLI report them before this runs).
 */
export function resolveAbpOptions(doc: AbpOptionsDoc = {}, env: NodeJS.ProcessEnv = process.env): AbpOptions {
  const fromEnv = abpEnvironment(env).values;
  const pick = <K extends keyof AbpOptionsDoc>(key: K) => doc[key] ?? fromEnv[key];
  const options: AbpOptions = {
    headless: pick('headless') ?? ABP_DEFAULTS.headless,
    browserTimeoutMs: pick('browserTimeoutMs') ?? ABP_DEFAULTS.browserTimeoutMs,
    callTimeoutMs: pick('callTimeoutMs') ?? ABP_DEFAULTS.callTimeoutMs,
    downloadTimeoutMs: pick('downloadTimeoutMs') ?? ABP_DEFAULTS.downloadTimeoutMs,
    abpWaitMs: doc.abpWaitMs ?? ABP_DEFAULTS.abpWaitMs,
    extensionStoreUrl: doc.extensionStoreUrl ?? ABP_DEFAULTS.extensionStoreUrl,
    extensionCacheDir: resolve(doc.extensionCacheDir ?? join(tmpdir(), 'mcp-offload-abp-extensions')),
    elicitation: doc.elicitation ?? ABP_DEFAULTS.elicitation,
    retries: {
      maxRetries: doc.retries?.maxRetries ?? ABP_DEFAULTS.retries.maxRetries,
      initialDelayMs: doc.retries?.initialDelayMs ?? ABP_DEFAULTS.retries.initialDelayMs,
    },
  };
  if (doc.executablePath !== undefined) options.executablePath = resolve(doc.executablePath);
  if (doc.userDataDir !== undefined) options.userDataDir = resolve(doc.userDataDir);
  const logLevel = pick('logLevel');
  if (logLevel !== undefined) options.logLevel = logLevel;
  return options;
}

/**
 * The gateway's per-request clock for an ABP server when the config sets none: long enough for a
 * call with every retry and its back-off, and for a connect (launch, navigation, waiting for
 * `window.abp`), so the proxy's safety net never cuts what the backend's own timeouts allow.
 */
export function abpRequestTimeoutMs(options: AbpOptions): number {
  const { maxRetries, initialDelayMs } = options.retries;
  const backoff = initialDelayMs * (2 ** maxRetries - 1);
  const calls = options.callTimeoutMs * (maxRetries + 1) + backoff;
  const connect = 2 * options.browserTimeoutMs + options.abpWaitMs;
  return Math.min(Math.max(calls, connect) + 10_000, 2 ** 31 - 1);
}
