// The command line of an interleaved A/B script (ab-small-calls, store-open, frames): `--a <baseline checkout with a
// built dist/>` and `--rounds`, beside the script's own options.
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** This checkout: the B side, whose dist/ is measured beside A's. */
export const ROOT = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

/** The parsed values: `a`, `rounds` (as given, else `rounds`) and the script's own `options`. */
export function abArgs(options, rounds = '5') {
  return parseArgs({ options: { a: { type: 'string' }, rounds: { type: 'string', default: rounds }, ...options } })
    .values;
}
