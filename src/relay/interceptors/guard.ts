import type { Frame } from '../../wire/frame.js';
import type { Call } from '../call.js';
import type { Interceptor, Next } from '../chain.js';
import { Codes, RpcError } from '../../rpc/errors.js';

/** The longest method name the relay looks at; anything longer is no method of MCP or of any server. */
const MAX_METHOD_LENGTH = 256;

/**
 * Refuses what is not a request at all, before anything reads it: a method that is not a short string, params that
 * are not an object. Every request is answered; nothing downstream ever looks a method up on an object (routing
 * uses switch statements and Maps), so `constructor` or `__proto__` are names like any other.
 */
export const guard: Interceptor = {
  name: 'guard',
  request(call: Call, next: Next): Promise<Frame> {
    const { method, params } = call.frame.message;
    // A method of 256 KiB or more was kept aside by the stdio reader: a short marker stands for it (lengthOf).
    if (typeof method !== 'string' || method.length === 0 || call.frame.blobs.lengthOf(method) > MAX_METHOD_LENGTH)
      throw new RpcError(Codes.InvalidRequest, 'Invalid Request: the method must be a non-empty string');
    if (params !== undefined && (params === null || typeof params !== 'object' || Array.isArray(params)))
      throw new RpcError(Codes.InvalidParams, 'Invalid params: params must be an object');
    return next(call);
  },
};
