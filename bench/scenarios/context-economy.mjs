// Scenario group "context-economy": what the proxy does to the context of real servers' ordinary calls. A scripted
// list of realistic calls per server (SERVERS below), each made once straight to the server and once through
// `node dist/cli.js -- <server>` (default settings), by an SDK v1 client over stdio in a worker of its own per server
// (bench/lib/economy-worker.mjs; fixtures: bench/lib/economy-fixtures.mjs). Per call: the bytes of the result's JSON
// both ways, the artifacts stored, the image previews (format, size, dimensions), whether the result grew and
// whether anything below the floor (minOffloadBytes) was stored. The context-economy issue's (#33) goals: zero grown
// results, zero tiny offloads, previews within 256 KB and the 1568 px edge, tall pages readable.
//
// Environment: BENCH_ECONOMY_SERVERS=filesystem,memory,everything,sqlite,chrome-devtools,playwright (which servers),
//              BENCH_ECONOMY_CHROMIUM=/usr/bin/chromium (the browser of chrome-devtools-mcp and @playwright/mcp;
//              default: /usr/bin/chromium, else `chromium` on PATH; without one both browser servers are skipped),
//              BENCH_ECONOMY_TALL=102066 (height in px of @playwright/mcp's very tall page, the issue's case),
//              BENCH_ECONOMY_CLIENT=mcp-offload-bench (the clientInfo.name sent: its budget sets the limits;
//              claude-code, claude-ai or codex for theirs, see src/pipeline/client-budgets.ts),
//              BENCH_ECONOMY_TRANSPORT=wire (how the client reads stdio: "wire", mcp-offload's own reader, or "sdk",
//              the SDK's StdioClientTransport, quadratic in the message size: about 45 s more for the tall page).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as fmt from '../lib/format.mjs';
import { CONTEXT_ECONOMY, goalNotes } from '../lib/goals.mjs';
import { prose, random } from '../lib/economy-fixtures.mjs';

const require = createRequire(import.meta.url);
const packageDir = (pkg) => dirname(require.resolve(`${pkg}/package.json`));
const NODE = process.execPath;

/** The floor (src/pipeline/settings.ts, minOffloadBytes) and the preview limits (keepInline) of the defaults. */
export const FLOOR = 512;
export const PREVIEW_MAX_BYTES = 256 * 1024;
export const EDGE_MAX = 1568;
/** A tall page's preview narrower than this is not readable (it was 20 px wide for 1280×102066). */
export const READABLE_WIDTH = 600;

/** A long text for echo: about 60 000 characters of prose, over the default 40 000-character budget. */
const longText = () => prose(random(21), 9000);

/** 300 people with three observations each, for a bigger graph. */
const people = () =>
  Array.from({ length: 300 }, (_, i) => ({
    name: `Person ${i + 1}`,
    entityType: i % 3 ? 'engineer' : 'manager',
    observations: [
      `Works in team ${i % 12}`,
      `Joined in ${2015 + (i % 10)}`,
      `Speaks ${['German', 'French', 'Dutch'][i % 3]}`,
    ],
  }));

/**
 * The servers and their calls, in order. A server: `name` (the row's), `package`, `command(env)` → [command, ...args]
 * (env: the worker's paths, `modeDir` a fresh folder per mode), `browser` (needs chromium and the site), `calls`:
 * [{ tool, label?, args?: object | (env) => object, timeoutMs? }]. env: { project: paths of makeProject, db, base (the
 * site's URL), tall (BENCH_ECONOMY_TALL), chromium, modeDir }.
 */
