import type {
  CallToolResult,
  ReadResourceResult,
  Resource,
  ResourceTemplateType,
  Tool,
} from '@modelcontextprotocol/server';
import { ARTIFACT_TEMPLATE, artifactResource, readArtifact } from '../artifacts/resources.js';
import { storeOptions } from '../artifacts/options.js';
import { ArtifactStore } from '../artifacts/store.js';
import { artifactTools, callArtifactTool } from '../artifacts/tools.js';
import { ArtifactViewer, VIEWER_URI } from '../artifacts/viewer.js';
import { toolForAppHosts, withViewerHint } from './apps.js';
import type { ArtifactRecord } from '../artifacts/types.js';
import type { Config } from '../config/types.js';
import type { Logger } from '../logger.js';
import { GatewayEvents } from './events.js';
import type { Session } from './session.js';
import { resolveArtifactArguments } from '../pipeline/argument-refs.js';
import { findHandedOut, refusal } from '../pipeline/handed-out.js';
import { mayHoldArtifactUris, restoreArguments, UnrestorableArgument } from '../pipeline/restore.js';
import { rewriteOutputSchema } from '../pipeline/output-schema.js';
import { ResultPipeline } from '../pipeline/pipeline.js';
import { RuleBook } from '../pipeline/rules.js';
import type { CallInfo } from '../pipeline/types.js';
import { Codes, RpcError } from '../rpc/errors.js';
import type { Blobs } from '../wire/blobs.js';
import { isRangeError } from '../wire/json.js';
import { abpPresets } from '../upstreams/abp/preset.js';

const GC_INTERVAL_MS = 60 * 60_000;

/**
 * Everything the gateway does with artifacts: the result pipeline, the store, the built-in tools,
 * artifacts as resources, and `artifact://` arguments. One instance per gateway.
 */
export class Offload {
  readonly store: ArtifactStore;
  readonly rules: RuleBook;
  private readonly pipeline: ResultPipeline;
  private readonly tools: Tool[];
  private readonly toolNames: ReadonlySet<string>;
  /** The artifact viewer for hosts of MCP Apps, unless the config turns it off. */
  readonly viewer: ArtifactViewer | undefined;
  private gcTimer?: NodeJS.Timeout;
  /** Tools whose output schema was too deep to rewrite, warned about once. */
  private readonly tooDeep = new WeakSet<Tool>();

  constructor(
    private readonly config: Config,
    private readonly log: Logger,
    private readonly events = new GatewayEvents(),
  ) {
    this.store = new ArtifactStore(storeOptions(config), log.child({ component: 'artifacts' }));
    // Every `type: abp` server gets the ABP preset.
    const abp = abpPresets(config.servers);
    this.rules = new RuleBook(config, abp.servers, abp.tools);
    this.pipeline = new ResultPipeline(this.rules, this.store, log);
    this.tools = config.artifacts.tools.enabled ? artifactTools(config.artifacts.tools) : [];
    this.toolNames = new Set(this.tools.map((t) => t.name));
    const { tools, viewer } = config.artifacts;
    this.viewer = viewer.enabled ? new ArtifactViewer(viewer, tools.enabled ? tools.readName : undefined) : undefined;
    this.store.onCollected = (result) => events.emit('collected', result);
  }

  /** A store that cannot be opened is logged, not fatal: each payload then says why it stayed inline. */
  async init(): Promise<void> {
    try {
      await this.store.init();
      this.log.info({ dir: this.store.dir }, 'artifact store ready');
    } catch (error) {
      this.log.error({ err: error instanceof Error ? error.message : String(error) }, 'artifact store unavailable');
      return;
    }
    // The startup collection runs beside serving, as the hourly one does: it removes what expired while the proxy was
    // not running (and lists a bucket's bytes), which held the start, and a replica's health check, for as long as
    // the store was large. A directory's records had their bytes looked at as the store opened; it does not again.
    void this.collect();
    this.gcTimer = setInterval(() => void this.collect(), GC_INTERVAL_MS);
    this.gcTimer.unref();
  }

  stop(): void {
    clearInterval(this.gcTimer);
    this.store.close();
  }

  /** Time-to-live needs a clock: expired artifacts are collected at startup and every hour. */
  private async collect(): Promise<void> {
    try {
      const result = await this.store.gc();
      if (result.removed) this.log.info(result, 'artifacts collected');
    } catch (error) {
      // A collection cut short by the gateway stopping is no failure worth a warning.
      if (this.store.isClosed) return;
      this.log.warn({ err: error instanceof Error ? error.message : String(error) }, 'artifact collection failed');
    }
  }

  get builtinTools(): readonly Tool[] {
    return this.tools;
  }

  /** The proxy's own tools as a client is shown them: a host of MCP Apps gets the viewer's tool too. */
  toolsFor(hostsApps: boolean): readonly Tool[] {
    return hostsApps && this.viewer ? [...this.tools, this.viewer.tool] : this.tools;
  }

  /** Names no upstream tool may take: the proxy's own tools', the viewer's included (one name for every client). */
  get reservedNames(): string[] {
    return [...this.tools, ...(this.viewer ? [this.viewer.tool] : [])].map((t) => t.name);
  }

  isBuiltin(name: string): boolean {
    return this.toolNames.has(name);
  }

  /** An upstream tool as a host of MCP Apps is shown it (relay/apps.ts): linked to the viewer if the config says so. */
  forAppHosts(server: string, tool: Tool, shown: Tool): Tool {
    return toolForAppHosts(tool, shown, this.viewer?.links(server, tool.name) ? VIEWER_URI : undefined);
  }

