#!/usr/bin/env node
// mcp-offload benchmark suite: `npm run bench` (builds, then runs this file).
//
// Runs every scenario group in bench/scenarios/*.mjs (in file-name order), prints a table per group
// and writes bench/results.md. A scenario group is a module whose default export (or whose named
// exports) are:
//   name            short id, used by BENCH_ONLY
//   title           heading (default: name)
//   method          markdown: how each number is measured (written to results.md)
//   columns         [{ key, label, align?, format?(value, row) }] (default: the rows' keys)
//   run(ctx)        async, returns rows (plain objects); throws on failure
//   notes?(rows)    markdown written under the table
//   summary?(rows)  [{ goal, measured, met: true | false | undefined, issue? }]: lines of the summary at the top of
//                   results.md (goals are shown with their figure, never asserted), in one table per issue
//                   (bench/lib/goals.mjs: the relay-core issue's, #32, first)
//   summaryOrder?   where the group's summary lines go (lower first; default: after the others, in file order)
// ctx: { root, runs, env, runWorker(job, opts), makeTempDir(prefix), removeTempDir(dir), log(msg), warn(msg) }
//
// Environment:
//   BENCH_RUNS=3          runs per measurement (each in fresh processes)
//   BENCH_ONLY=a,b        run only these groups (results.md then holds only them)
//   BENCH_VERBOSE=1       pass the workers' and children's stderr through
//   BENCH_RESULTS=path    where to write the markdown (default bench/results.md)
//   BENCH_SKIP_SLOW=1     skip the slowest measurements (the direct SDK client on results over 50 MB)
// Group-specific variables are documented in each group (e.g. BENCH_HUGE_IMAGE_MB=1,10,50,100).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { killAll, makeTempDir, removeAllTempDirs, removeTempDir } from './lib/cleanup.mjs';
import { runWorker } from './lib/spawn.mjs';
import { machineFacts, machineMarkdown } from './lib/machine.mjs';
import { columnsFromRows, markdownTable, textTable } from './lib/table.mjs';
import * as fmt from './lib/format.mjs';
import { SUMMARY_SECTIONS, sectionOf, verdict } from './lib/goals.mjs';

const BENCH = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(BENCH);

function fail(message) {
  process.stderr.write(`\nbench: ${message}\n`);
  process.exit(1);
}

// Whatever happens, no child process and no temp dir outlives the run.
process.on('exit', () => {
  const killed = killAll();
  removeAllTempDirs();
  if (killed) process.stderr.write(`bench: killed ${killed} worker process tree(s) left running\n`);
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    process.stderr.write(`\nbench: interrupted by ${signal}\n`);
    process.exit(130);
  });
}

const shownPath = (path) => (path.startsWith(`${ROOT}/`) ? relative(ROOT, path) : path);

function positiveInt(name, dflt) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) fail(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

async function loadGroups() {
  const dir = join(BENCH, 'scenarios');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.mjs'))
    .sort();
  const groups = [];
  for (const file of files) {
    const mod = await import(pathToFileURL(join(dir, file)).href);
    const group = mod.default ?? mod;
    if (typeof group.name !== 'string' || typeof group.run !== 'function') {
      fail(`bench/scenarios/${file} must export { name, run(ctx) } (as default export or named exports)`);
    }
    groups.push({ ...group, file });
  }
  const only = process.env.BENCH_ONLY?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!only?.length) return groups;
  const unknown = only.filter((n) => !groups.some((g) => g.name === n));
  if (unknown.length)
    fail(`BENCH_ONLY names unknown group(s): ${unknown.join(', ')} (known: ${groups.map((g) => g.name).join(', ')})`);
  return groups.filter((g) => only.includes(g.name));
}

/** "abc1234" or "abc1234 with uncommitted changes", or undefined outside a git checkout. */
function gitRevision() {
  try {
    const rev = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return dirty ? `${rev} with uncommitted changes in src/` : rev;
  } catch {
    return undefined;
  }
}

