// Real MCP servers nobody here wrote, from npm (devDependencies): what users put behind the proxy.
import { createRequire } from 'node:module';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NODE } from './fixtures.js';

const require = createRequire(import.meta.url);

function entry(pkg: string): string {
  return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'dist', 'index.js');
}

export const FILESYSTEM_ENTRY = entry('@modelcontextprotocol/server-filesystem');
export const MEMORY_ENTRY = entry('@modelcontextprotocol/server-memory');
export const CHROME_DEVTOOLS_ENTRY = path.join(
  path.dirname(require.resolve('chrome-devtools-mcp/package.json')),
  'build',
  'src',
  'bin',
  'chrome-devtools-mcp.js',
);

export const PLAYWRIGHT_ENTRY = path.join(path.dirname(require.resolve('@playwright/mcp/package.json')), 'cli.js');

/** A fresh directory for server-filesystem to serve (real path: the server resolves symlinks). */
export function filesystemRoot(): string {
  return realpathSync(mkdtempSync(path.join(tmpdir(), 'mcp-offload-fsroot-')));
}

/** server-filesystem serving `root`, as a server of testConfig. */
export const filesystem = (root: string, name = 'filesystem') => ({
  name,
  command: NODE,
  args: [FILESYSTEM_ENTRY, root],
});

/** server-memory keeping its graph in `file`, as a server of testConfig. */
export const memory = (file: string, name = 'memory') => ({
  name,
  command: NODE,
  args: [MEMORY_ENTRY],
  env: { MEMORY_FILE_PATH: file },
});

/**
 * chrome-devtools-mcp driving headless Debian chromium (`executablePath`), in a throwaway profile, with
 * one page and no page ids to pass, as a server of testConfig.
 */
export const chromeDevtools = (executablePath: string, name = 'chrome-devtools') => ({
  name,
  command: NODE,
  args: [
    CHROME_DEVTOOLS_ENTRY,
    '--headless',
    '--isolated',
    '--executablePath',
    executablePath,
    '--chromeArg=--no-sandbox',
    '--chromeArg=--disable-gpu',
    '--usageStatistics=false',
    '--performanceCrux=false',
    '--viewport',
    '1280x720',
    '--no-page-id-routing',
  ],
  env: { CI: '1', CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS: '1' },
});

/**
 * @playwright/mcp driving headless Debian chromium (`executablePath`) in an in-memory profile, its own files
 * (screenshots it also saves) under `outputDir`, as a server of testConfig.
 */
export const playwright = (executablePath: string, outputDir: string, name = 'playwright') => ({
  name,
  command: NODE,
  args: [
    PLAYWRIGHT_ENTRY,
    '--headless',
    '--isolated',
    '--browser',
    'chromium',
    '--executable-path',
    executablePath,
    '--no-sandbox',
    '--viewport-size',
    '1280x720',
    '--output-dir',
    outputDir,
  ],
});
