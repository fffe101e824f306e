// What someone gets from `npm pack` (the README's way to use mcp-offload before it is published).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../helpers/cli.js';

const run = promisify(execFile);
const tmp = mkdtempSync(join(tmpdir(), 'mcp-offload-pack-'));
const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let tarball: string;
let files: string[];

beforeAll(async () => {
  // npm test built dist/ already: no `prepare` here.
  const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], {
    cwd: REPO_ROOT,
  });
  const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = join(tmp, packed!.filename);
  files = packed!.files.map((f) => f.path);
}, 60_000);

test('the tarball holds the built program, its types, the viewer, the config schema, README and LICENSE, and no sources or tests', () => {
  expect(files).toEqual(
    expect.arrayContaining([
      'dist/cli.js',
      'dist/viewer/artifact-viewer.html',
      'dist/index.js',
      'dist/index.d.ts',
      'config/schema.json',
      'config/example.yaml',
      'README.md',
      'LICENSE',
      'package.json',
    ]),
  );
  expect(files.filter((f) => /^(src|test|bench|docker|viewer)\//.test(f))).toEqual([]);
});

test('installed from the tarball: the mcp-offload command runs and the package imports as documented', async () => {
  const project = join(tmp, 'user-project');
  await run('mkdir', ['-p', project]);
  writeFileSync(join(project, 'package.json'), '{"name": "user-project", "private": true, "type": "module"}\n');
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], {
    cwd: project,
  });
  const version = await run(join(project, 'node_modules/.bin/mcp-offload'), ['--version'], { cwd: project });
  expect(version.stdout.trim()).toBe(manifest.version);
  const script = [
    "import * as offload from 'mcp-offload';",
    "const config = offload.parseConfig('servers:\\n  a:\\n    command: node\\n', 'inline.yaml');",
    'console.log(JSON.stringify({ version: offload.VERSION, servers: config.servers.map((s) => s.name),',
    '  gateway: typeof offload.Gateway, store: typeof offload.ArtifactStore, http: typeof offload.serveHttp }));',
  ].join('\n');
  writeFileSync(join(project, 'use.mjs'), script);
  const used = await run(process.execPath, ['use.mjs'], { cwd: project });
  expect(JSON.parse(used.stdout)).toEqual({
    version: manifest.version,
    servers: ['a'],
    gateway: 'function',
    store: 'function',
    http: 'function',
  });
}, 120_000);
