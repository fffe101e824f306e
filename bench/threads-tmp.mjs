import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { readFileSync, readdirSync } from 'node:fs';
const [cmd, ...args] = process.argv.slice(2);
const t = new StdioClientTransport({ command: cmd, args, env: process.env, stderr: 'ignore' });
const c = new Client({ name: 'x', version: '1' });
await c.connect(t);
const pid = t.pid;
const snap = () => Object.fromEntries(readdirSync(`/proc/${pid}/task`).map((tid) => {
  const s = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
  const comm = s.slice(s.indexOf('(') + 1, s.lastIndexOf(')'));
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return [tid, { comm, u: +f[11], s: +f[12] }];
}));
for (let i = 0; i < 300; i++) await c.callTool({ name: 'echo', arguments: { message: 'hello' } });
const before = snap();
const N = 5000;
for (let i = 0; i < N; i++) await c.callTool({ name: 'echo', arguments: { message: 'hello' } });
const after = snap();
let tu = 0, ts = 0;
for (const [tid, a] of Object.entries(after)) {
  const b = before[tid] ?? { u: 0, s: 0 };
  const du = a.u - b.u, ds = a.s - b.s;
  tu += du; ts += ds;
  if (du + ds > 0) console.log(tid, a.comm.padEnd(16), 'user', (du * 10 / N * 1000).toFixed(1), 'us/call  sys', (ds * 10 / N * 1000).toFixed(1), 'us/call');
}
console.log('total user', (tu * 10 / N * 1000).toFixed(1), 'sys', (ts * 10 / N * 1000).toFixed(1), 'us/call');
await c.close();