export const SERVERS = [
  {
    name: 'filesystem',
    package: '@modelcontextprotocol/server-filesystem',
    command: (env) => [NODE, join(packageDir('@modelcontextprotocol/server-filesystem'), 'dist', 'index.js'), env.root],
    calls: [
      { tool: 'list_directory', args: (env) => ({ path: env.root }) },
      { tool: 'directory_tree', label: 'directory_tree (192 entries)', args: (env) => ({ path: env.project.src }) },
      { tool: 'get_file_info', args: (env) => ({ path: env.project.export }) },
      {
        tool: 'read_text_file',
        label: 'read_text_file notes.txt (52 B)',
        args: (env) => ({ path: env.project.notes }),
      },
      {
        tool: 'read_text_file',
        label: 'read_text_file README.md (2 KB)',
        args: (env) => ({ path: env.project.readme }),
      },
      {
        tool: 'read_text_file',
        label: 'read_text_file orders-export.json (688 KB)',
        args: (env) => ({ path: env.project.export }),
      },
      {
        tool: 'read_text_file',
        label: 'read_text_file orders-export.json head 40',
        args: (env) => ({ path: env.project.export, head: 40 }),
      },
      { tool: 'read_media_file', label: 'read_media_file icon.png 64×64', args: (env) => ({ path: env.project.icon }) },
      {
        tool: 'read_media_file',
        label: 'read_media_file dashboard.png 2560×1600',
        args: (env) => ({ path: env.project.dashboard }),
      },
      {
        tool: 'read_media_file',
        label: 'read_media_file scan.png 2480×3508 gray',
        args: (env) => ({ path: env.project.scan }),
      },
      { tool: 'search_files', label: 'search_files *.ts', args: (env) => ({ path: env.root, pattern: '**/*.ts' }) },
    ],
  },
  {
    name: 'memory',
    package: '@modelcontextprotocol/server-memory',
    command: () => [NODE, join(packageDir('@modelcontextprotocol/server-memory'), 'dist', 'index.js')],
    env: (env) => ({ MEMORY_FILE_PATH: join(env.modeDir, 'memory.jsonl') }),
    calls: [
      {
        tool: 'create_entities',
        label: 'create_entities (3)',
        args: {
          entities: [
            { name: 'Ada', entityType: 'person', observations: ['Leads the billing team'] },
            { name: 'Billing', entityType: 'team', observations: ['Owns invoices and refunds'] },
            { name: 'Orders service', entityType: 'system', observations: ['Written in TypeScript'] },
          ],
        },
      },
      {
        tool: 'create_relations',
        args: {
          relations: [
            { from: 'Ada', to: 'Billing', relationType: 'leads' },
            { from: 'Billing', to: 'Orders service', relationType: 'owns' },
          ],
        },
      },
      { tool: 'create_entities', label: 'create_entities (300)', args: () => ({ entities: people() }) },
      { tool: 'search_nodes', label: 'search_nodes "Ada"', args: { query: 'Ada' } },
      { tool: 'open_nodes', args: { names: ['Ada', 'Billing'] } },
      { tool: 'read_graph', label: 'read_graph (303 entities)' },
    ],
  },
  {
    name: 'everything',
    package: '@modelcontextprotocol/server-everything',
    command: () => [NODE, join(packageDir('@modelcontextprotocol/server-everything'), 'dist', 'index.js'), 'stdio'],
    calls: [
      { tool: 'echo', label: 'echo "hello"', args: { message: 'hello' } },
      { tool: 'echo', label: 'echo 60 000 chars', args: () => ({ message: longText() }) },
      { tool: 'get-sum', args: { a: 2, b: 3 } },
      { tool: 'get-tiny-image' },
      {
        tool: 'get-annotated-message',
        label: 'get-annotated-message + image',
        args: { messageType: 'success', includeImage: true },
      },
      { tool: 'get-annotated-message', label: 'get-annotated-message error', args: { messageType: 'error' } },
      {
        tool: 'get-resource-reference',
        label: 'get-resource-reference text',
        args: { resourceType: 'Text', resourceId: 1 },
      },
      {
        tool: 'get-resource-reference',
        label: 'get-resource-reference blob',
        args: { resourceType: 'Blob', resourceId: 2 },
      },
      { tool: 'get-resource-links', label: 'get-resource-links (5)', args: { count: 5 } },
      { tool: 'get-structured-content', args: { location: 'New York' } },
      {
        tool: 'gzip-file-as-resource',
        label: 'gzip-file-as-resource 40 KB as resource',
        args: () => ({
          name: 'report.txt.gz',
          data: `data:text/plain;base64,${Buffer.from(prose(random(31), 6500)).toString('base64')}`,
          outputType: 'resource',
        }),
      },
    ],
  },
  {
    name: 'sqlite',
    package: '@bytebase/dbhub',
    command: (env) => [
      NODE,
      join(packageDir('@bytebase/dbhub'), 'dist', 'index.js'),
      '--transport',
      'stdio',
      '--dsn',
      `sqlite://${env.db}`,
    ],
    calls: [
      {
        tool: 'search_objects',
        label: 'search_objects tables',
        args: { object_type: 'table', detail_level: 'summary' },
      },
      {
        tool: 'search_objects',
        label: 'search_objects tables full',
        args: { object_type: 'table', detail_level: 'full' },
      },
      { tool: 'execute_sql', label: 'count(*) of orders', args: { sql: 'SELECT COUNT(*) AS n FROM orders' } },
      { tool: 'execute_sql', label: '20 customers', args: { sql: 'SELECT * FROM customers LIMIT 20' } },
      { tool: 'execute_sql', label: '4000 orders', args: { sql: 'SELECT * FROM orders' } },
      {
        tool: 'execute_sql',
        label: 'revenue by country',
        args: {
          sql: 'SELECT c.country, COUNT(*) AS orders, ROUND(SUM(o.total), 2) AS revenue FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.country ORDER BY revenue DESC',
        },
      },
      {
        tool: 'execute_sql',
        label: '10 products, base64 PNG column',
        args: { sql: 'SELECT id, name, price, thumbnail FROM products LIMIT 10' },
      },
      {
        tool: 'execute_sql',
        label: '1 product, PNG BLOB column',
        args: { sql: 'SELECT id, name, photo FROM products LIMIT 1' },
      },
    ],
  },
  {
    name: 'chrome-devtools',
    package: 'chrome-devtools-mcp',
    browser: true,
    // As test/helpers/third-party.ts starts it: headless Debian chromium, a throwaway profile, one page.
    command: (env) => [
      NODE,
      join(packageDir('chrome-devtools-mcp'), 'build', 'src', 'bin', 'chrome-devtools-mcp.js'),
      '--headless',
      '--isolated',
      '--executablePath',
      env.chromium,
      '--chromeArg=--no-sandbox',
      '--chromeArg=--disable-gpu',
      '--chromeArg=--no-first-run',
      '--usageStatistics=false',
      '--performanceCrux=false',
      '--viewport',
      '1280x720',
      '--no-page-id-routing',
    ],
    env: () => ({ CI: '1', CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS: '1' }),
    calls: [
      { tool: 'navigate_page', label: 'navigate_page /article', args: (env) => ({ url: `${env.base}/article` }) },
      { tool: 'take_snapshot' },
      { tool: 'take_screenshot', label: 'take_screenshot viewport' },
      { tool: 'take_screenshot', label: 'take_screenshot fullPage /article', args: { fullPage: true } },
      {
        tool: 'navigate_page',
        label: 'navigate_page tall 1280×20000',
        args: (env) => ({ url: `${env.base}/sparse/20000` }),
      },
      { tool: 'take_screenshot', label: 'take_screenshot fullPage 1280×20000', args: { fullPage: true } },
    ],
  },
  {
    name: 'playwright',
    package: '@playwright/mcp',
    browser: true,
    // As test/helpers/third-party.ts starts it: headless Debian chromium, an in-memory profile, its files in modeDir.
    command: (env) => [
      NODE,
      join(packageDir('@playwright/mcp'), 'cli.js'),
      '--headless',
      '--isolated',
      '--browser',
      'chromium',
      '--executable-path',
      env.chromium,
      '--no-sandbox',
      '--viewport-size',
      '1280x720',
      '--output-dir',
      env.modeDir,
      // A screenshot of a page 100 000 px tall takes longer than the default 5 s on a small machine.
      '--timeout-action',
      '120000',
    ],
    calls: [
      { tool: 'browser_navigate', label: 'browser_navigate /article', args: (env) => ({ url: `${env.base}/article` }) },
      { tool: 'browser_snapshot' },
      { tool: 'browser_take_screenshot', label: 'browser_take_screenshot viewport', args: { type: 'png' } },
      {
        tool: 'browser_take_screenshot',
        label: 'browser_take_screenshot fullPage /article',
        args: { type: 'png', fullPage: true },
      },
      {
        tool: 'browser_navigate',
        label: 'browser_navigate very tall page',
        args: (env) => ({ url: `${env.base}/dense/${env.tall}` }),
        timeoutMs: 120_000,
      },
      {
        tool: 'browser_take_screenshot',
        label: 'browser_take_screenshot fullPage very tall',
        args: { type: 'png', fullPage: true },
        timeoutMs: 180_000,
        tall: true,
      },
    ],
  },
];

