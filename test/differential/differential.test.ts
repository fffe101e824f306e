// The differential harness (see test/differential/README.md) against this repository's build: every scenario is
// played through dist/cli.js and what the client and the upstream received must match the golden transcripts,
// recorded from the build before the core was rewritten, but for the differences listed in intended.json.
//
// DIFF_CLI=<path/to/cli.js> compares another build instead (the baseline's own dist/cli.js passes by definition).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const COMPARE = fileURLToPath(new URL('./compare.mjs', import.meta.url));
const CLI = process.env.DIFF_CLI ?? fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

function run(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

describe('differential: what each side receives, against the golden transcripts', () => {
  test('every scenario matches, but for the intended differences', async () => {
    expect(existsSync(CLI)).toBe(true);
    const { code, output } = await run([COMPARE, '--cli', CLI]);
    if (code !== 0) throw new Error(`compare.mjs --cli ${CLI} exited ${code}:\n${output}`);
    expect(output).toMatch(/differential: .* 0 not listed\), 0 failed/);
  }, 180_000);
});
