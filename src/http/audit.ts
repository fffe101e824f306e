import type { Logger } from '../logger.js';
import type { GatewayEvents } from '../relay/events.js';

/**
 * Audit lines (`audit: true`) for every artifact created, read over MCP or downloaded: who (the
 * token's name and the session, or "signed link"), what (id, type, size). Never a token, a
 * signature or a payload.
 */
export function auditArtifacts(events: GatewayEvents, log: Logger): () => void {
  const audit = log.child({ audit: true });
  const offs = [
    events.on('call', ({ who, server, tool, artifacts }) => {
      for (const a of artifacts)
        audit.info(
          { event: 'artifact.created', who, id: a.id, mimeType: a.mimeType, size: a.size, server, tool },
          'artifact created',
        );
    }),
    events.on('artifactRead', ({ who, via, record, bytes }) => {
      const event = via === 'download' ? 'artifact.downloaded' : 'artifact.read';
      audit.info(
        { event, via, who, id: record.id, mimeType: record.mimeType, size: record.size, bytes },
        via === 'download' ? 'artifact downloaded' : 'artifact read',
      );
    }),
  ];
  return () => offs.forEach((off) => off());
}
