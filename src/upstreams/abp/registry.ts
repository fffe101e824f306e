/**
 * The capabilities of one browser session, from its two sources: the manifest (what the app declares
 * up front) and the runtime (`listCapabilities()`, which the protocol makes authoritative). Each
 * capability is offered as an MCP tool `abp_<name with dots as underscores>`.
 */
import { mergeCapabilities } from './capabilities.js';
import type { AbpCapability } from './types.js';

export const TOOL_PREFIX = 'abp_';

/** `convert.markdownToHtml` → `abp_convert_markdownToHtml`; other characters MCP names cannot hold become `_`. */
export function toolNameOf(capability: string): string {
  return TOOL_PREFIX + capability.replace(/\./g, '_').replace(/[^A-Za-z0-9_-]/g, '_');
}

export interface CapabilityTool {
  toolName: string;
  capability: AbpCapability;
}

export class CapabilityRegistry {
  private capabilities: AbpCapability[] = [];
  private readonly byName = new Map<string, AbpCapability>();
  private readonly byTool = new Map<string, string>();
  /** Capabilities that could not get their tool name (taken by a static tool or an earlier capability). */
  readonly shadowed: string[] = [];

  constructor(
    private readonly manifest: readonly AbpCapability[],
    /** Tool names that are not the registry's to give (the static tools). */
    private readonly reserved: ReadonlySet<string> = new Set(),
  ) {
    this.update(undefined);
  }

  /**
   * Replaces the runtime view (at connect, and when the app announces a change). Runtime fields win,
   * runtime-only capabilities are added, and what the runtime does not confirm is unavailable: the
   * manifest is informational. Without a runtime list the manifest stands.
   */
  update(runtime: readonly AbpCapability[] | undefined): void {
    this.capabilities = runtime
      ? mergeCapabilities([...this.manifest], [...runtime])
      : this.manifest.map((c) => ({ ...c }));
    this.byName.clear();
    this.byTool.clear();
    this.shadowed.length = 0;
    for (const capability of this.capabilities) {
      this.byName.set(capability.name, capability);
      if (capability.available === false) continue;
      const toolName = toolNameOf(capability.name);
      if (this.reserved.has(toolName) || this.byTool.has(toolName)) this.shadowed.push(capability.name);
      else this.byTool.set(toolName, capability.name);
    }
  }

  clear(): void {
    this.capabilities = [];
    this.byName.clear();
    this.byTool.clear();
    this.shadowed.length = 0;
  }

  /** By ABP name, available or not. */
  get(name: string): AbpCapability | undefined {
    return this.byName.get(name);
  }

  /** By MCP tool name; only available capabilities have one. */
  getByToolName(toolName: string): AbpCapability | undefined {
    const name = this.byTool.get(toolName);
    return name === undefined ? undefined : this.byName.get(name);
  }

  /** Every capability, unavailable ones included (for status). */
  list(): AbpCapability[] {
    return [...this.capabilities];
  }

  /** The available capabilities with their tool names, in the runtime's order. */
  tools(): CapabilityTool[] {
    return [...this.byTool].map(([toolName, name]) => ({ toolName, capability: this.byName.get(name)! }));
  }
}
