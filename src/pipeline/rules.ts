import picomatch from 'picomatch';
import type { Config } from '../config/types.js';
import {
  DEFAULT_PIPELINE,
  effectiveSettings,
  type PipelinePatch,
  type PipelineSettings,
  type RuleConfig,
} from './settings.js';

/** Tools per server whose settings are kept once resolved. */
const MAX_CACHED_TOOLS = 10_000;

interface CompiledRule {
  matchesServer: (name: string) => boolean;
  matchesTool?: (name: string) => boolean;
  settings: PipelinePatch;
}

/**
 * Which settings apply to a tool. Precedence, least to most specific:
 *   1. built-in defaults, then the global `pipeline:` block;
 *   2. per-server: presets (e.g. the ABP backend's: the server's preset, then its per-tool presets),
 *      the server's own `pipeline:` block, then top-level rules without `tool`, in file order;
 *   3. per-tool: top-level rules with `tool`, in file order.
 * Later levels and later rules override key by key (`keepInline` and `download` key by key too;
 * `fields` as a whole list). Globs are compiled once here; each server/tool pair is resolved once.
 */
export class RuleBook {
  private readonly global: PipelinePatch;
  /** Per server: its preset patches (the server's, then the tool's), then its own `pipeline:` block. */
  private readonly serverPatches = new Map<string, { presets: PipelinePatch[]; own: PipelinePatch[] }>();
  private readonly rules: CompiledRule[];
  /** Resolved settings by server, then tool (two maps: a call looks up without building a key string). */
  private readonly cache = new Map<string, Map<string, PipelineSettings>>();

  constructor(
    config: Pick<Config, 'pipeline' | 'rules' | 'servers'>,
    presets: Record<string, PipelinePatch> = {},
    /** Presets for some tools of a server, by server name and then tool name. */
    private readonly toolPresets: Record<string, Record<string, PipelinePatch>> = {},
  ) {
    this.global = config.pipeline;
    for (const server of config.servers) {
      const preset = presets[server.name];
      this.serverPatches.set(server.name, {
        presets: preset ? [preset] : [],
        own: server.pipeline ? [server.pipeline] : [],
      });
    }
    const compile = (rule: RuleConfig): CompiledRule => ({
      matchesServer: picomatch(rule.server),
      ...(rule.tool !== undefined ? { matchesTool: picomatch(rule.tool) } : {}),
      settings: rule.settings,
    });
    const perServer = config.rules.filter((r) => r.tool === undefined).map(compile);
    const perTool = config.rules.filter((r) => r.tool !== undefined).map(compile);
    this.rules = [...perServer, ...perTool];
  }

  settingsFor(server: string, tool: string): PipelineSettings {
    let resolved = this.cache.get(server);
    if (!resolved) this.cache.set(server, (resolved = new Map()));
    let settings = resolved.get(tool);
    if (!settings) {
      const level = this.serverPatches.get(server);
      const tools = Object.hasOwn(this.toolPresets, server) ? this.toolPresets[server]! : {};
      const toolPreset = Object.hasOwn(tools, tool) ? tools[tool] : undefined;
      const patches = [
        this.global,
        ...(level?.presets ?? []),
        ...(toolPreset ? [toolPreset] : []),
        ...(level?.own ?? []),
      ];
      for (const rule of this.rules) {
        if (rule.matchesServer(server) && (!rule.matchesTool || rule.matchesTool(tool))) patches.push(rule.settings);
      }
      settings = effectiveSettings(mergeSettings(DEFAULT_PIPELINE, patches));
      // Names a lone server was called by without listing them come from the client: not kept past a bound.
      if (resolved.size < MAX_CACHED_TOOLS) resolved.set(tool, settings);
    }
    return settings;
  }
}

export function mergeSettings(base: PipelineSettings, patches: readonly PipelinePatch[]): PipelineSettings {
  let merged: PipelineSettings = { ...base, keepInline: { ...base.keepInline }, download: { ...base.download } };
  for (const patch of patches) {
    const { keepInline, download, ...flat } = patch;
    merged = {
      ...merged,
      ...definedOnly(flat),
      keepInline: { ...merged.keepInline, ...definedOnly(keepInline ?? {}) },
      download: { ...merged.download, ...definedOnly(download ?? {}) },
    };
  }
  return merged;
}

function definedOnly<T extends object>(object: T): Partial<T> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as Partial<T>;
}
