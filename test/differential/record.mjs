#!/usr/bin/env node
// Plays every scenario through one build of the proxy and writes one transcript per scenario (<name>.json) into a
// directory: the golden transcripts in golden/ are this, run on the build before the rewrite.
//
//   node test/differential/record.mjs --cli <path/to/cli.js> --out <dir> [--only name,name] [--jobs 2]
import { resolve } from 'node:path';
import { loadScenarios, options, pool, proxyVersion, transcriptOf, writeTranscript } from './transcript.mjs';

const args = options(process.argv.slice(2), ['cli', 'out', 'only', 'jobs']);
if (!args.cli || !args.out) {
  process.stderr.write('usage: record.mjs --cli <path/to/cli.js> --out <dir> [--only a,b] [--jobs n]\n');
  process.exit(2);
}
const cli = resolve(args.cli);
const started = Date.now();
const scenarios = await loadScenarios(args.only?.split(','));
const version = proxyVersion(cli);
let runs = 0;
let messages = 0;
await pool(scenarios, Number(args.jobs ?? 2), async (scenario) => {
  const transcript = await transcriptOf(cli, scenario, version);
  await writeTranscript(args.out, transcript);
  for (const run of Object.values(transcript.runs)) {
    runs++;
    for (const side of Object.values(run)) messages += side.messages.length;
  }
  process.stdout.write(`recorded ${scenario.name} (${scenario.transports.join(', ')})\n`);
});
const seconds = ((Date.now() - started) / 1000).toFixed(1);
process.stdout.write(`${scenarios.length} scenarios, ${runs} runs, ${messages} messages in ${seconds} s\n`);
