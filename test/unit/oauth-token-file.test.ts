import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loginCommand } from '../../src/upstreams/oauth/login-required.js';
import { TokenFileProvider } from '../../src/upstreams/oauth/provider.js';
import {
  defaultTokenDir,
  readTokenFile,
  TokenFileError,
  tokenFilePath,
  writeTokenFile,
} from '../../src/upstreams/oauth/token-file.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-offload-token-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('the default file is per server and url, under $XDG_CONFIG_HOME (or ~/.config)', () => {
  const env = { XDG_CONFIG_HOME: '/x/config' };
  expect(defaultTokenDir(env)).toBe('/x/config/mcp-offload/oauth');
  expect(defaultTokenDir({ XDG_CONFIG_HOME: 'relative' })).toMatch(/\/\.config\/mcp-offload\/oauth$/);
  const a = tokenFilePath({ name: 'linear', url: 'https://mcp.linear.app/mcp' }, env);
  expect(a).toMatch(/^\/x\/config\/mcp-offload\/oauth\/linear-[0-9a-f]{12}\.json$/);
  expect(tokenFilePath({ name: 'linear', url: 'https://other.example/mcp' }, env)).not.toBe(a);
  expect(tokenFilePath({ name: 'a/b', url: 'https://x' }, env)).toMatch(/\/a_b-[0-9a-f]{12}\.json$/);
  expect(tokenFilePath({ name: 'x', url: 'https://x', oauth: { tokenFile: '/t/x.json' } }, env)).toBe('/t/x.json');
});

test('written whole with mode 0600 in a directory made 0700; read back; a bad file is an error naming it', () => {
  const file = join(dir, 'nested', 'tokens.json');
  writeTokenFile(file, { url: 'https://x', tokens: { access_token: 'a', token_type: 'Bearer' } });
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(statSync(join(dir, 'nested')).mode & 0o777).toBe(0o700);
  expect(readTokenFile(file).tokens?.access_token).toBe('a');
  expect(readTokenFile(join(dir, 'absent.json'))).toEqual({});
  writeFileSync(file, '{"half":');
  expect(() => readTokenFile(file)).toThrow(TokenFileError);
  expect(() => readTokenFile(file)).toThrow(`the token file ${file} is not valid JSON`);
  writeFileSync(file, '[1]');
  expect(() => readTokenFile(file)).toThrow('does not hold a JSON object');
  expect(readFileSync(file, 'utf8')).toBe('[1]');
});

test('the login command names the config file, or the --url (and --name) it was wrapped with', () => {
  const server = { name: 'linear', url: 'https://mcp.linear.app/mcp' };
  expect(loginCommand(server, { configFile: '/home/me/config.yaml' })).toBe(
    'mcp-offload login linear --config /home/me/config.yaml',
  );
  expect(loginCommand(server, { configFile: "/home/me/my config's.yaml" })).toBe(
    `mcp-offload login linear --config '/home/me/my config'\\''s.yaml'`,
  );
  expect(loginCommand(server, {})).toBe('mcp-offload login --url https://mcp.linear.app/mcp');
  expect(loginCommand(server, { cliName: 'lin' })).toBe(
    'mcp-offload login --url https://mcp.linear.app/mcp --name lin',
  );
});

test('tokens the SDK rejects are the ones it was offered: tokens another process wrote meanwhile are offered next', () => {
  const file = join(dir, 'shared.json');
  const url = 'https://mcp.example.com/mcp';
  const provider = new TokenFileProvider({ name: 'shared', url, oauth: { tokenFile: file } }, {});
  const first = { access_token: 'a1', refresh_token: 'r1', token_type: 'Bearer' };
  writeTokenFile(file, { url, tokens: first });
  expect(provider.tokens()).toEqual(first);
  // Another proxy refreshed first; this one's refresh with r1 was refused, and the SDK invalidates what it used.
  const second = { access_token: 'a2', refresh_token: 'r2', token_type: 'Bearer' };
  writeTokenFile(file, { url, tokens: second });
  provider.invalidateCredentials('tokens');
  expect(provider.tokens()).toEqual(second);
  // Rejected in turn, they are not offered again until the file changes.
  provider.invalidateCredentials('tokens');
  expect(provider.tokens()).toBeUndefined();
  writeTokenFile(file, { url, tokens: { ...second, access_token: 'a3' } });
  expect(provider.tokens()?.access_token).toBe('a3');
});
