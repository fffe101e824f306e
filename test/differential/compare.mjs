#!/usr/bin/env node
// Plays every scenario through a build and compares what each side received with the golden transcripts: prints
// every difference as a unified diff of the normalized messages, then a summary line. Exits 1 when a difference is
// not listed in intended.json (or a scenario failed to play), 0 otherwise.
//
//   node test/differential/compare.mjs --cli <path/to/cli.js> [--golden <dir>] [--intended <file>] [--only a,b]
//                                      [--jobs 2] [--out <dir>]
//
// --out writes this build's transcripts there too (as record.mjs would), to read them whole or to take some as the
// new golden ones.
//
// intended.json lists the differences that are meant: [{ "scenario", "side", "transport"?, "pattern"?, "index"?,
// "reason" }]. An entry covers a hunk of the diff of that scenario's side ("client", "upstream-handshake",
// "upstream"; "*" for any) over that transport (any when absent) when its `pattern` (a regular expression) matches
// one of the hunk's removed or added messages, or its `index` (1-based, as the diff prints them) is the golden
// position of a removed message or the new position of an added one; with neither, every hunk of that side.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { diffMessages, renderHunk } from './diff.mjs';
import { loadScenarios, options, pool, proxyVersion, SIDES, transcriptOf, writeTranscript } from './transcript.mjs';

const HERE = fileURLToPath(new URL('.', import.meta.url));

function loadIntended(file) {
  if (!existsSync(file)) return [];
  const entries = JSON.parse(readFileSync(file, 'utf8'));
  if (!Array.isArray(entries)) throw new Error(`${file}: not a list`);
  for (const [i, e] of entries.entries()) {
    if (typeof e.scenario !== 'string' || typeof e.side !== 'string' || typeof e.reason !== 'string') {
      throw new Error(`${file}: entry ${i + 1} needs scenario, side and reason`);
    }
  }
  return entries.map((entry) => ({ ...entry, used: 0 }));
}

/** The intended.json entry covering `hunk` of scenario/transport/side, if any. */
function intendedFor(intended, where, hunk) {
  return intended.find((e) => {
    if (e.scenario !== '*' && e.scenario !== where.scenario) return false;
    if (e.side !== '*' && e.side !== where.side) return false;
    if (e.transport !== undefined && e.transport !== where.transport) return false;
    const changed = [...hunk.removed, ...hunk.added];
    if (e.pattern !== undefined && changed.some((m) => new RegExp(e.pattern).test(m.text))) return true;
    if (e.index !== undefined && changed.some((m) => m.at + 1 === e.index)) return true;
    return e.pattern === undefined && e.index === undefined;
  });
}

/** Compares one scenario's transcript with its golden one; returns the differences found (printable). */
function compareTranscript(name, golden, actual, intended) {
  const differences = [];
  const transports = new Set([...Object.keys(golden.runs), ...Object.keys(actual.runs)]);
  for (const transport of transports) {
    const g = golden.runs[transport];
    const a = actual.runs[transport];
    if (!g || !a) {
      differences.push({
        where: { scenario: name, transport, side: '*' },
        lines: [g ? 'played in the golden transcript, not now' : 'not in the golden transcript (record it)'],
      });
      continue;
    }
    for (const side of SIDES) {
      const where = { scenario: name, transport, side };
      for (const hunk of diffMessages(g[side]?.messages ?? [], a[side]?.messages ?? [])) {
        const entry = intendedFor(intended, where, hunk);
        if (entry) entry.used++;
        differences.push({ where, lines: renderHunk(hunk), intended: entry });
      }
    }
  }
  return differences;
}

async function main() {
  const args = options(process.argv.slice(2), ['cli', 'golden', 'intended', 'only', 'jobs', 'out']);
  if (!args.cli) {
    process.stderr.write('usage: compare.mjs --cli <path/to/cli.js> [--golden dir] [--intended file] [--only a,b]\n');
    process.exit(2);
  }
  const started = Date.now();
  const cli = resolve(args.cli);
  const goldenDir = resolve(args.golden ?? join(HERE, 'golden'));
  const intended = loadIntended(resolve(args.intended ?? join(HERE, 'intended.json')));
  const scenarios = await loadScenarios(args.only?.split(','));
  const version = proxyVersion(cli);
  const out = (line = '') => process.stdout.write(`${line}\n`);

  let runs = 0;
  let messages = 0;
  const failures = [];
  const differences = [];
  await pool(scenarios, Number(args.jobs ?? 2), async (scenario) => {
    const file = join(goldenDir, `${scenario.name}.json`);
    let actual;
    try {
      actual = await transcriptOf(cli, scenario, version);
    } catch (error) {
      failures.push(`${scenario.name}: ${error.message}`);
      return;
    }
    if (args.out) await writeTranscript(args.out, actual);
    for (const run of Object.values(actual.runs)) {
      runs++;
      for (const side of Object.values(run)) messages += side.messages.length;
    }
    if (!existsSync(file)) {
      failures.push(`${scenario.name}: no golden transcript ${file}`);
      return;
    }
    const golden = JSON.parse(readFileSync(file, 'utf8'));
    differences.push(...compareTranscript(scenario.name, golden, actual, intended));
  });

  // Printed in scenario order, whatever order the pool finished them in.
  const order = new Map(scenarios.map((s, i) => [s.name, i]));
  differences.sort((x, y) => order.get(x.where.scenario) - order.get(y.where.scenario));
  for (const d of differences) {
    const { scenario, transport, side } = d.where;
    out(`=== ${scenario} [${transport}] ${side}${d.intended ? ` (intended: ${d.intended.reason})` : ''}`);
    for (const line of d.lines) out(line);
    out();
  }
  for (const failure of failures) out(`FAILED ${failure}\n`);
  for (const entry of intended.filter((e) => e.used === 0)) {
    out(`note: intended.json entry matched nothing: ${JSON.stringify({ ...entry, used: undefined })}`);
  }
  const unlisted = differences.filter((d) => !d.intended).length;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  out(
    `differential: ${scenarios.length} scenarios, ${runs} runs, ${messages} messages in ${seconds} s: ` +
      `${differences.length} differences (${differences.length - unlisted} intended, ${unlisted} not listed), ` +
      `${failures.length} failed`,
  );
  process.exit(unlisted > 0 || failures.length > 0 ? 1 : 0);
}

await main();
