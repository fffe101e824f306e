import type { ServerResponse } from 'node:http';
import { sendJson } from './context.js';

/**
 * How many sessions (Streamable HTTP and legacy SSE) each principal holds on this replica, against
 * http.maxSessionsPerPrincipal. Each session costs memory, and an isolated server a process or an upstream session of
 * its own: one token must not be able to open them without end. 0: no cap.
 */
export class SessionQuota {
  private readonly held = new Map<string, number>();

  constructor(private readonly max: number) {}

  /**
   * Whether `principal` may open one more session; if not, the refusal is written to `res`: HTTP 429 and a JSON-RPC
   * error that names the cap and how to raise it.
   */
  admit(principal: string, res: ServerResponse): boolean {
    if (this.max === 0 || (this.held.get(principal) ?? 0) < this.max) return true;
    sendJson(res, 429, {
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32000,
        message:
          `mcp-offload: "${principal}" already has ${this.max} sessions open, the most http.maxSessionsPerPrincipal ` +
          'allows; end one (DELETE) or let an unused one expire (http.sessionIdleMs), or raise ' +
          'http.maxSessionsPerPrincipal in the config (0: no cap)',
        data: { maxSessionsPerPrincipal: this.max },
      },
    });
    return false;
  }

  /** A session of `principal` opened (adopted ones too); the function returned says it ended (twice is harmless). */
  add(principal: string): () => void {
    this.held.set(principal, (this.held.get(principal) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = (this.held.get(principal) ?? 1) - 1;
      if (left > 0) this.held.set(principal, left);
      else this.held.delete(principal);
    };
  }
}
