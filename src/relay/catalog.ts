import type { Prompt, Resource, ResourceTemplateType, Tool } from '@modelcontextprotocol/server';
import { templateMatcher, type TemplateMatcher } from '../protocol/uri-templates.js';
import picomatch from 'picomatch';
import type { Logger } from '../logger.js';
import type { Upstream } from '../upstreams/upstream.js';
import { exposedName, NameAllocator } from './naming.js';

export interface Routed<T> {
  upstream: Upstream;
  /** The name (or URI) the upstream knows it by. */
  original: string;
  /** What the client sees: the upstream's item with the exposed name. */
  item: T;
}

/** A tool as a host of MCP Apps is shown it (relay/apps.ts), from the upstream's own and what others are shown. */
export type AppHostTool = (upstream: Upstream, tool: Tool, shown: Tool) => Tool;

export interface CatalogSnapshot {
  tools: Tool[];
  prompts: Prompt[];
  resources: Resource[];
  resourceTemplates: ResourceTemplateType[];
}

/**
 * The merged view of every upstream's tools, prompts and resources, and the routes back.
 * Rebuilt whenever an upstream's lists change; reads are plain map lookups.
 */
export class Catalog {
  private tools = new Map<string, Routed<Tool>>();
  private prompts = new Map<string, Routed<Prompt>>();
  private resources = new Map<string, Routed<Resource>>();
  private templates: { upstream: Upstream; template: ResourceTemplateType; matcher: TemplateMatcher }[] = [];
  snapshot: CatalogSnapshot = { tools: [], prompts: [], resources: [], resourceTemplates: [] };
  /** The tools as a host of MCP Apps is shown them: the same list, in the same order, under the same names. */
  appHostTools: Tool[] = [];
  /** Upstreams waiting for an OAuth login, with the prefix their tools would have: their calls get the command. */
  private waiting: { upstream: Upstream; prefix: string | null }[] = [];

  constructor(
    private readonly separator: string,
    private readonly log: Logger,
    /** Names the proxy's own tools take first. */
    private readonly reserved: readonly string[] = [],
    /** How a tool is shown to clients (e.g. its output schema widened for rewritten results). */
    private readonly decorateTool: (upstream: Upstream, tool: Tool) => Tool = (_u, tool) => tool,
    private readonly forAppHosts: AppHostTool = (_u, _tool, shown) => shown,
  ) {}

  rebuild(upstreams: readonly Upstream[]): void {
    const several = upstreams.length > 1;
    const toolNames = new NameAllocator(this.reserved);
    const promptNames = new NameAllocator();
    const tools = new Map<string, Routed<Tool>>();
    const appHostTools: Tool[] = [];
    const prompts = new Map<string, Routed<Prompt>>();
    const resources = new Map<string, Routed<Resource>>();
    const templates: Catalog['templates'] = [];
    const seenTemplates = new Set<string>();

    const waiting: Catalog['waiting'] = [];
    for (const upstream of upstreams) {
      const prefix = prefixOf(upstream, several);
      if (upstream.state === 'needs-login') waiting.push({ upstream, prefix });
      const allowed = toolFilter(upstream);
      for (const tool of upstream.catalog.tools) {
        if (!allowed(tool.name)) continue;
        const name = this.allocate(toolNames, upstream, prefix, tool.name, 'tool');
        const shown = this.decorateTool(upstream, tool);
        tools.set(name, { upstream, original: tool.name, item: name === tool.name ? shown : { ...shown, name } });
        const forApps = this.forAppHosts(upstream, tool, shown);
        appHostTools.push(name === tool.name ? forApps : { ...forApps, name });
      }
      for (const prompt of upstream.catalog.prompts) {
        const name = this.allocate(promptNames, upstream, prefix, prompt.name, 'prompt');
        prompts.set(name, {
          upstream,
          original: prompt.name,
          item: name === prompt.name ? prompt : { ...prompt, name },
        });
      }
      for (const resource of upstream.catalog.resources) {
        const owner = resources.get(resource.uri);
        if (owner) {
          this.log.warn(
            { uri: resource.uri, kept: owner.upstream.name, dropped: upstream.name },
            'two upstreams list the same resource URI; the first keeps it',
          );
          continue;
        }
        resources.set(resource.uri, { upstream, original: resource.uri, item: resource });
      }
      for (const template of upstream.catalog.resourceTemplates) {
        if (seenTemplates.has(template.uriTemplate)) continue;
        seenTemplates.add(template.uriTemplate);
        templates.push({ upstream, template, matcher: templateMatcher(template.uriTemplate) });
      }
    }
    this.tools = tools;
    this.appHostTools = appHostTools;
    this.waiting = waiting;
    this.prompts = prompts;
    this.resources = resources;
    this.templates = templates;
    this.snapshot = {
      tools: [...tools.values()].map((r) => r.item),
      prompts: [...prompts.values()].map((r) => r.item),
      resources: [...resources.values()].map((r) => r.item),
      resourceTemplates: templates.map((t) => t.template),
    };
  }

