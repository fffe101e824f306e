// HttpPoster (src/fast-path/http-post.ts) against a real node:http server that answers each POST as a test scripts
// it: the headers it sends, answers cut into small pieces, streams that end early, and the HTTP and content errors
// the SDK's transport reports.
// cspell:ignore ünïcødé
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JSONRPCMessage, JSONRPCRequest } from '@modelcontextprotocol/client';
import { HttpPoster } from '../../src/fast-path/http-post.js';

type Script = (req: IncomingMessage, res: ServerResponse, body: string) => void;

let server: Server;
let url: URL;
let script: Script = (_req, res) => res.writeHead(500).end();
const seen: Array<{ method?: string; headers: IncomingMessage['headers']; body: string }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      seen.push({ method: req.method, headers: req.headers, body });
      script(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const request: JSONRPCRequest = { jsonrpc: '2.0', id: 'mcp-offload-1', method: 'tools/call', params: { name: 'x' } };

function poster(handedOver: JSONRPCRequest[] = []) {
  const delivered: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  const post = new HttpPoster(
    url,
    { 'X-Team': 'blue', Accept: 'application/x-ndjson' },
    () => ({ sessionId: 'session-7', protocolVersion: '2025-11-25' }),
    (message) => delivered.push(message),
    (error) => errors.push(error),
    async (message) => void handedOver.push(message),
  );
  return { post, delivered, errors };
}

const answer = { jsonrpc: '2.0', id: 'mcp-offload-1', result: { content: [{ type: 'text', text: 'ünïcødé ✓' }] } };

test('the POST carries the connection headers; an SSE answer cut mid-character arrives whole, after what precedes it', async () => {
  script = (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    const log = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'first' } };
    const bytes = Buffer.from(
      `: comment\n\nid: 1\ndata: ${JSON.stringify(log)}\n\ndata: ${JSON.stringify(answer)}\n\n`,
    );
    let at = 0;
    const next = () => {
      if (at >= bytes.length) return void res.end();
      res.write(bytes.subarray(at, at + 7)); // 7-byte pieces split the two-byte and three-byte characters
      at += 7;
      setImmediate(next);
    };
    next();
  };
  const { post, delivered, errors } = poster();
  await post.post(request);
  expect(delivered).toEqual([
    { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'first' } },
    answer,
  ]);
  expect(errors).toEqual([]);
  const { headers, body } = seen.at(-1)!;
  expect(JSON.parse(body)).toEqual(request);
  expect(headers).toMatchObject({
    'content-type': 'application/json',
    'mcp-session-id': 'session-7',
    'mcp-protocol-version': '2025-11-25',
    'x-team': 'blue',
    accept: 'application/x-ndjson, application/json, text/event-stream',
  });
  expect(headers['user-agent']).toBeUndefined();
  post.close();
});

test('a JSON answer is delivered; JSON that holds no answer to the request rejects', async () => {
  script = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  const ok = poster();
  await ok.post.post(request);
  expect(ok.delivered).toEqual([answer]);
  ok.post.close();

  script = (_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...answer, id: 'other' }));
  const wrong = poster();
  await expect(wrong.post.post(request)).rejects.toThrow('holds no answer');
  wrong.post.close();
});

test('an HTTP error rejects as the SDK reports it, with status and text, and is told to onerror', async () => {
  script = (_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('the database is down');
  const { post, errors } = poster();
  const failure = await post.post(request).catch((error: unknown) => error);
  expect(String(failure)).toContain('Error POSTing to endpoint: the database is down');
  expect(failure).toMatchObject({ status: 500, data: { status: 500, text: 'the database is down' } });
  expect(errors).toEqual([failure]);
  post.close();
});

test('a redirect, 401 and 403 are handed over unsent-to; an unexpected content type rejects', async () => {
  for (const status of [307, 401, 403]) {
    script = (_req, res) => res.writeHead(status, { location: '/elsewhere' }).end();
    const handedOver: JSONRPCRequest[] = [];
    const { post, delivered } = poster(handedOver);
    await post.post(request);
    expect(handedOver).toEqual([request]);
    expect(delivered).toEqual([]);
    post.close();
  }
  script = (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>');
  const { post, errors } = poster();
  await expect(post.post(request)).rejects.toThrow('Unexpected content type: text/html');
  expect(errors).toHaveLength(1);
  post.close();
});

test('a stream that ends before the answer rejects; after an event id it is resumed with Last-Event-ID', async () => {
  script = (_req, res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end('data: \n\n');
  const bare = poster();
  await expect(bare.post.post(request)).rejects.toThrow('ended the stream of a request before answering it');
  bare.post.close();

  script = (req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (req.method === 'POST') return void res.end('id: e-1\nretry: 10\ndata: \n\n');
    res.end(`id: e-2\ndata: ${JSON.stringify(answer)}\n\n`);
  };
  const resumed = poster();
  const before = seen.length;
  await resumed.post.post(request);
  expect(resumed.delivered).toEqual([answer]);
  const resume = seen.slice(before).find((s) => s.method === 'GET')!;
  expect(resume.headers).toMatchObject({ 'last-event-id': 'e-1', accept: 'text/event-stream' });
  resumed.post.close();

  // A server that will not resume: GET refused.
  script = (req, res) => {
    if (req.method === 'GET') return void res.writeHead(405).end();
    res.writeHead(200, { 'content-type': 'text/event-stream' }).end('id: e-1\nretry: 10\ndata: \n\n');
  };
  const refused = poster();
  await expect(refused.post.post(request)).rejects.toThrow('resuming the stream of a request failed (HTTP 405)');
  refused.post.close();
});

test('closing rejects what is pending, once, without telling onerror', async () => {
  script = (_req, res) => void res.writeHead(200, { 'content-type': 'text/event-stream' }).write(': waiting\n\n');
  const { post, errors } = poster();
  const pending = post.post(request);
  await new Promise((resolve) => setTimeout(resolve, 50));
  post.close();
  await expect(pending).rejects.toThrow();
  expect(errors).toEqual([]);
  await expect(post.post(request)).rejects.toThrow('Connection closed');
});
