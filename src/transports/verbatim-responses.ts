import type { JSONRPCMessage, RequestId, Result } from '@modelcontextprotocol/server';

type Answer = { result: Result } | { code: number };

/**
 * Sends a relay's answers as its handler gave them.
 *
 * SDK v2 adapts every response on its way out to the wire: an error code -32002 goes out as -32602,
 * and a tools/list tool whose output schema has a root other than an object gets that schema
 * wrapped in an object. The proxy answers with what an upstream or a client said, so it keeps each
 * handler's answer and puts it back into the response the SDK sends for that request.
 */
export class VerbatimResponses {
  private readonly answers = new Map<RequestId, Answer>();

  /**
   * Runs the handler for request `id`, keeping its result, or the code of the error it throws. A
   * cancelled request is not answered, so nothing is kept for it.
   */
  async answer<T extends Result>(id: RequestId, signal: AbortSignal, handle: () => Promise<T>): Promise<T> {
    try {
      const result = await handle();
      if (!signal.aborted) this.answers.set(id, { result });
      return result;
    } catch (error) {
      const code = (error as { code?: unknown } | undefined)?.code;
      if (!signal.aborted && typeof code === 'number' && Number.isSafeInteger(code)) this.answers.set(id, { code });
      throw error;
    }
  }

  /** The message with the handler's own answer in it; every message the transport sends passes here. */
  restore(message: JSONRPCMessage): JSONRPCMessage {
    if (!('id' in message) || message.id === undefined || 'method' in message) return message;
    const answer = this.answers.get(message.id);
    if (answer === undefined) return message;
    this.answers.delete(message.id);
    if ('result' in answer) return 'result' in message ? { ...message, result: answer.result } : message;
    return 'error' in message ? { ...message, error: { ...message.error, code: answer.code } } : message;
  }
}
