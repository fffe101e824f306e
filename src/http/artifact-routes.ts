import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ArtifactStoreError, type ArtifactRecord } from '../artifacts/types.js';
import type { Who } from '../relay/events.js';
import { ARTIFACTS_PATH, artifactPath, artifactSubject, gallerySubject, idFromPath } from './artifact-paths.js';
import { sendJson, type HttpContext } from './context.js';
import { sendArtifact } from './download.js';
import { galleryCsp, galleryHtml } from './gallery.js';
import type { McpEndpoints } from './mcp-endpoints.js';

/** Who may see what: an owner from a signed link or a bearer token (with the session it names). */
type Access = { owner?: string; who: Who | { link: true }; access: Record<string, string> } | 'answered';

/**
 * GET /artifacts (the gallery) and GET /artifacts/<id> (the bytes). Whatever is not the requester's
 * (another session's, another token's, or nothing at all) is "not found": ids leak nothing.
 */
export class ArtifactRoutes {
  constructor(
    private readonly ctx: HttpContext,
    private readonly mcp: McpEndpoints,
  ) {}

  async handle(req: IncomingMessage, res: ServerResponse, rawPath: string): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return sendJson(res, 405, { error: 'method not allowed' }, { allow: 'GET, HEAD' });
    const query = new URL(req.url ?? '/', 'http://x').searchParams;
    if (rawPath === ARTIFACTS_PATH) return await this.gallery(req, res, query);
    const id = idFromPath(rawPath);
    if (id === undefined) return notFound(res);
    return this.download(req, res, id, query);
  }

  private async download(req: IncomingMessage, res: ServerResponse, id: string, query: URLSearchParams): Promise<void> {
    let record: ArtifactRecord | undefined;
    let who: Who | { link: true };
    if (query.has('sig')) {
      const check = this.ctx.signer.check(artifactSubject(id), query.get('expires'), query.get('sig'));
      if (check !== 'ok')
        return sendJson(res, 403, { error: check === 'expired' ? 'this link has expired' : 'this link is not valid' });
      const found = await this.find(res, id);
      if (found === 'answered') return;
      record = found;
      who = { link: true };
    } else {
      const access = await this.bearer(req, res);
      if (access === 'answered') return;
      // find: over a shared bucket, another replica may have stored it, or given it to this owner, just now.
      const found = access.owner === undefined ? undefined : await this.find(res, id, access.owner);
      if (found === 'answered') return;
      if (found && access.owner !== undefined && found.owners.includes(access.owner)) record = found;
      who = access.who;
    }
    if (!record || record.id !== id) return notFound(res);
    let bytes: number;
    try {
      bytes = await sendArtifact(req, res, this.ctx.gateway.offload.store, record);
    } catch (error) {
      if (!(error instanceof ArtifactStoreError) || res.headersSent) throw error;
      return error.reason === 'unavailable' ? unavailable(res) : notFound(res);
    }
    if (req.method === 'GET' && res.statusCode !== 304)
      this.ctx.gateway.events.emit('artifactRead', { who, via: 'download', record, bytes });
  }

  private async gallery(req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Promise<void> {
    let owner: string | undefined;
    let access: Record<string, string> = {};
    if (query.has('sig')) {
      const scope = query.get('scope') ?? '';
      const check = this.ctx.signer.check(gallerySubject(scope), query.get('expires'), query.get('sig'));
      if (check !== 'ok')
        return sendJson(res, 403, { error: check === 'expired' ? 'this link has expired' : 'this link is not valid' });
      owner = scope;
      access = { scope, expires: query.get('expires')!, sig: query.get('sig')! };
    } else {
      const found = await this.bearer(req, res);
      if (found === 'answered') return;
      owner = found.owner;
      if (owner === undefined) {
        return sendJson(res, 400, {
          error:
            'artifacts belong to a session: send its mcp-session-id header, or open the signed gallery link that artifact_list shows',
        });
      }
    }
    const { store } = this.ctx.gateway.offload;
    // Over a shared bucket the page shows what every replica stored; a bucket that does not answer shows what is known.
    await store.refresh().catch((err: unknown) => this.ctx.log.warn({ err }, 'could not refresh the artifact list'));
    const records = store.list({ owner });
    const nonce = randomBytes(16).toString('base64');
    const html = galleryHtml({
      records,
      filter: { server: query.get('server') || undefined, tool: query.get('tool') || undefined },
      access,
      // Relative, so the page works under whatever prefix a reverse proxy gives it; signed, so <img> needs no header.
      hrefFor: (record) => {
        const { expires, sig } = this.ctx.signer.sign(artifactSubject(record.id));
        return `${artifactPath(record.id).slice(1)}?expires=${expires}&sig=${sig}`;
      },
      nonce,
    });
    res
      .writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': galleryCsp(nonce),
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'cache-control': 'no-store',
        'x-frame-options': 'DENY',
      })
      .end(req.method === 'HEAD' ? undefined : html);
  }

  /** The record (from another replica too, over a shared bucket), or 'answered' after a 503. */
  private async find(
    res: ServerResponse,
    id: string,
    owner?: string,
  ): Promise<ArtifactRecord | undefined | 'answered'> {
    try {
      return await this.ctx.gateway.offload.store.find(id, owner);
    } catch (error) {
      if (!(error instanceof ArtifactStoreError) || error.reason !== 'unavailable') throw error;
      unavailable(res);
      return 'answered';
    }
  }

  /** The requester's token (or OAuth principal) and owner, or 'answered' after a 401/403/503. */
  private async bearer(req: IncomingMessage, res: ServerResponse): Promise<Access> {
    const token = await this.ctx.auth.authenticate(req, res);
    if (token === undefined) return 'answered';
    return { ...(await this.mcp.ownerFor(req, token)), access: {} };
  }
}

function notFound(res: ServerResponse): void {
  sendJson(res, 404, { error: 'not found' });
}

/** The bucket not answering says nothing about whether the artifact exists: try again, not "not found". */
function unavailable(res: ServerResponse): void {
  sendJson(res, 503, { error: 'artifact storage is not reachable; try again' }, { 'retry-after': '5' });
}
