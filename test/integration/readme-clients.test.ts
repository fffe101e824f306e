// The README's client lines work exactly as written (issue 37, item 1): the clone is packed into a temporary
// directory, every JSON block and `claude mcp add` line of README.md is read, its tarball path and folder filled in,
// and the command it registers is run: with --version, and once as a real wrap that answers initialize.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { REPO_ROOT } from '../helpers/cli.js';

const run = promisify(execFile);
const tmp = mkdtempSync(join(tmpdir(), 'mcp-offload-readme-'));
const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Line {
  client: string;
  command: string;
  args: string[];
}

/** Every client line of the README: the JSON blocks' servers and the `claude mcp add` lines. */
function clientLines(): Line[] {
  const lines: Line[] = [];
  for (const [, lang, body] of readme.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)) {
    if (lang === 'json' && /"(mcpServers|servers)"/.test(body!)) {
      const config = JSON.parse(body!) as Record<string, Record<string, { command: string; args: string[] }>>;
      const [key, servers] = Object.entries(config)[0]!;
      for (const server of Object.values(servers)) {
        lines.push({ client: key === 'servers' ? 'VS Code' : 'Claude Desktop / Cursor', ...server });
      }
    }
    if (lang === 'sh') {
      for (const line of body!.split('\n')) {
        const add = /^claude mcp add \S+ -- (.*)$/.exec(line);
        if (add) {
          const [command, ...args] = add[1]!.split(/\s+/);
          lines.push({ client: 'Claude Code', command: command!, args });
        }
      }
    }
  }
  return lines;
}

/** A README line with the tarball's and the folder's paths filled in. */
function filled(line: Line, tarball: string, folder: string): string[] {
  return line.args.map((arg) =>
    arg.replace(/\/home\/me\/mcp-offload-[\d.]+\.tgz/, tarball).replace('/home/me/notes', folder),
  );
}

let tarball: string;

beforeAll(async () => {
  const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], {
    cwd: REPO_ROOT,
  });
  tarball = join(tmp, (JSON.parse(stdout) as Array<{ filename: string }>)[0]!.filename);
}, 120_000);

test('the README has a client line for Claude Desktop / Cursor, VS Code and Claude Code, each through --package', () => {
  const lines = clientLines();
  expect(lines.map((l) => l.client).sort()).toEqual(['Claude Code', 'Claude Desktop / Cursor', 'VS Code']);
  for (const line of lines) {
    expect(line.command).toBe('npx');
    expect(line.args.slice(0, 4)).toEqual([
      '-y',
      `--package=/home/me/mcp-offload-${manifest.version}.tgz`,
      'mcp-offload',
      '--',
    ]);
  }
});

test.each(clientLines().map((l) => [l.client, l] as const))(
  'the %s line, run as written with --version, prints the version',
  async (_client, line) => {
    const args = filled(line, tarball, tmp);
    const at = args.indexOf('mcp-offload');
    const { stdout } = await run(line.command, [...args.slice(0, at + 1), '--version'], {
      cwd: tmp,
      timeout: 170_000,
    });
    expect(stdout).toContain(manifest.version);
  },
  180_000,
);

test('the Claude Desktop line, run as written, wraps server-filesystem: its tools answer through the proxy', async () => {
  const line = clientLines().find((l) => l.client === 'Claude Desktop / Cursor')!;
  // Run where the clone's dev dependencies are, so the wrapped `npx -y @modelcontextprotocol/server-filesystem`
  // resolves without a download; the tarball's own dependencies come from the npm cache or registry.
  const transport = new StdioClientTransport({
    command: line.command,
    args: filled(line, tarball, tmp),
    cwd: REPO_ROOT,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'readme-test', version: '1.0.0' });
  try {
    await client.connect(transport);
    // A server npx is still fetching joins after the handshake (the client is told its list changed): ask until
    // its tools are there, or the test's own timeout ends it.
    let names: string[] = [];
    while (!names.includes('read_text_file')) {
      names = (await client.listTools()).tools.map((t) => t.name);
      if (!names.includes('read_text_file')) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const listed = await client.callTool({ name: 'list_allowed_directories', arguments: {} });
    expect(JSON.stringify(listed.content)).toContain(tmp);
  } finally {
    await client.close();
  }
}, 240_000);