const SERVER_NAMES = SERVERS.map((s) => s.name);

function serversFromEnv(env) {
  const raw = env.BENCH_ECONOMY_SERVERS;
  if (!raw) return SERVERS;
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !SERVER_NAMES.includes(n));
  if (unknown.length)
    throw new Error(
      `BENCH_ECONOMY_SERVERS names unknown server(s): ${unknown.join(', ')} (known: ${SERVER_NAMES.join(', ')})`,
    );
  return SERVERS.filter((s) => names.includes(s.name));
}

function chromiumFromEnv(env) {
  if (env.BENCH_ECONOMY_CHROMIUM)
    return existsSync(env.BENCH_ECONOMY_CHROMIUM) ? env.BENCH_ECONOMY_CHROMIUM : undefined;
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  for (const dir of (env.PATH ?? '').split(':'))
    if (dir && existsSync(join(dir, 'chromium'))) return join(dir, 'chromium');
  return undefined;
}

/** "webp 1254×1568, 93.1 KiB (of 1280×102066)" for each image the client got in place of the server's. */
function previewText(row) {
  if (row.error) return `error: ${row.error}`;
  const parts = (row.previews ?? []).map(
    (p) =>
      `${p.format}${p.gray ? ' gray' : ''} ${p.width}×${p.height}, ${fmt.bytes(p.base64)}${p.of ? ` (of ${p.of.width}×${p.of.height})` : ''}`,
  );
  if (row.inlineImages) parts.push(`${row.inlineImages} image${row.inlineImages > 1 ? 's' : ''} as sent`);
  return parts.length ? parts.join('; ') : '—';
}

