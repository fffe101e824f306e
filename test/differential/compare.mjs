#!/usr/bin/env node
// Plays every scenario through a build and compares what each side received with the golden transcripts: prints
// every difference as a unified diff of the normalized messages, with its nature (classify.mjs: bytes only, order
// only, or semantic, with the paths where the values differ), then a summary line. Exits 1 when a difference is not
// covered by intended.json (or a scenario failed to play), 0 otherwise.
//
//   node test/differential/compare.mjs --cli <path/to/cli.js> [--golden <dir>] [--intended <file>] [--only a,b]
//                                      [--jobs 2] [--out <dir>] [--plain]
//
// --out writes this build's transcripts there too (as record.mjs would), to read them whole or to take some as the
// new golden ones. --plain prints the diffs as before the classification (the hunks and their intended
// reasons only); what is intended is decided the same way.
//
// intended.json lists the differences that are meant: see intended.mjs and README.md.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { classifyHunk } from './classify.mjs';
import { diffMessages, renderHunk } from './diff.mjs';
import { coverHunk, loadIntended } from './intended.mjs';
import { showDifference } from './json-value.mjs';
import { loadScenarios, options, pool, proxyVersion, SIDES, transcriptOf, writeTranscript } from './transcript.mjs';

const HERE = fileURLToPath(new URL('.', import.meta.url));

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
        classified: { class: 'semantic', changes: [] },
        covered: { intended: false, entries: [] },
      });
      continue;
    }
    for (const side of SIDES) {
      const where = { scenario: name, transport, side };
      for (const hunk of diffMessages(g[side]?.messages ?? [], a[side]?.messages ?? [])) {
        const classified = classifyHunk(hunk, a[side]?.full);
        const covered = coverHunk(intended, where, hunk, classified);
        differences.push({ where, lines: renderHunk(hunk), classified, covered });
      }
    }
  }
  return differences;
}

const clipLine = (text, max = 160) => {
  const line = text.replaceAll('\n', '⏎');
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
};
const verdict = (change) => (change.intended ? `intended: ${change.intended.reason}` : 'NOT LISTED');

/** The lines telling what each change of a classified hunk is, and which intended.json entry covers it. */
function describeChanges({ class: kind, changes }) {
  const lines = [];
  if (kind === 'bytes only') {
    const reasons = [...new Set(changes.map(verdict))];
    lines.push(`  ~ bytes only: ${changes.length} message(s) read back as the same values`);
    for (const reason of reasons) lines.push(`      ${reason}`);
    return lines;
  }
  for (const change of changes) {
    const g = change.golden && !Array.isArray(change.golden) ? `golden ${change.golden.at + 1}` : '';
    const a = change.actual && !Array.isArray(change.actual) ? `new ${change.actual.at + 1}` : '';
    if (change.kind === 'bytes') lines.push(`  = ${g} = ${a}: bytes only (${verdict(change)})`);
    else if (change.kind === 'order') {
      lines.push(`  ~ order only: the same ${change.golden.length} message(s) in another order (${verdict(change)})`);
    } else if (change.kind === 'moved') lines.push(`  ~ ${g} → ${a}: the same value, moved (${verdict(change)})`);
    else if (change.kind === 'lost') {
      lines.push(`  - ${g} LOST, no counterpart now (${verdict(change)})`, `      ${clipLine(change.golden.text)}`);
    } else if (change.kind === 'new') {
      lines.push(
        `  + ${a} NEW, none in the golden transcript (${verdict(change)})`,
        `      ${clipLine(change.actual.text)}`,
      );
    } else {
      lines.push(`  ! ${g} → ${a}: semantic (${verdict(change)})`);
      const shown = change.differences.slice(0, 12);
      for (const d of shown)
        lines.push(
          `      ${d.golden === undefined && d.actual === undefined ? `${d.op} ${d.path}` : showDifference(d)}`,
        );
      if (change.differences.length > shown.length) {
        lines.push(`      … and ${change.differences.length - shown.length} more`);
      }
    }
  }
  return lines;
}

async function main() {
  const args = options(process.argv.slice(2), ['cli', 'golden', 'intended', 'only', 'jobs', 'out'], ['plain']);
  if (!args.cli) {
    process.stderr.write(
      'usage: compare.mjs --cli <path/to/cli.js> [--golden dir] [--intended file] [--only a,b] [--jobs n] [--out dir] [--plain]\n',
    );
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
  const reasons = (d) => [...new Set(d.covered.entries.map((e) => e.reason))].join(' | ');
  for (const d of differences) {
    const { scenario, transport, side } = d.where;
    if (args.plain) {
      out(`=== ${scenario} [${transport}] ${side}${d.covered.intended ? ` (intended: ${reasons(d)})` : ''}`);
      for (const line of d.lines) out(line);
    } else {
      out(
        `=== ${scenario} [${transport}] ${side}: ${d.classified.class}, ${d.covered.intended ? 'intended' : 'NOT LISTED'}`,
      );
      for (const line of d.lines) out(line);
      for (const line of describeChanges(d.classified)) out(line);
    }
    out();
  }
  for (const failure of failures) out(`FAILED ${failure}\n`);
  for (const entry of intended.filter((e) => e.used === 0)) {
    out(`note: intended.json entry matched nothing: ${JSON.stringify({ ...entry, used: undefined })}`);
  }
  const unlisted = differences.filter((d) => !d.covered.intended).length;
  const classes = ['bytes only', 'order only', 'semantic'].map(
    (c) => `${differences.filter((d) => d.classified.class === c).length} ${c}`,
  );
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  out(`differences by nature: ${classes.join(', ')}`);
  out(
    `differential: ${scenarios.length} scenarios, ${runs} runs, ${messages} messages in ${seconds} s: ` +
      `${differences.length} differences (${differences.length - unlisted} intended, ${unlisted} not listed), ` +
      `${failures.length} failed`,
  );
  // Exits once stdout is written out: into a pipe, process.exit would cut a long report short.
  process.stdout.write('', () => process.exit(unlisted > 0 || failures.length > 0 ? 1 : 0));
}

await main();
