/**
 * mcp-offload as a library: load a config, run the gateway in your own process, and serve it over
 * stdio, HTTP or any MCP SDK (v2) transport. The command line (src/cli.ts) is built from these pieces.
 *
 * ```ts
 * import { loadConfigFile, Gateway, createLogger } from 'mcp-offload';
 * const config = await loadConfigFile('gateway.yaml');
 * const gateway = new Gateway(config, createLogger('info'));
 * await gateway.start();
 * await gateway.createSession().connect(transport); // any MCP SDK v2 Transport (@modelcontextprotocol/server)
 * // or a wire of your own (src/wire/wire.ts): gateway.createSession().attach(wire)
 * ```
 */
export { VERSION } from './version.js';
export { loadConfigFile, parseConfig, type ParseOptions } from './config/load.js';
export {
  ConfigError,
  defaultConfig,
  defaultServerSettings,
  formatProblem,
  type AbpServerConfig,
  type Config,
  type ConfigProblem,
  type HttpServerConfig,
  type LogLevel,
  type ServerConfig,
  type StdioServerConfig,
} from './config/types.js';
export { Gateway } from './gateway/gateway.js';
export type { Session, SessionIdentity } from './relay/session.js';
export type { Wire, FrameContext, SendOptions } from './wire/wire.js';
export { Frame } from './wire/frame.js';
export { serveHttp, type HttpHandle, type HttpOptions } from './http/server.js';
export type { EventId, EventStore, StreamId } from './shared/event-store.js';
export {
  DEFAULT_EVENT_STORE_LIMITS,
  MemoryEventStore,
  type MemoryEventStoreLimits,
} from './http/memory-event-store.js';
export { StdioWire } from './transports/stdio.js';
export { ArtifactStore } from './artifacts/store.js';
export type { ArtifactRecord } from './artifacts/types.js';
export type { PipelineMode, PipelinePatch, PipelineSettings, RuleConfig } from './pipeline/settings.js';
export { createLogger, silentLogger, type Logger } from './logger.js';
