import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger.js';
import type { SessionDirectory, SessionRecord } from '../shared/session-directory.js';
import type { ForwardingMark } from '../shared/forwarding-mark.js';
import { rpcError } from './context.js';
import { FORWARDED_HEADER, forwardRequest } from './session-forwarder.js';

/** What became of a request for a session this replica did not hold. */
export type Routed =
  /** Answered already: forwarded to the holder, or refused. */
  | { kind: 'answered' }
  /** The session is held here now: serve the request. */
  | { kind: 'adopted' };

/**
 * Requests for legacy sessions another replica holds. Alive, that replica gets the request (and answers it);
 * gone (its heartbeat lapsed, or it refuses connections), the session is adopted here: its record names this replica
 * (a compare-and-set, so two replicas never both take it) and `recreate` rebuilds it. A session no replica knows is
 * "Session not found", as on one replica.
 */
export class SessionRouting {
  /** Sessions being adopted here: a second request for one waits for the first to finish. */
  private readonly adopting = new Map<string, Promise<boolean>>();

  constructor(
    private readonly directory: SessionDirectory,
    private readonly recreate: (id: string, record: SessionRecord, req: IncomingMessage) => Promise<void>,
    private readonly mark: ForwardingMark,
    private readonly log: Logger,
  ) {}

  /** `body`: a POST's, read already (a request that cannot be forwarded is served here with it). */
  async route(req: IncomingMessage, res: ServerResponse, token: string, id: string, body?: Buffer): Promise<Routed> {
    const pending = this.adopting.get(id);
    if (pending) return (await pending) ? { kind: 'adopted' } : notFound(res);
    // Twice at most: a replica that adopted the session between our look and our swap is asked instead.
    for (let attempt = 0; attempt < 2; attempt++) {
      let record: SessionRecord | undefined;
      try {
        record = await this.directory.lookup(id);
      } catch (error) {
        this.log.warn({ err: String(error) }, 'redis: cannot look up the replica holding a session');
        rpcError(res, 503, 'mcp-offload cannot reach its shared state to find this session; try again', -32000);
        return { kind: 'answered' };
      }
      if (!record || record.token !== token || record.replica === this.directory.replica.id) return notFound(res);
      const sentFor = this.mark.read(req.headers[FORWARDED_HEADER]);
      if (await this.alive(record.replica)) {
        if (sentFor === undefined) {
          const outcome = await forwardRequest(req, res, record.url, body, this.mark.make(record.replica), this.log);
          if (outcome === 'forwarded') return { kind: 'answered' };
        } else if (sentFor !== record.replica) {
          // Another replica took the session since the sender looked: the client's next request finds it there.
          rpcError(res, 503, 'the session moved to another replica meanwhile; try again');
          return { kind: 'answered' };
        }
        // Else it was sent for a holder that is not this process at its address (a replica restarted there): gone.
      }
      if (record.kind === 'sse') return notFound(res);
      const adoption = this.adopt(id, record, req);
      this.adopting.set(id, adoption);
      try {
        if (await adoption) return { kind: 'adopted' };
      } finally {
        this.adopting.delete(id);
      }
    }
    return notFound(res);
  }

  private async alive(replica: string): Promise<boolean> {
    // Not knowing is taken as alive: forwarding finds out, and a wrong adoption would split the session.
    return this.directory.isAlive(replica).catch(() => true);
  }

  /** True once the session is held and served here; false when another replica took it first. */
  private async adopt(id: string, record: SessionRecord, req: IncomingMessage): Promise<boolean> {
    if (!(await this.directory.adopt(id, record.replica))) return false;
    this.log.info(
      { session: id, from: record.replica || '(released)', token: record.token },
      'adopting a session whose replica is gone',
    );
    try {
      await this.recreate(id, record, req);
    } catch (error) {
      // Let it go again, so the next request (here or elsewhere) tries anew rather than find it held by nobody.
      await this.directory.release(id).catch(() => undefined);
      throw error;
    }
    return true;
  }
}

function notFound(res: ServerResponse): Routed {
  rpcError(res, 404, 'Session not found');
  return { kind: 'answered' };
}
