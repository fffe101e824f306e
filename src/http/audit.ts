import type { Logger } from '../logger.js';
import type { GatewayEvents } from '../relay/events.js';

/**
 * Audit lines (`audit: true`) for every tool call (what the upstream sent and the client got, in bytes) and every
 * artifact created, read over MCP or downloaded: who (the token's name and the session, or "signed link"), what
 * (id, type, size). Never a token, a signature or a payload.
 */
export function auditArtifacts(events: GatewayEvents, log: Logger): () => void {
  const audit = log.child({ audit: true });
  const offs = [
    // Every tool call, with what it saved: `mcp-offload stats` reads these lines.
    events.on('call', ({ who, server, tool, outcome, upstreamBytes, clientBytes, artifacts }) => {
      audit.info(
        { event: 'tool.call', who, server, tool, outcome, upstreamBytes, clientBytes, artifacts: artifacts.length },
        'tool called',
      );
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
