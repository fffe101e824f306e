// Turns what play.mjs recorded into a transcript: per downstream transport, per side, the normalized messages in
// order, and the replacements normalization made. The sides:
//
//   client               what the client received from the proxy
//   upstream-handshake   what the upstream received while the proxy connected to it (normalize.mjs: splitHandshake)
//   upstream             what the upstream received after that
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { canonicalFraming, normalizeEntries, RULES, splitHandshake } from './normalize.mjs';
import { play } from './play.mjs';

export const SIDES = ['client', 'upstream-handshake', 'upstream'];
const SCENARIOS = fileURLToPath(new URL('./scenarios/', import.meta.url));
/** Modules of scenarios/ that are building blocks, not scenarios. */
const NOT_SCENARIOS = new Set(['lib.mjs', 'data.mjs']);

/**
 * Messages longer than this are kept as their SHA-256 and length, with their start and end to read: the offloaded
 * image's preview alone is hundreds of KB. The hash is of the whole normalized message, so the comparison is still
 * byte for byte.
 */
const LONGEST_KEPT = 16_384;
function compact(message) {
  if (message.length <= LONGEST_KEPT) return message;
  const sha = createHash('sha256').update(message).digest('hex');
  return `[${message.length} characters, sha256 ${sha}] ${message.slice(0, 1000)} … ${message.slice(-300)}`;
}

/**
 * Rules whose replaced values change from run to run: the transcript keeps their placeholders only, so that
 * recording the same build twice writes the same files.
 */
const VOLATILE = new Set([
  'request-state',
  'temp-dir',
  'session-id',
  'signed-link',
  'timestamp',
  'port',
  'sse-priming',
  'answer-framing',
]);
/** The replacements as lines `rule: from → to` (`rule: … → to` for a volatile rule), each once. */
function replacementLog(replacements) {
  const lines = replacements.map(({ rule, from, to }) => `${rule}: ${VOLATILE.has(rule) ? '…' : from} → ${to}`);
  return [...new Set(lines)];
}

/** The scenarios, by name, in file name order; `only` (names) picks some. */
export async function loadScenarios(only) {
  const files = readdirSync(SCENARIOS)
    .filter((f) => f.endsWith('.mjs') && !NOT_SCENARIOS.has(f))
    .sort();
  const scenarios = [];
  for (const file of files) {
    const scenario = (await import(pathToFileURL(join(SCENARIOS, file)).href)).default;
    if (!only || only.includes(scenario.name)) scenarios.push(scenario);
  }
  if (only) {
    const missing = only.filter((name) => !scenarios.some((s) => s.name === name));
    if (missing.length > 0) throw new Error(`no such scenario: ${missing.join(', ')}`);
  }
  return scenarios;
}

/** The version in the package.json nearest to `cli` (the proxy reports it as its clientInfo version). */
export function proxyVersion(cli) {
  for (let dir = dirname(cli); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')).version;
  }
  return undefined;
}

/**
 * One side of a run: its normalized messages (compacted) and replacements; also, not written with the transcript,
 * `full`: the messages before compaction (classify.mjs reads a long message's value from it).
 */
function side(entries, context, framing = { entries, replacements: [] }) {
  const { messages, replacements } = normalizeEntries(framing.entries, context);
  const out = {
    messages: messages.map(compact),
    replacements: replacementLog([...framing.replacements, ...replacements]),
  };
  return Object.defineProperty(out, 'full', { value: messages, enumerable: false });
}

/** The requestState values the scenario's upstream sends (in its reply templates). */
function upstreamStates(scenario) {
  const templates = scenario.upstream.rules.flatMap((rule) => rule.reply.filter((a) => typeof a === 'string'));
  return new Set(templates.flatMap((t) => [...t.matchAll(/"requestState":"([^"]*)"/g)].map((m) => m[1])));
}

/** Plays `scenario` through `cli` over each of its transports; returns its transcript. */
export async function transcriptOf(cli, scenario, version = proxyVersion(cli)) {
  const runs = {};
  for (const transport of scenario.transports) {
    const raw = await play(cli, scenario, transport);
    const context = { tempDir: raw.tempDir, version, upstreamStates: upstreamStates(scenario) };
    const [handshake, rest] = splitHandshake(raw.upstream);
    runs[transport] = {
      client: side(raw.client, context, transport === 'http' ? canonicalFraming(raw.client) : undefined),
      'upstream-handshake': side(handshake, context),
      upstream: side(rest, context),
    };
  }
  return { scenario: scenario.name, normalization: RULES, runs };
}

/** Runs `task` over `items` with at most `jobs` at once; results in the items' order. */
export async function pool(items, jobs, task) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const at = next++;
      results[at] = await task(items[at], at);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, items.length) }, worker));
  return results;
}

/** Parses `--name value` options; `flags` lists the names that take no value. */
export function options(argv, known, flags = []) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].replace(/^--/, '');
    if (argv[i].startsWith('--') && flags.includes(name)) {
      out[name] = true;
      continue;
    }
    if (!argv[i].startsWith('--') || !known.includes(name)) throw new Error(`unknown argument ${argv[i]}`);
    out[name] = argv[++i];
    if (out[name] === undefined) throw new Error(`${argv[i - 1]} needs a value`);
  }
  return out;
}

/**
 * Writes `transcript` as <dir>/<scenario>.json, formatted as the repository's Prettier formats JSON, so that the
 * golden files pass `prettier --check` as recorded.
 */
export async function writeTranscript(dir, transcript) {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${transcript.scenario}.json`);
  let text = `${JSON.stringify(transcript, null, 2)}\n`;
  try {
    const prettier = await import('prettier');
    // The repository's settings, wherever `dir` is.
    const config = (await prettier.resolveConfig(fileURLToPath(new URL('./golden/x.json', import.meta.url)))) ?? {};
    text = await prettier.format(text, { ...config, parser: 'json' });
  } catch {
    // Without Prettier (a checkout without its devDependencies) the plain JSON is as good to compare.
  }
  writeFileSync(file, text);
}
