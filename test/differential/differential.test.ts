// The differential harness (see test/differential/README.md) against this repository's build: every scenario is
// played through dist/cli.js and what the client and the upstream received must match the golden transcripts,
// recorded from the build before the core was rewritten, but for the differences listed in intended.json.
//
// DIFF_CLI=<path/to/cli.js> compares another build instead (the baseline's own dist/cli.js passes by definition).
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const COMPARE = fileURLToPath(new URL('./compare.mjs', import.meta.url));
const GOLDEN = fileURLToPath(new URL('./golden', import.meta.url));
const CLI = process.env.DIFF_CLI ?? fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

function run(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

/** What of compare.mjs's output fails the test: the differences not listed, failures and notes, the summary. */
function notListed(output: string): string {
  const blocks = output.split('\n\n');
  const kept = blocks.filter(
    (b) => /^=== .*: [a-z ]+, NOT LISTED$/m.test(b.split('\n')[0]) || /^(FAILED|note:)/m.test(b),
  );
  const summary = blocks.at(-1) ?? '';
  return [...kept, kept.includes(summary) ? '' : summary].join('\n\n');
}

describe('differential: what each side receives, against the golden transcripts', () => {
  test('every scenario matches, but for the intended differences', async () => {
    expect(existsSync(CLI)).toBe(true);
    const { code, output } = await run([COMPARE, '--cli', CLI]);
    if (code !== 0) throw new Error(`compare.mjs --cli ${CLI} exited ${code}:\n${notListed(output)}`);
    expect(output).toMatch(/differential: .* 0 not listed\), 0 failed/);
  }, 180_000);

  test('a number changed in one golden message is a semantic difference, not listed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'differential-broken-'));
    try {
      cpSync(GOLDEN, dir, { recursive: true });
      const file = join(dir, 'errors.json');
      const golden = readFileSync(file, 'utf8');
      // The upstream's error data, in the stdio run's client side (the first of its two runs).
      expect(golden).toContain('[1500,-0]');
      writeFileSync(file, golden.replace('[1500,-0]', '[1501,-0]'));
      const { code, output } = await run([COMPARE, '--cli', CLI, '--only', 'errors', '--golden', dir]);
      expect(code).toBe(1);
      expect(output).toMatch(/=== errors \[stdio\] client: semantic, NOT LISTED/);
      expect(output).toMatch(/~ error\.data\.codes\[0\]: 1501 → (1\.5e3|1500)/);
      expect(output).toMatch(/differential: .* 1 not listed\), 0 failed/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
