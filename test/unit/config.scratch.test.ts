import { parseConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/config/types.js';
const show = (t: string, env: NodeJS.ProcessEnv = {}) => {
  try { return JSON.stringify(parseConfig(t, 'c.yaml', env).servers.map(s => ({...s, source: undefined, tools: undefined}))); } catch (e) { return e instanceof ConfigError ? e.message : String(e); }
};
test('scratch', () => {
  const out: string[] = [];
  out.push(show(`servers:\n  a:\n    url: "\${BASE}/mcp"\n    headers: {Authorization: "Bearer \${TOK:-none}"}\n    type: sse\n    prefix: false\n  '1': {command: "$$HOME", args: [--port, 8080], restart: {initialDelayMs: 60000}}\n`, {BASE: 'http://h:1'}));
  out.push(show(`servers:\n`));
  out.push(show(`servers:\n  a:\n    command:\n    args:\n    env: {X: }\n    restart: {maxRetry: 1}\n    tools: {allow: [""], deny: "x"}\n`));
  out.push(show(`servers:\n  a: {command: x}\n  a: {command: y}\n`));
  out.push(show(`x: &d {command: x, timeoutMs: 5}\nservers:\n  a: *d\n  __proto__: {command: y, prefix: ""}\n  b: {url: "http://[bad", type: stdio}\n`));
  out.push(show(`{\n\t"mcpServers": {\n\t\t"x": {"command": "npx", "disabled": true}\n\t}\n}\n`));
  out.push(show(`servers: {a: {command: x, args: ["\${A", "\${1A}", "\${A:-\${B}}"]}}\n`));
  out.push(show(`defaults: {timeoutMs: 5, whenDown: wait, enabled: false, restart: {maxRetries: 3}}\nservers: {a: {command: x}, b: {command: y, timeoutMs: 7, restart: {maxDelayMs: 100}, enabled: true}}\nhttp: {port: "\${PORT:-0}"}\n`));
  out.push(show(`servers: {a: {url: "ftp://x"}, b: {url: "http://x", type: http, transport: sse}, c: {url: "http://x", type: http, args: [], cwd: "."}}\n`));
  out.push(show(`servers:\n  a:\n    command: x\n    Timeout: 5\n    restart: {maxretries: 1, foo: 2}\n    tool: {}\nservrs: {}\n`));
  console.error(out.join('\n-----\n'));
});
