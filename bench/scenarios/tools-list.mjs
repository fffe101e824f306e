// Scenario group "tools-list": the proxy's own cost in context. Every conversation carries the tool list,
// so the bytes of `tools/list` through mcp-offload are compared with the same server's own, for real servers
// from npm. The proxy adds its two artifact tools, counted apart.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const entry = (pkg) => join(dirname(require.resolve(`${pkg}/package.json`)), 'dist', 'index.js');
const OWN_TOOLS = new Set(['artifact_list', 'artifact_read']);
const GOAL_PCT = 10;

async function listed(command, args, env) {
  const client = new Client({ name: 'bench', version: '1' }, { capabilities: {} });
  await client.connect(new StdioClientTransport({ command, args, env: { ...process.env, ...env }, stderr: 'ignore' }));
  try {
    const { tools } = await client.listTools();
    const own = tools.filter((t) => OWN_TOOLS.has(t.name));
    const theirs = tools.filter((t) => !OWN_TOOLS.has(t.name));
    return {
      bytes: JSON.stringify({ tools: theirs }).length,
      ownBytes: own.length ? JSON.stringify(own).length + 1 : 0,
      count: theirs.length,
    };
  } finally {
    await client.close();
  }
}

export default {
  name: 'tools-list',
  title: 'tools/list: bytes in every conversation',
  summaryOrder: 0,
  method: `\`tools/list\` of @modelcontextprotocol/server-filesystem (one temp directory as its root) and
@modelcontextprotocol/server-memory, each asked directly over stdio and through \`node dist/cli.js -- node <server>\` in the
default mode; bytes of \`JSON.stringify({tools})\`. The proxy's own \`artifact_list\` and \`artifact_read\` are counted apart.`,
  columns: [
    { key: 'server', label: 'server', align: 'left' },
    { key: 'tools', label: 'tools' },
    { key: 'direct', label: 'direct (bytes)' },
    { key: 'proxied', label: 'through mcp-offload (bytes)' },
    { key: 'addedPct', label: 'added', format: (v) => `${v >= 0 ? '+' : ''}${v.toFixed(1)} %` },
    { key: 'ownBytes', label: 'artifact tools (bytes)' },
  ],
  async run(ctx) {
    const root = mkdtempSync(join(tmpdir(), 'bench-fsroot-'));
    const memoryFile = join(root, 'memory.jsonl');
    const servers = [
      { server: 'server-filesystem', args: [entry('@modelcontextprotocol/server-filesystem'), root] },
      { server: 'server-memory', args: [entry('@modelcontextprotocol/server-memory')] },
    ];
    const rows = [];
    try {
      for (const { server, args } of servers) {
        const env = { MEMORY_FILE_PATH: memoryFile };
        const direct = await listed(process.execPath, args, env);
        const proxied = await listed(
          process.execPath,
          ['dist/cli.js', '--log-level', 'silent', '--artifact-dir', root, '--', process.execPath, ...args],
          env,
        );
        rows.push({
          server,
          tools: direct.count,
          direct: direct.bytes,
          proxied: proxied.bytes,
          addedPct: (100 * (proxied.bytes - direct.bytes)) / direct.bytes,
          ownBytes: proxied.ownBytes,
        });
        ctx.log(
          `  tools-list ${server}: ${direct.bytes} → ${proxied.bytes} bytes (+ ${proxied.ownBytes} for the artifact tools)`,
        );
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    return rows;
  },
  summary: (rows) => [
    {
      goal: `tools/list through the proxy at most ${GOAL_PCT} % larger than direct (artifact tools aside)`,
      measured: rows
        .map(
          (r) =>
            `${r.server} ${r.direct} → ${r.proxied} bytes (${r.addedPct >= 0 ? '+' : ''}${r.addedPct.toFixed(1)} %)`,
        )
        .join('; '),
      met: rows.every((r) => r.addedPct <= GOAL_PCT),
    },
  ],
};
