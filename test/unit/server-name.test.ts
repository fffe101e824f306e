import { nameFromCommand, nameFromPackage, nameFromUrl } from '../../src/config/server-name.js';

/** No package.json anywhere, unless a test says where. */
const noPackages = { cwd: '/work', packageNameAt: () => undefined };

describe('the name of a wrapped server comes from the package it runs, never from an argument value', () => {
  test.each([
    [['npx', '-y', '@modelcontextprotocol/server-filesystem', '/tmp/fsroot'], 'filesystem'],
    [['npx', '-y', '@modelcontextprotocol/server-everything'], 'everything'],
    [['npx', '-y', '@modelcontextprotocol/server-memory@2025.1.1'], 'memory'],
    [['npx', 'chrome-devtools-mcp@latest', '--executablePath', '/usr/bin/chromium'], 'chrome-devtools'],
    [['npx', '-y', '--package=@scope/mcp-server-thing', 'thing-cli'], 'thing'],
    [['npx', '@playwright/mcp@latest', '--headless'], 'playwright'],
    [['/usr/local/bin/npx.cmd', '-y', 'firecrawl-mcp'], 'firecrawl'],
    [['bunx', 'server-github'], 'github'],
    [['pnpm', 'dlx', '@upstash/context7-mcp'], 'context7'],
    [['uvx', 'mcp-server-fetch@1.2.0'], 'fetch'],
    [['uvx', '--from', 'git+https://x/y', 'mcp-server-git', '--repository', '/r'], 'git'],
    [['pipx', 'run', '--spec', 'mcp-server-time', 'mcp-server-time'], 'time'],
    [['python', '-m', 'mcp_server_time', '--local-timezone', 'UTC'], 'time'],
    [['docker', 'run', '-i', '--rm', '-e', 'TOKEN', 'ghcr.io/github/github-mcp-server:v1'], 'github'],
    [['/usr/local/bin/github-mcp-server', 'stdio'], 'github'],
  ])('%j → %s', (commandLine, name) => {
    expect(nameFromCommand(commandLine, noPackages)).toBe(name);
  });

  test('a script is known by its own name, or by its package when the name is generic', () => {
    expect(nameFromCommand(['node', 'test/fixtures/slow-server.mjs'], noPackages)).toBe('slow');
    expect(nameFromCommand(['node', '--import', 'tsx', 'weather.ts'], noPackages)).toBe('weather');
    const packages = (dir: string) => (dir === '/repos/tableau-mcp' ? 'tableau-mcp-server' : undefined);
    expect(nameFromCommand(['node', 'dist/index.js'], { cwd: '/repos/tableau-mcp', packageNameAt: packages })).toBe(
      'tableau',
    );
    // No package.json: the folder it lives in, past build folders.
    expect(nameFromCommand(['python3', '/home/me/weather/src/server.py'], noPackages)).toBe('weather');
    expect(nameFromCommand(['uv', 'run', '--with', 'mcp', '/srv/notes/main.py'], noPackages)).toBe('notes');
  });

  test('finds the package.json of a real installed server', () => {
    const script = 'node_modules/@modelcontextprotocol/server-everything/dist/index.js';
    expect(nameFromCommand(['node', script])).toBe('everything');
  });

  test('nothing specific: undefined, so the server names itself with its serverInfo', () => {
    expect(nameFromCommand(['./server'], noPackages)).toBeUndefined();
    expect(nameFromCommand(['node', '/index.js'], noPackages)).toBeUndefined();
    expect(nameFromCommand(['npx', '-y'], noPackages)).toBeUndefined();
    expect(nameFromCommand([], noPackages)).toBeUndefined();
  });
});

test('serverInfo names read as package names', () => {
  expect(nameFromPackage('mcp-servers/everything')).toBe('everything');
  expect(nameFromPackage('secure-filesystem-server')).toBe('secure-filesystem');
  expect(nameFromPackage('chrome_devtools')).toBe('chrome_devtools');
  expect(nameFromPackage('My Server!')).toBe('My-Server');
  expect(nameFromPackage('mcp')).toBeUndefined();
});

test('a remote server is named by its host, not by an address', () => {
  expect(nameFromUrl('https://mcp.linear.app/sse')).toBe('linear');
  expect(nameFromUrl('https://api.githubcopilot.com/mcp/')).toBe('githubcopilot');
  expect(nameFromUrl('https://docs.example.co/mcp')).toBe('example');
  expect(nameFromUrl('http://127.0.0.1:3000/mcp')).toBeUndefined();
  expect(nameFromUrl('http://localhost:3000/mcp')).toBeUndefined();
  expect(nameFromUrl('not a url')).toBeUndefined();
});