/**
 * The dist/ modules whose source is gone from src/ (tsc never removes its output). Nothing of the bench imports them,
 * but a module left there still loads, so an import of a removed module would measure old code instead of failing.
 */
function staleDistModules() {
  const stale = [];
  const walk = (dir) => {
    for (const entry of readdirSync(join(ROOT, 'dist', dir), { withFileTypes: true })) {
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path);
      else if (path.endsWith('.js') && !existsSync(join(ROOT, 'src', path.replace(/\.js$/, '.ts')))) stale.push(path);
    }
  };
  walk('');
  return stale;
}

/** The summary lines of every group that has them, in summaryOrder. */
function summaryLines(sections) {
  const order = (s) => s.group.summaryOrder ?? Infinity;
  return [...sections]
    .filter((s) => s.rows && typeof s.group.summary === 'function')
    .sort((a, b) => order(a) - order(b))
    .flatMap((s) => s.group.summary(s.rows).map((line) => ({ ...line, group: s.group.name })));
}

const SUMMARY_COLUMNS = [
  { key: 'goal', label: 'goal', align: 'left' },
  { key: 'measured', label: 'measured', align: 'left' },
  { key: 'met', label: 'result', align: 'left', format: (v) => (v === false ? '**not met**' : verdict(v)) },
  { key: 'group', label: 'group', align: 'left', format: (v) => `\`${v}\`` },
];

/** The summary lines in the sections of bench/lib/goals.mjs, empty sections left out. */
function summarySections(lines) {
  return SUMMARY_SECTIONS.map((section) => ({
    title: section.title,
    lines: lines.filter((line) => sectionOf(line) === section),
  })).filter((s) => s.lines.length);
}

/** The BENCH_* variables the run was started with (not where it writes): how its figures were made. */
function settingsLine() {
  const set = Object.entries(process.env)
    .filter(([name, value]) => name.startsWith('BENCH_') && name !== 'BENCH_RESULTS' && value !== '')
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) => `\`${name}=${value}\``);
  return set.length ? `Settings: ${set.join(', ')}.\n` : '';
}

/** The names of the groups that failed. */
function failedGroups(sections) {
  return sections.filter((s) => s.failure !== undefined).map((s) => s.group.name);
}

/** A line naming the groups that failed (their goals are then missing from the summary), or nothing. */
function failedLine(sections) {
  const failed = failedGroups(sections).map((name) => `\`${name}\``);
  return failed.length
    ? `**Failed groups** (no figures; their goals are missing from the summary): ${failed.join(', ')}.\n\n`
    : '';
}

function resultsMarkdown({ startedAt, elapsedMs, runs, machine, sections }) {
  const revision = gitRevision();
  const summary = summaryLines(sections);
  return `# mcp-offload benchmarks

Generated by \`npm run bench\` on ${startedAt.toISOString()} (took ${fmt.ms(elapsedMs)}).
${revision ? `Code: commit ${revision}. ` : ''}Runs per measurement: ${runs} (\`BENCH_RUNS\`). Groups: ${sections.map((s) => `\`${s.group.name}\``).join(', ')}.
${settingsLine()}
These timings and memory figures are measured on the machine below, on one occasion; they are never asserted in
tests (the test suite checks behavior, not speed). Expect other machines, and other runs, to differ.

${
  summary.length
    ? `## Summary

Each goal with the figure measured below (details and method in each group's section).

${summarySections(summary)
  .map(({ title, lines }) => `### ${title}\n\n${markdownTable(SUMMARY_COLUMNS, lines)}\n\n`)
  .join('')}`
    : ''
}${failedLine(sections)}## Machine

${machineMarkdown(machine, fmt.bytes)}

${sections
  .map(
    ({ group, rows, columns, failure, elapsedMs: ms }) => `## ${group.title ?? group.name}

