// On stdio the proxy has one client, and the wrapped server meets it as if directly: started as that client, not
// started as the proxy and then started again. The fixture records each process's `initialize` and SIGTERM, so the
// tests count processes and see who introduced itself, from raw JSON lines the way a client writes them.
import { afterAll, afterEach, expect, test } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeArtifactDir, startCli, stopAllCli, type CliProcess } from '../helpers/cli.js';
import { FIXTURES, NODE, waitFor } from '../helpers/fixtures.js';

const dirs: string[] = [];

afterEach(async () => {
  await stopAllCli();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
afterAll(() => removeArtifactDir());

type Message = Record<string, unknown> & { id?: unknown; result?: { content?: { text?: string }[] } };
type Event = { pid: number; initialize?: string; signal?: string };

/** The CLI's arguments for the client-view fixture, from a config file with `serverKeys` (YAML lines) in its entry. */
function proxyArgs(fixtureArgs: string[], serverKeys = '') {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-offload-first-client-'));
  dirs.push(dir);
  const recordFile = join(dir, 'record.jsonl');
  const config = join(dir, 'config.yaml');
  const args = [FIXTURES.clientView, '--record', recordFile, ...fixtureArgs].map((a) => JSON.stringify(a));
  writeFileSync(
    config,
    `servers:\n  view:\n    command: ${JSON.stringify(NODE)}\n    args: [${args.join(', ')}]\n${serverKeys}`,
  );
  const events = (): Event[] =>
    existsSync(recordFile)
      ? readFileSync(recordFile, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Event)
      : [];
  return { args: ['--config', config, '--artifact-dir', join(dir, 'artifacts')], events };
}

/** The proxy over the client-view fixture, driven with raw JSON lines. */
function proxy(fixtureArgs: string[], serverKeys = '') {
  const { args, events } = proxyArgs(fixtureArgs, serverKeys);
  const cli: CliProcess = startCli(args);
  const send = (message: object) => cli.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  const answer = (id: number | string) =>
    waitFor(
      () =>
        cli
          .stdout()
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Message)
          .find((message) => message.id === id),
      20_000,
      10,
      `the answer to request ${id}`,
    );
  /** Introduces the client and asks the server who it thinks its client is. */
  const session = async () => {
    // Written as a client may write it, not as the SDK reads it back (keys in another order, `elicitation: {}`
    // for form mode): the server is started once all the same.
    send({
      id: 1,
      method: 'initialize',
      params: {
        capabilities: { elicitation: {} },
        clientInfo: { version: '3.1', name: 'first-client' },
        protocolVersion: '2025-11-25',
      },
    });
    expect(await answer(1)).toHaveProperty('result.serverInfo.name', 'client-view');
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/call', params: { name: 'client', arguments: {} } });
    const seen = JSON.parse((await answer(2))!.result!.content![0]!.text!) as { clientInfo: { name: string } };
    return seen.clientInfo;
  };
  /** A 2026-07-28 client's `server/discover`, naming it in the envelope; resolves with the envelope, once answered. */
  const probe = async (clientInfo: { name: string; version: string }, capabilities: object) => {
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': clientInfo,
      'io.modelcontextprotocol/clientCapabilities': capabilities,
    };
    send({ id: 'probe', method: 'server/discover', params: { _meta: envelope } });
    expect(await answer('probe')).toHaveProperty('result.supportedVersions', expect.arrayContaining(['2026-07-28']));
    return envelope;
  };
  /** The processes' `initialize`s, in order. */
  const introductions = () => events().filter((event) => event.initialize !== undefined);
  return { cli, send, answer, session, events, probe, introductions };
}

test("a client's initialize starts the server once, as that client", async () => {
  const { session, introductions } = proxy([]);
  expect(await session()).toEqual({ name: 'first-client', version: '3.1' });
  const initialized = introductions();
  expect(initialized).toEqual([{ pid: initialized[0]!.pid, initialize: 'first-client' }]);
});

test('a 2026-07-28 client: a legacy server is started once, as the client its server/discover names', async () => {
  // Raw lines, as the SDK's pinned client writes them: the SDK's stdio client itself starts its server twice.
  const { send, answer, probe, introductions } = proxy([]);
  const envelope = await probe({ name: 'modern-first', version: '2.0' }, { elicitation: { form: {} } });
  send({ id: 2, method: 'tools/call', params: { name: 'client', arguments: {}, _meta: envelope } });
  const seen = JSON.parse((await answer(2))!.result!.content![0]!.text!) as Record<string, unknown>;
  expect(seen).toMatchObject({
    clientInfo: { name: 'modern-first', version: '2.0' },
    capabilities: { elicitation: { form: {} } },
  });
  const initialized = introductions();
  expect(initialized).toEqual([{ pid: initialized[0]!.pid, initialize: 'modern-first' }]);
});

test('a client that comes late: the process started before it goes without its exit grace, which serves the client', async () => {
  // A grace of ten minutes on a server that ignores the end of its stdin: the client would wait that long for its
  // answer if the process that never served it were given the grace too.
  const { cli, session, events } = proxy(['--ignore-eof'], '    exitGraceMs: 600000\n');
  await cli.waitForStderr(/upstream \\?"view\\?" is up/);
  const [early] = events();
  expect(early).toEqual({ pid: early!.pid, initialize: 'mcp-offload' });

  expect(await session()).toEqual({ name: 'first-client', version: '3.1' });
  const later = events().filter((event) => event.pid !== early!.pid);
  expect(events().filter((event) => event.pid === early!.pid)).toEqual([early, { pid: early!.pid, signal: 'SIGTERM' }]);
  expect(later).toEqual([{ pid: later[0]!.pid, initialize: 'first-client' }]);
  // The process that serves the client has its ten minutes at shutdown: ended here, so the test does not wait.
  process.kill(later[0]!.pid, 'SIGTERM');
});

test('a client that probes with server/discover and then initializes: the server started for its probe serves it', async () => {
  const { probe, session, introductions } = proxy([]);
  await probe({ name: 'first-client', version: '3.1' }, { elicitation: { form: {} } });
  expect(await session()).toEqual({ name: 'first-client', version: '3.1' });
  const initialized = introductions();
  expect(initialized).toEqual([{ pid: initialized[0]!.pid, initialize: 'first-client' }]);
});

test('a client that probes and then initializes in another protocol version gets a server initialized in it', async () => {
  const { send, answer, probe, introductions } = proxy([]);
  await probe({ name: 'first-client', version: '3.1' }, {});
  send({
    id: 1,
    method: 'initialize',
    params: { capabilities: {}, clientInfo: { name: 'first-client', version: '3.1' }, protocolVersion: '2025-06-18' },
  });
  expect(await answer(1)).toHaveProperty('result.protocolVersion', '2025-06-18');
  const initialized = introductions();
  expect(initialized.map((event) => event.initialize)).toEqual(['first-client', 'first-client']);
  expect(new Set(initialized.map((event) => event.pid)).size).toBe(2);
});
