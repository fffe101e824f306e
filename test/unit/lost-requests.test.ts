import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { unansweredRequests } from '../../src/http/lost-requests.js';
import { primingRecord } from '../../src/shared/event-store.js';
import { parseJson } from '../../src/wire/json.js';

const message = (value: object) => value as JSONRPCMessage;

describe('unansweredRequests: the requests of a stream none of its kept messages answers', () => {
  test('those of the priming record without a result or an error in the stream', () => {
    const stream = [
      primingRecord([1, 'two', 3]),
      message({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 1 } }),
      message({ jsonrpc: '2.0', id: 1, result: {} }),
      message({ jsonrpc: '2.0', id: 3, error: { code: -1, message: 'no' } }),
    ];
    expect(unansweredRequests(stream)).toEqual(['two']);
  });

  test('ids are told apart as JSON-RPC does (1 is not "1"); a number no double holds is matched by its digits', () => {
    const big = parseJson('123456789012345678901234567890');
    const stream = [
      primingRecord([1, big]),
      message({ jsonrpc: '2.0', id: '1', result: {} }),
      parseJson('{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{}}') as JSONRPCMessage,
    ];
    expect(unansweredRequests(stream)).toEqual([1]);
  });

  test('a request of the stream that asks the client something is no answer', () => {
    const stream = [primingRecord([5]), message({ jsonrpc: '2.0', id: 5, method: 'elicitation/create', params: {} })];
    expect(unansweredRequests(stream)).toEqual([5]);
  });

  test('nothing can be said when the stream’s start is not kept, or was stored as {} by another store', () => {
    expect(unansweredRequests([])).toBeUndefined();
    expect(unansweredRequests([message({ jsonrpc: '2.0', id: 1, result: {} })])).toBeUndefined();
    expect(unansweredRequests([message({})])).toBeUndefined();
  });
});
