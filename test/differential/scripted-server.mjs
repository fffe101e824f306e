#!/usr/bin/env node
// A raw MCP server for the differential harness: no SDK, so every byte it sends is the scenario's own, and every
// byte it receives is recorded as it came. It answers from a script (JSON, written by the harness):
//
//   { "http": { "answer": "json" | "sse", "sessionId": "session-1" },   (only with --http)
//     "rules": [ { "method": "tools/call", "name": "plain", "params": {...}, "once": true, "reply": [...] } ] }
//
// A message matches the first rule whose `method` (and, when given, `name`: params.name, and `params`: a partial
// deep match of the params) fits it; a `once` rule is used up by its match. `reply` is a list of actions:
//
//   "<template>"            one message to send, byte for byte, after replacing {{id}} with the request's id and
//                           {{progressToken}} with its params._meta.progressToken (both as the JSON text that parses
//                           to the value received)
//   { "waitFor": {...} }    waits until a received message matches this partial deep match (the answer to a request
//                           of ours, a notifications/cancelled, ...)
//
// A request no rule matches gets -32601 Method not found; a notification no rule matches gets nothing.
//
//   node scripted-server.mjs --script <file.json> --record <file>               stdio: one message a line
//   node scripted-server.mjs --script <file.json> --record <file> --http 0      Streamable HTTP on 127.0.0.1 (0 = any
//                                                        free port) at /mcp; prints `listening <url>` on stdout
//
// The record file gets one JSON line per thing received: {"kind":"line","text":"<the line, without its \n>"} on
// stdio; {"kind":"http","head":"POST /mcp | <header>: <value> | ...","text":"<the body>"} over HTTP (the head on one
// line, the transport's headers only).
import { appendFileSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import process from 'node:process';
import { matches } from './match.mjs';

const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const script = JSON.parse(readFileSync(option('--script'), 'utf8'));
const recordFile = option('--record');
const httpPort = option('--http');
const rules = [...script.rules];

/** The request headers worth recording: those of the MCP transport, not the HTTP client's own (user-agent, host). */
const RECORDED_HEADERS = [
  'content-type',
  'accept',
  'mcp-session-id',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'last-event-id',
];

const record = (entry) => appendFileSync(recordFile, `${JSON.stringify(entry)}\n`);

/** Messages received so far, and the waiters of `waitFor` actions. */
const received = [];
const waiters = new Set();
function deliver(message) {
  received.push(message);
  for (const waiter of waiters) waiter();
}
function waitFor(pattern) {
  return new Promise((resolve) => {
    const check = () => {
      if (!received.some((m) => matches(m, pattern))) return false;
      waiters.delete(check);
      resolve();
      return true;
    };
    if (!check()) waiters.add(check);
  });
}

const rawJson = (value) => (value === undefined ? 'null' : JSON.stringify(value));
const fill = (template, message) =>
  template
    .replaceAll('{{id}}', rawJson(message.id))
    .replaceAll('{{progressToken}}', rawJson(message.params?._meta?.progressToken));

function ruleFor(message) {
  const at = rules.findIndex(
    (rule) =>
      rule.method === message.method &&
      (rule.name === undefined || rule.name === message.params?.name) &&
      (rule.params === undefined || matches(message.params, rule.params)),
  );
  if (at < 0) return undefined;
  const rule = rules[at];
  if (rule.once) rules.splice(at, 1);
  return rule;
}

/** Plays the reply of the rule for `message` through `send` (one message text at a time). */
async function answer(message, send) {
  const rule = ruleFor(message);
  if (!rule) {
    if (message.id !== undefined)
      await send(`{"jsonrpc":"2.0","id":${rawJson(message.id)},"error":{"code":-32601,"message":"Method not found"}}`);
    return;
  }
  for (const action of rule.reply) {
    if (typeof action === 'string') await send(fill(action, message));
    else if (action.waitFor) await waitFor(action.waitFor);
    else throw new Error(`unknown action ${JSON.stringify(action)}`);
  }
}

const parse = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};
const isRequest = (m) => m?.method !== undefined && m.id !== undefined;

function serveStdio() {
  let pending = '';
  const send = (text) => new Promise((resolve) => process.stdout.write(`${text}\n`, () => resolve()));
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    pending += chunk;
    for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      record({ kind: 'line', text: line });
      const message = parse(line);
      if (message === undefined) continue;
      deliver(message);
      if (message.method !== undefined) void answer(message, send);
    }
  });
  process.stdin.on('end', () => {
    if (pending) record({ kind: 'partial-line', text: pending });
    process.exit(0);
  });
  process.stdout.on('error', () => process.exit(0));
}

function serveHttp(port) {
  const mode = script.http?.answer ?? 'json';
  const sessionId = script.http?.sessionId;
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks).toString('utf8');
    const head = [`${req.method} ${req.url}`];
    for (const name of RECORDED_HEADERS)
      if (req.headers[name] !== undefined) head.push(`${name}: ${req.headers[name]}`);
    record({ kind: 'http', head: head.join(' | '), text: body });
    if (req.method === 'DELETE') return res.writeHead(200).end();
    if (req.method !== 'POST') return res.writeHead(405, { allow: 'POST, DELETE' }).end();
    const message = parse(body);
    if (message === undefined) return res.writeHead(400).end();
    deliver(message);
    if (!isRequest(message)) {
      res.writeHead(202).end();
      if (message.method !== undefined) void answer(message, async () => undefined);
      return;
    }
    const headers = {};
    if (sessionId !== undefined && message.method === 'initialize') headers['mcp-session-id'] = sessionId;
    if (mode === 'json') {
      // One answer only: the reply's last message (notifications have no place in a JSON answer).
      let last = '';
      await answer(message, async (text) => void (last = text));
      res.writeHead(200, { ...headers, 'content-type': 'application/json' }).end(last);
      return;
    }
    res.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    await answer(message, (text) => new Promise((resolve) => res.write(`event: message\ndata: ${text}\n\n`, resolve)));
    res.end();
  });
  server.listen(Number(port), '127.0.0.1', () => {
    process.stdout.write(`listening http://127.0.0.1:${server.address().port}/mcp\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
}

if (httpPort !== undefined) serveHttp(httpPort);
else serveStdio();
