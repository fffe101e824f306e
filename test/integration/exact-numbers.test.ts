// Numbers a JavaScript number cannot hold (64-bit ids, long decimals, overflows, negative zero) keep their value
// through the proxy, both ways: over stdio (the built dist/cli.js) and HTTP (a gateway in this process), from stdio
// and Streamable HTTP servers (one that answers on an event stream cut in the middle of a number), in JSON answers and
// event streams, and in stored files.
import { readFile } from 'node:fs/promises';
import type { ChildProcess } from 'node:child_process';
import { startCli, stopAllCli, type CliProcess } from '../helpers/cli.js';
import { FIXTURES, NODE, startListening, waitFor } from '../helpers/fixtures.js';
import { startHttpGateway, type HttpGateway } from '../helpers/http-gateway.js';
import { handshake, LEGACY_PROTOCOL } from '../helpers/raw-session.js';
import { SseReader } from '../helpers/sse-reader.js';

/** What the fixture sends (exact-numbers-server.mjs), byte for byte. */
const NUMBERS =
  '{"big":12345678901234567890123,"id64":9007199254740993,"huge":1e400,"tiny":1e-400,"negativeZero":-0,' +
  '"precise":0.1000000000000000055511151231257827,"plain":42,"half":0.5,"list":[18446744073709551615,-9223372036854775808]}';
/** Arguments a client sends, as it writes them. */
const ARGUMENTS = '{"account":12345678901234567890123,"limit":1e400,"offset":-0,"ratio":0.5}';
const MODERN = '2026-07-28';

describe('stdio: numbers a double cannot hold, through `mcp-offload -- <server>`', () => {
  let cli: CliProcess;

  /** Writes a request line as given and resolves with the proxy's answer line for its id (as written). */
  async function request(id: string, method: string, params: string): Promise<string> {
    cli.child.stdin!.write(`{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${params}}\n`);
    const answered = new RegExp(`"id":${id.replace(/[.+]/g, '\\$&')}[,}]`);
    const line = await waitFor(
      () =>
        cli
          .stdout()
          .split('\n')
          .find((line) => answered.test(line)),
      10_000,
    );
    return line!;
  }

  beforeAll(async () => {
    cli = startCli(['--log-level', 'warn', '--', NODE, FIXTURES.exactNumbers]);
    const init = `{"protocolVersion":"${LEGACY_PROTOCOL}","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`;
    await request('1', 'initialize', init);
    cli.child.stdin!.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  });

  afterAll(stopAllCli);

  test('results keep them: a tool result (structuredContent and _meta), a resource, a prompt, a tool list', async () => {
    const call = await request('2', 'tools/call', '{"name":"numbers","arguments":{}}');
    expect(call).toContain(`"structuredContent":${NUMBERS}`);
    expect(call).toContain('"_meta":{"count":12345678901234567890}');
    expect(await request('3', 'resources/read', '{"uri":"exact://stdio/numbers"}')).toContain(`"_meta":${NUMBERS}`);
    expect(await request('4', 'prompts/get', '{"name":"numbers"}')).toContain(`"_meta":${NUMBERS}`);
    expect(await request('5', 'tools/list', '{}')).toContain('"maximum":18446744073709551615');
  });

  test('requests keep them: the arguments reach the server as the client wrote them, and a big id comes back', async () => {
    const id = '123456789012345678901';
    const answer = await request(id, 'tools/call', `{"name":"echo-raw","arguments":${ARGUMENTS}}`);
    const seen = (JSON.parse(answer) as { result: { content: { text: string }[] } }).result.content[0].text;
    expect(seen).toContain(`"arguments":${ARGUMENTS}`);
    expect(answer.endsWith(`"id":${id}}`) || answer.includes(`"id":${id},`)).toBe(true);
  });

  test('a structuredContent stored as a file keeps them, and a JSONPath query of the file returns them', async () => {
    const answer = JSON.parse(await request('6', 'tools/call', '{"name":"big-structured","arguments":{}}')) as {
      result: { structuredContent: { $artifact: string; path: string } };
    };
    const { $artifact: uri, path } = answer.result.structuredContent;
    expect(await readFile(path, 'utf8')).toBe(`{"rows":[${Array.from({ length: 1000 }, () => NUMBERS).join(',')}]}`);
    const query = await request(
      '7',
      'tools/call',
      `{"name":"artifact_read","arguments":{"uri":"${uri}","query":"$.rows[0].list"}}`,
    );
    const text = (JSON.parse(query) as { result: { content: { text: string }[] } }).result.content[0].text;
    expect(text).toContain('[\n  18446744073709551615,\n  -9223372036854775808\n]');
  });
});