${group.method ? `${group.method.trim()}\n\n` : ''}${
      failure !== undefined
        ? `**Failed**, no figures: ${failure}\n\n`
        : `${markdownTable(columns, rows)}\n\n${group.notes ? `${group.notes(rows).trim()}\n\n` : ''}`
    }_Group \`${group.name}\` (bench/scenarios/${group.file}) took ${fmt.ms(ms)}._
`,
  )
  .join('\n')}`;
}

async function main() {
  const runs = positiveInt('BENCH_RUNS', 3);
  const verbose = Boolean(process.env.BENCH_VERBOSE);
  const resultsPath = process.env.BENCH_RESULTS || join(BENCH, 'results.md');
  if (!existsSync(join(ROOT, 'dist/cli.js'))) fail('dist/cli.js is missing: run `npm run build` (npm run bench does)');
  const stale = staleDistModules();
  if (stale.length) {
    process.stderr.write(
      `bench: warning: dist/ holds ${stale.length} module(s) whose source is gone from src/ (e.g. dist/${stale[0]}), ` +
        'left by an earlier build; `rm -rf dist && npm run build` clears them\n',
    );
  }
  const groups = await loadGroups();
  const machine = machineFacts();
  const startedAt = new Date();
  const t0 = Date.now();
  process.stdout.write(
    `mcp-offload bench: ${groups.length} group(s), ${runs} run(s) each; ${machine.cpuModel} × ${machine.cpuCount}, ` +
      `${fmt.bytes(machine.totalMemory)}, Node ${machine.node}, ${machine.platform} ${machine.kernel}\n`,
  );

  const ctx = {
    root: ROOT,
    runs,
    env: process.env,
    runWorker: (job, opts = {}) => runWorker(job, { cwd: ROOT, verbose, ...opts }),
    makeTempDir,
    removeTempDir,
    log: (msg) => process.stderr.write(`  ${msg}\n`),
    warn: (msg) => process.stderr.write(`  warning: ${msg}\n`),
  };

  const sections = [];
  for (const group of groups) {
    process.stdout.write(`\n== ${group.title ?? group.name} ==\n`);
    const g0 = Date.now();
    let rows;
    try {
      rows = await group.run(ctx);
      if (!Array.isArray(rows) || rows.length === 0) throw new Error('it returned no rows');
    } catch (error) {
      // The other groups still run and are written: one group's failure (a reference run past its timeout on a slow
      // machine, say) must not cost a run of half an hour its results.
      const detail = verbose ? (error?.stack ?? String(error)) : (error?.message ?? String(error));
      process.stderr.write(`\nbench: scenario group "${group.name}" failed: ${detail}\n`);
      sections.push({ group, failure: detail, elapsedMs: Date.now() - g0 });
      continue;
    }
    const columns = group.columns ?? columnsFromRows(rows);
    const elapsedMs = Date.now() - g0;
    process.stdout.write(`${textTable(columns, rows)}\n(${fmt.ms(elapsedMs)})\n`);
    sections.push({ group, rows, columns, elapsedMs });
  }

  const summary = summaryLines(sections);
  if (summary.length) {
    const plain = SUMMARY_COLUMNS.map((c) => ({
      ...c,
      format: (v, row) => (c.format ? c.format(v, row) : String(v)).replace(/\*\*|`/g, ''),
    }));
    for (const { title, lines } of summarySections(summary))
      process.stdout.write(`\n== Summary: ${title} ==\n${textTable(plain, lines)}\n`);
  }
  writeFileSync(resultsPath, resultsMarkdown({ startedAt, elapsedMs: Date.now() - t0, runs, machine, sections }));
  process.stdout.write(`\nwrote ${shownPath(resultsPath)} (${fmt.ms(Date.now() - t0)} in all)\n`);
  const failed = failedGroups(sections);
  if (failed.length) fail(`scenario group(s) failed: ${failed.join(', ')} (written to the results as failed)`);
}

main().catch((error) => fail(error?.stack ?? String(error)));
