// Scenario group "rules-500": the cost of a rules table of 500 rules on small-call latency.
// mcp-offload over stdio with --config of a YAML file wrapping server-everything, with 500 rules
// and with none; sequential `echo` calls.
//
// Environment: BENCH_RULES_CALLS=2000 (sequential calls per run).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EVERYTHING, WARMUP, collect, echoJob, intFromEnv } from '../lib/echo-calls.mjs';
import { distribution, median } from '../lib/stats.mjs';
import * as fmt from '../lib/format.mjs';

const RULES = 500;

/**
 * Rules that never match server-everything's `echo`, in five shapes of glob, plus four that do. Every rule's
 * server glob matches the configured server (validate refuses a rule naming no server): what differs is the
 * tool glob, the part that has to be matched on each call.
 */
function rules() {
  const out = [];
  for (let i = 0; out.length < RULES - 4; i++) {
    const shape = i % 5;
    if (shape === 0) out.push(`  - { server: everything, tool: "tool_${i}_*", inlineLimit: ${10_000 + i} }`);
    if (shape === 1) out.push(`  - { server: "every*", tool: "get_*_${i}", minBinaryLength: ${1000 + i} }`);
    if (shape === 2)
      out.push(`  - { server: "{everything,other}", tool: "{alpha,beta}-${i}", previewChars: ${100 + i} }`);
    if (shape === 3) out.push(`  - { server: "*", tool: "tool_${i}_{read,write}", inlineLimit: ${20_000 + i} }`);
    if (shape === 4) out.push(`  - { server: "e[a-z]*g", tool: "*_${i}", dryRun: false }`);
  }
  out.push(
    '  - { server: everything, tool: echo, inlineLimit: 20000 }',
    '  - { server: "*", tool: "ec*", previewChars: 400 }',
    '  - { server: "every*", minBinaryLength: 2000 }',
    '  - { server: everything, tool: "{echo,get-sum}", inlineLimit: 30000 }',
  );
  return `\nrules:\n${out.join('\n')}\n`;
}

function config(root, withRules) {
  return `# Written by bench/scenarios/rules-500.mjs
servers:
  everything:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(resolve(root, EVERYTHING))}, stdio]
    prefix: false
${withRules ? rules() : ''}`;
}

const MODES = [
  { id: 'no-rules', label: 'no rules', file: 'no-rules.yaml', rules: 0 },
  { id: 'rules-500', label: `${RULES} rules`, file: 'rules-500.yaml', rules: RULES },
];