describe('HTTP: numbers a double cannot hold, to and from stdio and Streamable HTTP servers', () => {
  let served: HttpGateway;
  let endpoint: string;
  let upstreamUrl: string;
  let upstream: ChildProcess;

  beforeAll(async () => {
    const started = await startListening(NODE, [FIXTURES.exactNumbers, '--http', '0'], /listening (http:\S+)/);
    upstream = started.child;
    upstreamUrl = started.match[1];
    served = await startHttpGateway([
      { name: 'es', command: NODE, args: [FIXTURES.exactNumbers] },
      { name: 'eh', url: upstreamUrl },
    ]);
    endpoint = served.endpoint;
  });

  afterAll(async () => {
    await served.close();
    upstream.kill('SIGTERM');
  });

  const post = async (headers: Record<string, string>, body: string) => {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body,
    });
    return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
  };

  test('a 2025-11-25 session: calls, prompts, reads and a list, answered as JSON or on an event stream', async () => {
    const session = await handshake(
      endpoint,
      (id) => ({
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(id ? { 'mcp-session-id': id } : {}),
      }),
      'raw-exact',
    );
    const headers = { 'mcp-session-id': session.id, 'mcp-protocol-version': LEGACY_PROTOCOL };
    const rpc = (id: number, method: string, params: string) =>
      post(headers, `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${params}}`);
    for (const [n, server] of [
      [10, 'es'],
      [20, 'eh'],
    ] as const) {
      const call = await rpc(n, 'tools/call', `{"name":"${server}__numbers","arguments":{}}`);
      expect(call.type).toContain('application/json');
      expect(call.text).toContain(`"structuredContent":${NUMBERS}`);
      // Answered after the POST's response has become an event stream (http/answer.ts): written as an SSE event.
      const slow = await rpc(n + 3, 'tools/call', `{"name":"${server}__numbers","arguments":{"delayMs":120}}`);
      expect(slow.type).toContain('text/event-stream');
      expect(slow.text).toContain(`"structuredContent":${NUMBERS}`);
      const echo = await rpc(n + 1, 'tools/call', `{"name":"${server}__echo-raw","arguments":${ARGUMENTS}}`);
      expect(echo.text).toContain(JSON.stringify(`"arguments":${ARGUMENTS}`).slice(1, -1));
      const prompt = await rpc(n + 2, 'prompts/get', `{"name":"${server}__numbers"}`);
      expect(prompt.text).toContain(`"_meta":${NUMBERS}`);
    }
    const listed = await rpc(30, 'resources/list', '{}');
    const uris = [...listed.text.matchAll(/"uri":"([^"]+)"/g)].map((m) => m[1]);
    // The HTTP server answers resources/read on an event stream cut in the middle of a number.
    expect(uris.sort()).toEqual(['exact://http/numbers', 'exact://stdio/numbers']);
    for (const [i, uri] of uris.entries()) {
      const read = await rpc(31 + i, 'resources/read', JSON.stringify({ uri }));
      expect(read.text).toContain(`"_meta":${NUMBERS}`);
    }
    // The merged list of both servers, each tool's schema bound as its server wrote it.
    const tools = await rpc(40, 'tools/list', '{}');
    expect(tools.text.match(/"maximum":18446744073709551615/g)).toHaveLength(2);
  });

  test('a 2025-11-25 request whose id no double holds is answered under that id, as JSON and on an event stream', async () => {
    const session = await handshake(
      endpoint,
      (id) => ({
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(id ? { 'mcp-session-id': id } : {}),
      }),
      'raw-exact-id',
    );
    const headers = { 'mcp-session-id': session.id, 'mcp-protocol-version': LEGACY_PROTOCOL };
    const bigId = '123456789012345678901';
    for (const args of ['{}', '{"delayMs":120}']) {
      const answer = await post(
        headers,
        `{"jsonrpc":"2.0","id":${bigId},"method":"tools/call","params":{"name":"eh__numbers","arguments":${args}}}`,
      );
      expect(answer.text).toMatch(new RegExp(`"id":${bigId}[,}]`));
      expect(answer.text).toContain(`"structuredContent":${NUMBERS}`);
    }
  });

  test('2026-07-28 requests: a call (its Mcp-Name plain or in Base64), a slow one, and the arguments', async () => {
    const envelope = `{"io.modelcontextprotocol/protocolVersion":"${MODERN}","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`;
    const modern = (id: number, name: string, mcpName: string, args = '{}') =>
      post(
        { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': mcpName },
        `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":${args},"_meta":${envelope}}}`,
      );
    // Mcp-Name may come in its Base64 form too (SEP-2243).
    const base64 = (name: string) => `=?base64?${Buffer.from(name).toString('base64')}?=`;
    for (const server of ['es', 'eh']) {
      const name = `${server}__numbers`;
      for (const answer of [await modern(50, name, name), await modern(51, name, base64(name))]) {
        expect(answer.status).toBe(200);
        expect(answer.text).toContain(`"structuredContent":${NUMBERS}`);
      }
      const slow = await modern(53, name, name, '{"delayMs":120}');
      expect(slow.text).toContain(`"structuredContent":${NUMBERS}`);
      const echo = await modern(52, `${server}__echo-raw`, base64(`${server}__echo-raw`), ARGUMENTS);
      expect(echo.text).toContain(JSON.stringify(`"arguments":${ARGUMENTS}`).slice(1, -1));
    }
  });

  test('a legacy SSE session (GET /sse, POST /messages): a result and the arguments the server saw', async () => {
    const base = endpoint.replace(/\/mcp$/, '');
    const stream = await fetch(`${base}/sse`, { headers: { accept: 'text/event-stream' } });
    const events = new SseReader(stream.body!);
    const messages = `${base}${(await events.next())!.data}`;
    const send = (body: string) =>
      fetch(messages, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    /** The data of the next event that answers `id`, as the proxy wrote it. */
    const answer = async (id: number) => {
      for (let event = await events.next(); event; event = await events.next()) {
        if (event.data.includes(`"id":${id}`)) return event.data;
      }
      throw new Error(`the stream ended before the answer to ${id}`);
    };
    const init = `{"protocolVersion":"${LEGACY_PROTOCOL}","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`;
    await send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":${init}}`);
    await answer(1);
    await send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    await send('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"es__numbers","arguments":{}}}');
    expect(await answer(2)).toContain(`"structuredContent":${NUMBERS}`);
    await send(
      `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"eh__echo-raw","arguments":${ARGUMENTS}}}`,
    );
    expect(await answer(3)).toContain(JSON.stringify(`"arguments":${ARGUMENTS}`).slice(1, -1));
    await events.cancel();
  });
});
