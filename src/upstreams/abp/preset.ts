/**
 * The artifact pipeline settings built into every `type: abp` server: the ABP bridge's data flow
 * (mode `file`: every successful result saved to a file, errors inline), BinaryDataReference
 * downloads bounded by the backend's download timeout, and the control tools (connect, disconnect,
 * status) left inline. A user's `pipeline:` block or rules override any of it.
 */
import type { ServerConfig } from '../../config/types.js';
import type { PipelinePatch } from '../../pipeline/settings.js';
import { CONTROL_TOOL_NAMES } from './tools.js';

export interface AbpPresets {
  servers: Record<string, PipelinePatch>;
  tools: Record<string, Record<string, PipelinePatch>>;
}

export function abpPresets(servers: readonly ServerConfig[]): AbpPresets {
  const presets: AbpPresets = { servers: {}, tools: {} };
  for (const server of servers) {
    if (server.kind !== 'abp') continue;
    // abpApps: its app's own server is reached, loopback or not (pipeline/detect/abp-origins.ts).
    presets.servers[server.name] = {
      mode: 'file',
      download: { timeoutMs: server.abp.downloadTimeoutMs, abpApps: true },
    };
    presets.tools[server.name] = Object.fromEntries(CONTROL_TOOL_NAMES.map((tool) => [tool, { mode: 'passthrough' }]));
  }
  return presets;
}