export default {
  name: 'rules-500',
  title: `Rules table of ${RULES} rules: cost on small calls`,
  summaryOrder: 3,

  method: `\`echo\` calls of server-everything through \`node dist/cli.js --log-level warn --config <file> --artifact-dir <tmp>\` (stdio), where
the YAML file wraps server-everything (\`servers: { everything: { command: node, args: [<everything>, stdio], prefix: false } }\`) and has
either no \`rules:\` or ${RULES} of them: ${RULES - 4} that never match \`everything\`/\`echo\`, in five glob shapes taken in turn, each
with a server glob that matches \`everything\` (a rule naming no configured server does not validate) and a tool glob that does not match
\`echo\` (\`{server: everything, tool: "tool_N_*", inlineLimit: N}\`, \`{server: "every*", tool: "get_*_N"}\`,
\`{server: "{everything,other}", tool: "{alpha,beta}-N"}\`, \`{server: "*", tool: "tool_N_{read,write}"}\`, \`{server: "e[a-z]*g", tool: "*_N"}\`),
and 4 that do match \`echo\` (\`{server: everything, tool: echo}\`, \`{server: "*", tool: "ec*"}\`, \`{server: "every*"}\`,
\`{server: everything, tool: "{echo,get-sum}"}\`). Both files are checked with \`mcp-offload validate\` first.

Each run is a fresh worker (bench/lib/latency-worker.mjs, as in small-calls): start, connect, ${WARMUP} warm-up calls, then N sequential calls
(N = 2000, \`BENCH_RULES_CALLS\`); the two configurations alternate. **median, p99, mean** of every call pooled over the runs;
**throughput** calls ÷ wall time, median of the runs; **proxy CPU per call** the proxy's user + system CPU during the calls ÷ N;
**connect** start + initialize (the rules are parsed, validated and compiled at startup); **Δ** the ${RULES}-rule row minus the no-rule row.`,

  columns: [
    { key: 'label', label: 'config', align: 'left' },
    { key: 'median', label: 'median', format: fmt.latency },
    { key: 'p99', label: 'p99', format: fmt.latency },
    { key: 'mean', label: 'mean', format: fmt.latency },
    { key: 'runMedians', label: 'run medians', format: (v) => v.map(fmt.latency).join(', ') },
    { key: 'throughput', label: 'throughput', format: fmt.rate },
    { key: 'cpuPerCall', label: 'proxy CPU per call', format: fmt.latency },
    { key: 'connectMs', label: 'connect', format: fmt.ms },
    { key: 'deltaMedian', label: 'Δ median', format: fmt.signedLatency },
    { key: 'deltaPct', label: 'Δ median %', format: (v) => fmt.percent(v, true) },
    { key: 'deltaP99', label: 'Δ p99', format: fmt.signedLatency },
    { key: 'deltaConnect', label: 'Δ connect', format: fmt.signedLatency },
  ],

  async run(ctx) {
    const n = intFromEnv(ctx.env, 'BENCH_RULES_CALLS', 2000);
    const dir = ctx.makeTempDir('mcp-offload-bench-rules-');
    try {
      for (const mode of MODES) {
        mode.path = join(dir, mode.file);
        writeFileSync(mode.path, config(ctx.root, mode.rules > 0));
        try {
          execFileSync(process.execPath, ['dist/cli.js', 'validate', '--config', mode.path], {
            cwd: ctx.root,
            stdio: 'pipe',
          });
        } catch (error) {
          throw new Error(
            `${mode.file} does not validate: ${String(error.stderr ?? error.stdout ?? error.message).trim()}`,
            { cause: error },
          );
        }
      }
      const data = await collect(ctx, 'rules-500', MODES, (mode, tmp) => ({
        transport: 'stdio',
        spawn: {
          command: process.execPath,
          args: ['dist/cli.js', '--log-level', 'warn', '--config', mode.path, '--artifact-dir', tmp],
        },
        ...echoJob({ sequential: n, concurrent: 0, concurrency: 1 }),
      }));
      const rows = MODES.map((mode) => {
        const d = data[mode.id];
        return {
          id: mode.id,
          label: mode.label,
          rules: mode.rules,
          ...distribution(d.sequential),
          runMedians: d.runMedians.sequential,
          throughput: median(d.throughput.sequential),
          cpuPerCall: median(d.cpuPerCall.sequential),
          connectMs: median(d.connectMs),
        };
      });
      const [none, many] = rows;
      Object.assign(many, {
        deltaMedian: many.median - none.median,
        deltaPct: (100 * (many.median - none.median)) / none.median,
        deltaP99: many.p99 - none.p99,
        deltaConnect: many.connectMs - none.connectMs,
      });
      return rows;
    } finally {
      ctx.removeTempDir(dir);
    }
  },

  notes: () =>
    'Settings are resolved once per server/tool pair and cached (src/pipeline/rules.ts), so after the first `echo` call the rules are not ' +
    'evaluated again: per-call differences smaller than the spread of the run medians are noise. What the rules do cost is startup ' +
    '(Δ connect): the YAML is parsed with source positions, validated against the JSON Schema and the globs are compiled before the proxy answers `initialize`.',

  summary(rows) {
    const many = rows.find((r) => r.id === 'rules-500');
    return [
      {
        goal: `${RULES} rules: cost on the small-call median (no threshold set)`,
        measured:
          `median ${fmt.latency(many.median)} vs ${fmt.latency(rows[0].median)} without rules: ${fmt.signedLatency(many.deltaMedian)} ` +
          `(${fmt.percent(many.deltaPct, true)}); p99 ${fmt.signedLatency(many.deltaP99)}; startup ${fmt.signedLatency(many.deltaConnect)}`,
        met: undefined,
      },
    ];
  },
};
