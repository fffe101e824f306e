/**
 * The named browser sessions of one backend. Each slot owns at most one BrowserSession (one browser)
 * and the registry of its app's capabilities; connect and disconnect of a slot run one at a time.
 * The session named "default" is the ABP bridge's single connection.
 */
import type { Logger } from '../../logger.js';
import { VERSION } from '../../version.js';
import { DEFAULT_SESSION, type AbpOptions } from '../../config/abp.js';
import { browserOptionsFor } from './browser-options.js';
import { CapabilityRegistry, type CapabilityTool } from './registry.js';
import { STATIC_TOOL_NAMES } from './tools.js';
import type {
  AbpCapability,
  AbpElicitation,
  AbpElicitationAnswer,
  AbpProgress,
  BrowserOptions,
  BrowserSession,
  ConnectionInfo,
  ConnectTarget,
  SessionEvents,
} from './types.js';

export type SessionFactory = (options: BrowserOptions, events: SessionEvents, log: Logger) => BrowserSession;

/** What the pool tells the MCP server. */
export interface PoolHooks {
  toolsChanged(): void;
  progress(slot: BrowserSlot, progress: AbpProgress): void;
  notification(slot: BrowserSlot, notification: { method?: string; params?: unknown }): void;
  elicitation(slot: BrowserSlot, request: AbpElicitation): Promise<AbpElicitationAnswer>;
}

export const AGENT = { name: 'mcp-offload', version: VERSION };

export class BrowserSlot {
  session?: BrowserSession;
  registry?: CapabilityRegistry;
  info?: ConnectionInfo;
  /** Why the page went away, until the next connect. */
  lost?: string;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly name: string) {}

  get connected(): boolean {
    return this.session !== undefined && this.info !== undefined;
  }

  /** Connects and disconnects of one slot never overlap. */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

export class SessionPool {
  private readonly slots = new Map<string, BrowserSlot>();
  private closing?: Promise<void>;

  constructor(
    private readonly options: AbpOptions,
    private readonly createSession: SessionFactory,
    private readonly hooks: PoolHooks,
    private readonly log: Logger,
  ) {}

  get(name: string): BrowserSlot | undefined {
    return this.slots.get(name);
  }

  /** Slots in the order they were first used, the default first. */
  all(): BrowserSlot[] {
    return [...this.slots.values()].sort(
      (a, b) => Number(b.name === DEFAULT_SESSION) - Number(a.name === DEFAULT_SESSION),
    );
  }

  /** Disconnects first when connected; on failure the slot is left disconnected and the error thrown. */
  connect(name: string, target: ConnectTarget): Promise<ConnectionInfo> {
    if (this.closing) return Promise.reject(new Error('the ABP backend is shutting down'));
    const slot = this.slots.get(name) ?? new BrowserSlot(name);
    this.slots.set(name, slot);
    return slot.exclusive(async () => {
      const replaced = slot.session !== undefined;
      if (replaced) await this.release(slot);
      const log = this.log.child({ session: name });
      const session = this.createSession(browserOptionsFor(this.options, name, AGENT), this.eventsFor(slot, log), log);
      slot.session = session;
      slot.lost = undefined;
      try {
        const info = await session.connect(target);
        if (slot.session !== session) throw new Error(`session "${name}" was disconnected while connecting`);
        slot.info = info;
        slot.registry = new CapabilityRegistry(info.manifest.capabilities, STATIC_TOOL_NAMES);
        slot.registry.update(info.capabilities);
        if (slot.registry.shadowed.length) {
          log.warn(
            { capabilities: slot.registry.shadowed },
            'capabilities whose tool name is taken; reachable through abp_call only',
          );
        }
        log.info({ app: info.app.name, pageUrl: info.pageUrl, sessionId: info.sessionId }, 'ABP app connected');
        this.hooks.toolsChanged();
        return info;
      } catch (error) {
        if (slot.session === session) {
          slot.session = undefined;
          await session.disconnect().catch(() => undefined);
        }
        if (replaced) this.hooks.toolsChanged();
        throw error;
      }
    });
  }

  /** False when the slot was not connected. Never throws: problems are logged. */
  disconnect(name: string): Promise<boolean> {
    const slot = this.slots.get(name);
    if (!slot) return Promise.resolve(false);
    return slot.exclusive(async () => {
      if (!slot.session) return false;
      await this.release(slot);
      this.hooks.toolsChanged();
      return true;
    });
  }

  /** Every browser closed; later connects are refused. Safe to call more than once. */
  closeAll(): Promise<void> {
    this.closing ??= Promise.all(
      [...this.slots.values()].map((slot) =>
        slot.exclusive(() => (slot.session ? this.release(slot) : Promise.resolve())),
      ),
    ).then(() => undefined);
    return this.closing;
  }

  /**
   * One tool per capability name across the connected sessions, described from the first session
   * (the default first) that offers it; `sessions` lists who offers each.
   */
  capabilityTools(): Array<CapabilityTool & { sessions: string[] }> {
    const tools = new Map<string, CapabilityTool & { sessions: string[] }>();
    for (const slot of this.all()) {
      if (!slot.connected || !slot.registry) continue;
      for (const tool of slot.registry.tools()) {
        const known = tools.get(tool.toolName);
        if (known) known.sessions.push(slot.name);
        else tools.set(tool.toolName, { ...tool, sessions: [slot.name] });
      }
    }
    return [...tools.values()];
  }

  private async release(slot: BrowserSlot): Promise<void> {
    const session = slot.session;
    slot.session = undefined;
    slot.info = undefined;
    slot.registry?.clear();
    slot.registry = undefined;
    try {
      await session?.disconnect();
    } catch (error) {
      this.log.warn(
        { session: slot.name, err: error instanceof Error ? error.message : String(error) },
        'disconnect failed; the session is dropped anyway',
      );
    }
    this.log.info({ session: slot.name }, 'ABP session disconnected');
  }

  private eventsFor(slot: BrowserSlot, log: Logger): SessionEvents {
    const current = () => slot.session !== undefined;
    return {
      onProgress: (progress) => current() && this.hooks.progress(slot, progress),
      onNotification: (notification) => current() && this.hooks.notification(slot, notification),
      onElicitation: (request) => this.hooks.elicitation(slot, request),
      onCapabilitiesChanged: (capabilities: AbpCapability[]) => {
        if (!slot.registry) return;
        slot.registry.update(capabilities);
        log.info({ capabilities: slot.registry.tools().length }, 'the app changed its capabilities');
        this.hooks.toolsChanged();
      },
      onPageLost: (reason) => {
        slot.lost = reason;
        log.warn({ reason }, 'the ABP page is gone');
      },
    };
  }
}