const yesNo = (v) => (v === undefined ? '—' : v ? '**yes**' : 'no');
const measured = (rows) => rows.filter((r) => !r.error);
const previews = (rows) => rows.flatMap((r) => (r.previews ?? []).map((p) => ({ ...p, row: r })));
const where = (r) => `${r.server} ${r.label}`;

function summary(rows) {
  const ok = measured(rows);
  const grown = ok.filter((r) => r.grew);
  const tiny = ok.filter((r) => r.tiny.length);
  const shown = previews(ok);
  const overBytes = shown.filter((p) => p.base64 > PREVIEW_MAX_BYTES);
  const overEdge = shown.filter((p) => Math.max(p.width, p.height) > EDGE_MAX);
  const tall = shown.filter((p) => p.of && p.of.height >= 4 * p.of.width);
  const unreadable = tall.filter((p) => p.width < READABLE_WIDTH);
  const direct = ok.reduce((n, r) => n + r.directBytes, 0);
  const proxy = ok.reduce((n, r) => n + r.proxyBytes, 0);
  const failed = rows.filter((r) => r.error);
  const of = `of ${ok.length} calls on ${new Set(ok.map((r) => r.server)).size} servers${failed.length ? ` (${failed.length} failed: ${failed.map(where).join(', ')})` : ''}`;
  const largest = shown.reduce((a, p) => (p.base64 > (a?.base64 ?? -1) ? p : a), undefined);
  const budget = ok.find((r) => r.budget !== undefined)?.budget;
  const overBudget = budget ? ok.filter((r) => r.proxyBytes > budget) : [];
  const biggest = ok.reduce((a, r) => (r.proxyBytes > (a?.proxyBytes ?? -1) ? r : a), undefined);
  return [
    {
      issue: CONTEXT_ECONOMY,
      goal: "Context economy: zero grown results (a result through the proxy larger than the server's own)",
      measured: grown.length
        ? `${grown.length} ${of} grew: ${grown.map((r) => `${where(r)} ${r.directBytes} → ${r.proxyBytes} B`).join(', ')}`
        : `none grew, ${of}`,
      met: ok.length ? grown.length === 0 : undefined,
    },
    {
      issue: CONTEXT_ECONOMY,
      goal: `Context economy: zero tiny offloads (nothing below minOffloadBytes, ${FLOOR} B as sent, stored or linked)`,
      measured: tiny.length
        ? `${tiny.length} ${of}: ${tiny.map((r) => `${where(r)} (${r.tiny.map((t) => `${t.source} ${t.sent} B`).join(', ')})`).join('; ')}`
        : `none, ${of} (${ok.reduce((n, r) => n + r.artifacts, 0)} artifacts stored, smallest ${fmt.exactBytes(Math.min(...ok.flatMap((r) => r.artifactSent ?? [])))} as sent)`,
      met: ok.length ? tiny.length === 0 : undefined,
    },
    {
      issue: CONTEXT_ECONOMY,
      goal: `Context economy: every image preview within ${fmt.bytes(PREVIEW_MAX_BYTES)} of base64 and the ${EDGE_MAX} px edge`,
      measured: shown.length
        ? `${shown.length} previews; largest ${largest ? `${fmt.bytes(largest.base64)} (${where(largest.row)})` : '—'}, longest edge ${Math.max(...shown.map((p) => Math.max(p.width, p.height)))} px` +
          (overBytes.length || overEdge.length
            ? `; over: ${[...new Set([...overBytes, ...overEdge])].map((p) => `${where(p.row)} ${p.width}×${p.height} ${fmt.bytes(p.base64)}`).join(', ')}`
            : '')
        : 'no image was previewed',
      met: shown.length ? overBytes.length === 0 && overEdge.length === 0 : undefined,
    },
    {
      issue: CONTEXT_ECONOMY,
      goal: `Context economy: every result through the proxy within the client's whole-result budget (${budget ? fmt.bytes(budget) : 'none'} for ${ok[0]?.client ?? 'the client'})`,
      measured: overBudget.length
        ? `over: ${overBudget.map((r) => `${where(r)} ${fmt.exactBytes(r.proxyBytes)}`).join(', ')}`
        : `largest ${biggest ? `${fmt.exactBytes(biggest.proxyBytes)} (${where(biggest)})` : '—'}`,
      met: ok.length && budget ? overBudget.length === 0 : undefined,
    },
    {
      issue: CONTEXT_ECONOMY,
      goal: `Context economy: tall full-page screenshots previewed readably (preview width ≥ ${READABLE_WIDTH} px)`,
      measured: tall.length
        ? tall.map((p) => `${where(p.row)}: ${p.width}×${p.height} of ${p.of.width}×${p.of.height}`).join(', ')
        : 'no tall screenshot was previewed (browser servers skipped?)',
      met: tall.length ? unreadable.length === 0 : undefined,
    },
    {
      issue: CONTEXT_ECONOMY,
      goal: 'Context economy: bytes of all results, direct → through the proxy',
      measured: `${fmt.bytes(direct)} → ${fmt.bytes(proxy)} (${fmt.percent((100 * proxy) / direct)}), ${of}; ${ok.filter((r) => r.kept === 'as sent').length} passed byte for byte`,
      met: undefined,
    },
  ];
}