  tool(name: string): Routed<Tool> | undefined {
    return this.tools.get(name);
  }

  /**
   * The upstream a call to a tool that is not listed was meant for, when that upstream waits for a login: its tools
   * are gone until then, and the caller (a client that listed them before, or one told their names) should hear
   * which command brings them back rather than that they do not exist.
   */
  waitingForLogin(toolName: string): Upstream | undefined {
    const prefixed = this.waiting.find((w) => w.prefix !== null && toolName.startsWith(`${w.prefix}${this.separator}`));
    if (prefixed) return prefixed.upstream;
    const unprefixed = this.waiting.filter((w) => w.prefix === null);
    return unprefixed.length === 1 ? unprefixed[0]!.upstream : undefined;
  }

  prompt(name: string): Routed<Prompt> | undefined {
    return this.prompts.get(name);
  }

  /** The upstream that listed this URI, or whose template matches it. */
  resourceOwner(uri: string): Upstream | undefined {
    const listed = this.resources.get(uri);
    if (listed) return listed.upstream;
    return this.templates.find((t) => t.matcher.match(uri) !== null)?.upstream;
  }

  templateOwner(uriTemplate: string): Upstream | undefined {
    return this.templates.find((t) => t.template.uriTemplate === uriTemplate)?.upstream;
  }

  private allocate(
    names: NameAllocator,
    upstream: Upstream,
    prefix: string | null,
    name: string,
    kind: string,
  ): string {
    const wanted = exposedName(prefix, this.separator, name);
    const { name: given, collided } = names.allocate(wanted);
    if (collided)
      this.log.warn({ server: upstream.name, [kind]: name, exposedAs: given }, `${kind} name collision resolved`);
    else if (given !== (prefix ? `${prefix}${this.separator}${name}` : name)) {
      this.log.info(
        { server: upstream.name, [kind]: name, exposedAs: given },
        `${kind} name adjusted to fit ^[a-zA-Z0-9_-]{1,64}$`,
      );
    }
    return given;
  }
}

function prefixOf(upstream: Upstream, several: boolean): string | null {
  const { prefix } = upstream.config;
  if (prefix === undefined) return several ? upstream.name : null;
  return prefix;
}

const filters = new WeakMap<Upstream, (name: string) => boolean>();

/** Globs are compiled once per upstream, not on every rebuild. */
function toolFilter(upstream: Upstream): (name: string) => boolean {
  let filter = filters.get(upstream);
  if (!filter) {
    const { allow, deny } = upstream.config.tools;
    const allowed = allow.length ? picomatch(allow) : () => true;
    const denied = deny.length ? picomatch(deny) : () => false;
    filter = (name) => allowed(name) && !denied(name);
    filters.set(upstream, filter);
  }
  return filter;
}