  /**
   * A processed result for a host of MCP Apps: one that stored artifacts says how to show them in the viewer, unless
   * the tool's results open in the viewer anyway.
   */
  viewerHint(result: CallToolResult, server: string, tool: string): CallToolResult {
    if (!this.viewer || this.viewer.links(server, tool)) return result;
    return withViewerHint(result, this.viewer.name);
  }

  async callBuiltin(name: string, args: Record<string, unknown>, session: Session): Promise<CallToolResult> {
    const { owner } = session;
    const result = await callArtifactTool({
      store: this.store,
      options: this.config.artifacts.tools,
      owner,
      name,
      args,
      links: session.identity.links,
    });
    if (name === this.config.artifacts.tools.readName && !result.isError) {
      const record = this.store.get(String(args.uri));
      if (record)
        this.events.emit('artifactRead', { who: session.who, via: 'artifact_read', record, bytes: textLength(result) });
    }
    return result;
  }

  /**
   * The tool as the client sees it: an output schema that accepts what the pipeline may put in. A schema nested too
   * deep to walk (thousands of levels: only a hostile server writes one) is left out, so that a client does not hold
   * rewritten results to it; the tool is listed without it, and its server's other tools as they are.
   */
  decorateTool(server: string, tool: Tool): Tool {
    if (!tool.outputSchema) return tool;
    const settings = this.rules.settingsFor(server, tool.name);
    if (settings.mode === 'passthrough') return tool;
    try {
      return { ...tool, outputSchema: rewriteOutputSchema(tool.outputSchema, settings) as Tool['outputSchema'] };
    } catch (error) {
      if (!isRangeError(error)) throw error;
      if (!this.tooDeep.has(tool)) {
        this.tooDeep.add(tool);
        this.log.warn({ server, tool: tool.name }, 'output schema too deeply nested to rewrite; listed without it');
      }
      const { outputSchema: _tooDeep, ...rest } = tool;
      return rest as Tool;
    }
  }

  /** Whether processResult certainly returns this result as it is (known without running a layer). */
  passesUnchanged(result: CallToolResult, call: CallInfo, blobs?: Blobs): boolean {
    return this.pipeline.passesUnchanged(result, call, blobs);
  }

  /** `blobs`: the payloads the result arrived with as bytes; the caller delivers them. */
  processResult(result: CallToolResult, call: CallInfo, blobs?: Blobs): Promise<CallToolResult> {
    return this.pipeline.process(result, call, blobs);
  }

  /**
   * Why a call must not go upstream because its arguments carry a summary or preview the proxy made in place of
   * content (pipeline/handed-out.ts); undefined when they carry none, or the tool's `argumentRefs` is `off`
   * (arguments go as written, the escape hatch for a tool meant to keep such text).
   */
  handedOutIn(call: CallInfo): string | undefined {
    const mode = this.rules.settingsFor(call.server, call.tool).argumentRefs;
    if (mode === 'off') return undefined;
    const found = findHandedOut(call.args);
    return found && refusal(found, mode === 'content');
  }

  /** Whether resolveArguments certainly leaves these arguments as they are: no artifact URI anywhere in them. */
  argumentsAsSent(call: CallInfo): boolean {
    return this.rules.settingsFor(call.server, call.tool).argumentRefs === 'off' || !mayHoldArtifactUris(call.args);
  }

  /**
   * The arguments as the upstream must get them (see ArgumentRefs), or why the call must not be sent: a
   * stand-in for a payload that can no longer be put back would be written where the payload was.
   */
  async resolveArguments(call: CallInfo): Promise<{ args: Record<string, unknown> | undefined } | { refused: string }> {
    const mode = this.rules.settingsFor(call.server, call.tool).argumentRefs;
    if (mode === 'content') return { args: await resolveArtifactArguments(call.args, this.store, call.owner) };
    if (mode === 'off') return { args: call.args };
    try {
      const { args, restored } = await restoreArguments(call.args, this.store, call.owner);
      if (restored)
        this.log.debug({ server: call.server, tool: call.tool, restored }, 'put back payloads replaced in place');
      return { args };
    } catch (error) {
      if (error instanceof UnrestorableArgument) return { refused: error.message };
      throw error;
    }
  }

  sessionResources(session: Session): Resource[] {
    if (!this.config.artifacts.resources) return [];
    const links = session.identity.links;
    const showPath = !links || links.showPath;
    return this.store.listNames({ owner: session.owner }).map((record) => artifactResource(record, showPath));
  }

  get templates(): ResourceTemplateType[] {
    return this.config.artifacts.resources ? [ARTIFACT_TEMPLATE] : [];
  }

  /** Another session's artifact is "not found", never "forbidden": ids leak nothing. */
  async owned(uri: string, owner: string): Promise<ArtifactRecord> {
    // find: over a shared bucket the artifact may come from another replica.
    const record = await this.store.find(uri, owner);
    if (!record || !record.owners.includes(owner)) throw new RpcError(Codes.InvalidParams, `Resource ${uri} not found`);
    return record;
  }

  async read(uri: string, session: Session): Promise<ReadResourceResult> {
    const record = await this.owned(uri, session.owner);
    const result = await readArtifact(this.store, record);
    this.events.emit('artifactRead', { who: session.who, via: 'resources/read', record, bytes: record.size });
    return result;
  }

  get offersResources(): boolean {
    return this.config.artifacts.resources;
  }
}

function textLength(result: CallToolResult): number {
  return result.content.reduce((n, block) => n + (block.type === 'text' ? Buffer.byteLength(block.text) : 0), 0);
}