export default {
  name: 'context-economy',
  title: 'Context economy of real servers',
  summaryOrder: 1,

  method: `Each server below, started as its users start it, gets the same scripted calls twice, from a fresh process
each time: **direct** (an SDK v1 \`Client\` spawning the server) and **proxy** (the same client spawning
\`node dist/cli.js --log-level warn --artifact-dir <fresh temp dir> -- <the server's command>\`, default settings). The client
reads stdio through mcp-offload's own reader (\`ProcessWire\`, bench/lib/wire-transport.mjs; \`BENCH_ECONOMY_TRANSPORT=sdk\`:
the SDK's \`StdioClientTransport\`, whose reader is quadratic in the message size, about 45 s more for the tall page):
the bytes are the same either way.
One worker per server (bench/lib/economy-worker.mjs); the files, database and web pages are made afresh and
deterministically (bench/lib/economy-fixtures.mjs): a project folder for server-filesystem (a 688 KB JSON export, a
2560×1600 dashboard PNG, a 2480×3508 grayscale scan, a source tree), a shop's SQLite database for
[DBHub](https://github.com/bytebase/dbhub) (\`@bytebase/dbhub\`, SQLite through Node's own \`node:sqlite\`: no native build),
and pages on 127.0.0.1 for chrome-devtools-mcp and @playwright/mcp (headless Debian chromium, 1280×720 viewport):
an article, a 1280×20000 page and a very tall one of text (1280×\`BENCH_ECONOMY_TALL\`, 102066 px by default, the issue's case).
The client's \`clientInfo.name\` is \`BENCH_ECONOMY_CLIENT\` (default \`mcp-offload-bench\`, an unknown client: the default budget
of 40 000 characters of text and 1 MiB per result).

- **direct**, **proxy**: bytes of the result's JSON as the client received it (\`JSON.stringify\` of the JSON-RPC \`result\`,
  UTF-8; through the proxy with its \`_meta["mcp-offload/artifacts"]\`, as the proxy itself measures a result).
- **proxy ÷ direct**; **kept**: \`as sent\` when the proxy's result is the server's byte for byte, \`rewritten\` when the
  proxy changed it, \`differs\` when it stored nothing but the two runs' results differ (the server's output varies).
- **artifacts**: entries of \`_meta["mcp-offload/artifacts"]\`.
- **preview**: each image block the client got in place of the server's: format, dimensions, base64 size, and the stored
  image's own dimensions; \`as sent\`: images that passed unchanged.
- **grew**: proxy > direct. **tiny**: an artifact whose payload, as the server sent it, was under the floor
  (\`minOffloadBytes\`, ${FLOOR} B): its UTF-8 bytes for text (text/*, JSON, XML...), else its base64 length, 4⌈size/3⌉.`,

  columns: [
    { key: 'server', label: 'server', align: 'left' },
    { key: 'label', label: 'call', align: 'left' },
    { key: 'directBytes', label: 'direct', format: (v, r) => (r.error ? '—' : fmt.exactBytes(v)) },
    { key: 'proxyBytes', label: 'proxy', format: (v, r) => (r.error ? '—' : fmt.exactBytes(v)) },
    { key: 'ratio', label: 'proxy ÷ direct', format: (v) => (Number.isFinite(v) ? fmt.percent(100 * v) : '—') },
    { key: 'kept', label: 'kept', align: 'left' },
    { key: 'artifacts', label: 'artifacts' },
    { key: 'previews', label: 'preview', align: 'left', format: (_, r) => previewText(r) },
    { key: 'grew', label: 'grew', align: 'left', format: yesNo },
    { key: 'tiny', label: 'tiny', align: 'left', format: (v) => (v ? yesNo(v.length > 0) : '—') },
  ],

  async run(ctx) {
    const servers = serversFromEnv(ctx.env);
    const chromium = chromiumFromEnv(ctx.env);
    const tall = Number(ctx.env.BENCH_ECONOMY_TALL || 102066);
    if (!Number.isInteger(tall) || tall < 1000)
      throw new Error(`BENCH_ECONOMY_TALL must be an integer of at least 1000, got "${ctx.env.BENCH_ECONOMY_TALL}"`);
    const client = ctx.env.BENCH_ECONOMY_CLIENT || 'mcp-offload-bench';
    const transport = ctx.env.BENCH_ECONOMY_TRANSPORT || 'wire';
    if (!['wire', 'sdk'].includes(transport))
      throw new Error(`BENCH_ECONOMY_TRANSPORT must be wire or sdk, got "${transport}"`);
    // The whole-result budget the proxy holds this client to (0: none), from the build the bench runs.
    const { budgetFor } = await import(pathToFileURL(join(ctx.root, 'dist', 'pipeline', 'client-budgets.js')).href);
    const budget = budgetFor({ name: client, version: '1.0.0' }).resultBytes || undefined;
    const rows = [];
    for (const server of servers) {
      if (server.browser && !chromium) {
        ctx.warn(`${server.name}: no chromium (BENCH_ECONOMY_CHROMIUM, /usr/bin/chromium or PATH): skipped`);
        continue;
      }
      const tmp = ctx.makeTempDir(`mcp-offload-bench-economy-${server.name}-`);
      try {
        const out = await ctx.runWorker(
          {
            label: `context-economy ${server.name}`,
            ...{ root: ctx.root, tmp, server: server.name, chromium, tall, client, transport },
          },
          { script: 'economy-worker.mjs', timeoutMs: 10 * 60_000 },
        );
        for (const call of out.calls) rows.push({ server: server.name, ...call, client, budget });
        ctx.log(
          `${server.name}: ${out.calls.length} calls, direct ${fmt.ms(out.ms.direct)}, proxy ${fmt.ms(out.ms.proxy)}`,
        );
      } finally {
        ctx.removeTempDir(tmp);
      }
    }
    return rows;
  },

  notes(rows) {
    const lines = goalNotes(summary(rows));
    const packages = [...new Set(rows.map((r) => r.server))].map((name) => {
      const s = SERVERS.find((x) => x.name === name);
      return `\`${name}\`: ${s.package}@${require(`${s.package}/package.json`).version}`;
    });
    lines.push('', `Servers: ${packages.join(', ')}.`);
    const stored = rows.filter((r) => r.stored?.length);
    if (stored.length) {
      lines.push('', 'What was stored (artifact: MIME type, size, where it was in the result):', '');
      for (const r of stored)
        lines.push(
          `- ${r.server} ${r.label}: ${r.stored.map((a) => `${a.mimeType} ${fmt.exactBytes(a.size)} from \`${a.source}\``).join('; ')}`,
        );
    }
    const slow = rows.filter((r) => !r.error && r.ms.proxy - r.ms.direct > 250);
    if (slow.length) {
      lines.push(
        '',
        'Calls the proxy made more than 250 ms slower (one run each, not a timing benchmark; time of the call, direct / proxy): ' +
          slow.map((r) => `${r.server} ${r.label} ${fmt.ms(r.ms.direct)} / ${fmt.ms(r.ms.proxy)}`).join('; ') +
          '.',
      );
    }
    const odd = rows.filter((r) => r.note);
    if (odd.length) {
      lines.push('', 'Remarks:', '');
      for (const r of odd) lines.push(`- ${r.server} ${r.label}: ${r.note}`);
    }
    return lines.join('\n');
  },

  summary,
};
