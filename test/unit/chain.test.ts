// The relay's interceptor chain (src/relay/chain.ts): interceptors run outermost first around the terminal, a
// request passes only those that take its kind (method, and whether a client or an upstream sent it), and the
// notifications only those that hear theirs; every kind is served, however many a peer invents.
import { describe, expect, test } from '@jest/globals';
import { Call, type Party } from '../../src/relay/call.js';
import { compose, type Interceptor } from '../../src/relay/chain.js';
import { Note } from '../../src/relay/note.js';
import { Frame } from '../../src/wire/frame.js';

const client = { side: 'client' } as unknown as Party;
const upstream = { side: 'server' } as unknown as Party;

/** An interceptor that records that it ran, and passes the message on. */
function recorder(name: string, seen: string[], filter?: Pick<Interceptor, 'takes' | 'hears'>): Interceptor {
  return {
    name,
    ...filter,
    request(call, next) {
      seen.push(name);
      return next(call);
    },
    notification(note, next) {
      seen.push(name);
      next(note);
    },
  };
}

function chainOf(interceptors: Interceptor[], seen: string[]) {
  return compose(interceptors, {
    request: async (call) => {
      seen.push('terminal');
      return Frame.result(call.received.id!, {});
    },
    notification: () => seen.push('terminal'),
  });
}

const call = (method: string, from = client) => new Call(Frame.request(1, method, {}), from, {});

describe('the interceptor chain', () => {
  test('runs the interceptors in order, outermost first, around the terminal', async () => {
    const seen: string[] = [];
    const chain = chainOf([recorder('a', seen), recorder('b', seen), recorder('c', seen)], seen);
    await chain.request(call('tools/call'));
    chain.notification(new Note(Frame.notification('notifications/progress', {}), upstream));
    expect(seen).toEqual(['a', 'b', 'c', 'terminal', 'a', 'b', 'c', 'terminal']);
  });

  test('a request passes only the interceptors that take its method and sender', async () => {
    const seen: string[] = [];
    const chain = chainOf(
      [
        recorder('all', seen),
        recorder('client calls', seen, { takes: (method, fromClient) => fromClient && method === 'tools/call' }),
        recorder('upstream questions', seen, { takes: (_method, fromClient) => !fromClient }),
      ],
      seen,
    );
    await chain.request(call('tools/call'));
    await chain.request(call('tools/list'));
    await chain.request(call('tools/call', upstream));
    expect(seen).toEqual([
      ...['all', 'client calls', 'terminal'],
      ...['all', 'terminal'],
      ...['all', 'upstream questions', 'terminal'],
    ]);
  });

  test('a notification passes only the interceptors that hear it', () => {
    const seen: string[] = [];
    const chain = chainOf(
      [recorder('log', seen, { hears: (method, fromClient) => !fromClient && method === 'notifications/message' })],
      seen,
    );
    chain.notification(new Note(Frame.notification('notifications/message', {}), upstream));
    chain.notification(new Note(Frame.notification('notifications/message', {}), client));
    expect(seen).toEqual(['log', 'terminal', 'terminal']);
  });

  test('every kind of request is served, past the number of chains it keeps', async () => {
    const seen: string[] = [];
    const chain = chainOf([recorder('x', seen, { takes: (method) => method.startsWith('x/') })], seen);
    for (let n = 0; n < 600; n++) await chain.request(call(`x/${n}`));
    await chain.request(call('x/0'));
    expect(seen.filter((s) => s === 'x')).toHaveLength(601);
    expect(seen.filter((s) => s === 'terminal')).toHaveLength(601);
  });
});

describe('what watches a call hears of it once it is over (Call.afterAnswer)', () => {
  const fail = (error: unknown) => {
    throw error;
  };

  test('each finisher runs once, in the order given, with the answer the asker got', () => {
    const c = call('tools/call');
    const heard: string[] = [];
    c.afterAnswer((answer) => heard.push(`first ${JSON.stringify(answer?.message.result)}`));
    c.afterAnswer((answer) => heard.push(`second ${answer === undefined ? 'none' : 'answer'}`));
    expect(heard).toEqual([]);
    const answer = Frame.result(1, { done: true });
    c.finished(answer, fail);
    c.finished(answer, fail);
    expect(heard).toEqual(['first {"done":true}', 'second answer']);
  });

  test('a finisher that throws is reported, and the finishers after it still run', () => {
    const c = call('tools/call');
    const heard: string[] = [];
    const failures: unknown[] = [];
    c.afterAnswer(() => {
      throw new Error('report broke');
    });
    c.afterAnswer(() => heard.push('inflight ended'));
    c.finished(Frame.result(1, {}), (error) => failures.push((error as Error).message));
    expect(heard).toEqual(['inflight ended']);
    expect(failures).toEqual(['report broke']);
  });

  test('a cancelled call, never answered, is over with no answer', () => {
    const c = call('tools/call');
    const heard: unknown[] = [];
    c.afterAnswer((answer) => heard.push(answer));
    c.finished(undefined, fail);
    expect(heard).toEqual([undefined]);
  });
});
