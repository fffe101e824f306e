#!/usr/bin/env node
// Plays one scenario through a build over one transport and prints what each side received, raw (before
// normalization) and whole: for looking into a difference compare.mjs reports.
//
//   node test/differential/show.mjs --cli <path/to/cli.js> --only <scenario> [--transport stdio|http|sse]
import { resolve } from 'node:path';
import { play } from './play.mjs';
import { loadScenarios, options } from './transcript.mjs';

const args = options(process.argv.slice(2), ['cli', 'only', 'transport']);
if (!args.cli || !args.only) {
  process.stderr.write('usage: show.mjs --cli <path/to/cli.js> --only <scenario> [--transport stdio|http|sse]\n');
  process.exit(2);
}
const [scenario] = await loadScenarios([args.only]);
const raw = await play(resolve(args.cli), scenario, args.transport ?? 'stdio');
for (const side of ['client', 'upstream']) {
  process.stdout.write(`=== ${side}\n`);
  for (const entry of raw[side]) process.stdout.write(`${entry}\n`);
}
