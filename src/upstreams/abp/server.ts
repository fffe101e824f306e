/**
 * The built-in ABP browser backend as an MCP server. The gateway talks to it like to any upstream
 * (over an in-memory transport pair, see transport-factory.ts), so its results go through the same
 * artifact pipeline, with the ABP preset (preset.ts) making every successful call a saved file.
 */
import { Server } from '@modelcontextprotocol/server';
import type { CallToolResult, ServerNotification } from '@modelcontextprotocol/server';
import type { Logger } from '../../logger.js';
import { VERSION } from '../../version.js';
import { CallRunner } from './calls.js';
import { answerFrom, CANCELLED, planElicitation, unsupportedElicitation } from './elicitation.js';
import { handleStaticTool } from './static-handlers.js';
import { DEFAULT_SESSION, type AbpOptions } from '../../config/abp.js';
import { SessionPool, type BrowserSlot, type SessionFactory } from './pool.js';
import { errorResult } from './results.js';
import { dynamicTool, splitSession, STATIC_TOOL_LIST, STATIC_TOOL_NAMES } from './tools.js';
import type { AbpElicitation, AbpElicitationAnswer, AbpProgress } from './types.js';
import { ArgumentValidator } from './validation.js';
import { isPlainObject } from '../../config/pointer.js';

const INSTRUCTIONS =
  'Browser backend for ABP (Agentic Browser Protocol) apps. Call abp_connect with a url (or an extension) first; ' +
  "the app's capabilities then appear as abp_* tools, and abp_call calls any of them by name. Successful results " +
  'are saved to files: you get the path, type, size and metadata, and read the file only if you need to.';

export interface AbpBackend {
  server: Server;
  pool: SessionPool;
  /** Every browser closed. */
  close(): Promise<void>;
}

export function createAbpServer(options: AbpOptions, log: Logger, createSession: SessionFactory): AbpBackend {
  const server = new Server(
    { name: 'mcp-offload-abp', version: VERSION },
    { capabilities: { tools: { listChanged: true }, logging: {} }, instructions: INSTRUCTIONS },
  );
  const runner = new CallRunner(options, new ArgumentValidator(log), log);
  const pool = new SessionPool(
    options,
    createSession,
    {
      toolsChanged: () => void server.sendToolListChanged().catch(() => undefined),
      progress: (slot, progress) => forwardProgress(runner, slot, progress),
      notification: (slot, notification) => {
        const level = notification.method === 'notifications/error' ? 'error' : 'info';
        const logger = slot.name === DEFAULT_SESSION ? 'abp' : `abp/${slot.name}`;
        void server.sendLoggingMessage({ level, logger, data: notification }).catch(() => undefined);
      },
      elicitation: (slot, request) => elicit(server, runner, options, log, slot, request),
    },
    log,
  );

  server.setRequestHandler('tools/list', async () => ({
    tools: [...STATIC_TOOL_LIST, ...pool.capabilityTools().map((tool) => dynamicTool(tool, tool.sessions))],
  }));

  server.setRequestHandler('tools/call', async (request, ctx): Promise<CallToolResult> => {
    const { name } = request.params;
    const args = isPlainObject(request.params.arguments) ? request.params.arguments : {};
    const call = {
      requestId: ctx.mcpReq.id,
      signal: ctx.mcpReq.signal,
      sendNotification: (n: { method: string; params?: Record<string, unknown> }) =>
        ctx.mcpReq.notify(n as ServerNotification),
      ...(ctx.mcpReq._meta?.progressToken !== undefined ? { progressToken: ctx.mcpReq._meta.progressToken } : {}),
    };
    if (STATIC_TOOL_NAMES.has(name)) return handleStaticTool(name, args, { pool, runner, call, log });
    const offered = pool.capabilityTools().find((tool) => tool.toolName === name);
    if (!offered) {
      return errorResult(
        `Unknown tool "${name}": no connected browser session offers it. Call abp_status to see what is connected, or abp_connect first.`,
      );
    }
    const { session, params } = splitSession(args, hasSessionParameter(offered.capability.inputSchema));
    const slotName =
      session ??
      (offered.sessions.includes(DEFAULT_SESSION)
        ? DEFAULT_SESSION
        : offered.sessions.length === 1
          ? offered.sessions[0]!
          : DEFAULT_SESSION);
    const slot = pool.get(slotName);
    if (!slot?.connected)
      return errorResult(
        `NOT_CONNECTED: no ABP app is connected in session "${slotName}"; offered by: ${offered.sessions.join(', ')}`,
      );
    return runner.run(slot, offered.capability.name, params, call);
  });

  // The gateway stopping (or the client side closing) ends every browser.
  server.onclose = () => void pool.closeAll();
  return {
    server,
    pool,
    close: async () => {
      await server.close().catch(() => undefined);
      await pool.closeAll();
    },
  };
}

/** The app's progress on the MCP progress token of the call it belongs to. */
function forwardProgress(runner: CallRunner, slot: BrowserSlot, progress: AbpProgress): void {
  const call = runner.byProgressToken(slot.name, progress.operationId);
  if (!call || call.progressToken === undefined) return;
  const value = typeof progress.progress === 'number' ? progress.progress : progress.percentage;
  if (typeof value !== 'number') return;
  const total = typeof progress.progress === 'number' ? progress.total : 100;
  const message = [progress.stage, progress.status].filter((s) => typeof s === 'string' && s !== '').join(': ');
  void call
    .sendNotification({
      method: 'notifications/progress',
      params: {
        progressToken: call.progressToken,
        progress: value,
        ...(total !== undefined ? { total } : {}),
        ...(message ? { message } : {}),
      },
    })
    .catch(() => undefined);
}

/**
 * The app's question goes to the MCP client as a form elicitation, related to the call being served.
 * A client that cannot answer (no elicitation support, or the request fails) gets the configured
 * fallback: defaults (the ABP bridge's auto-answers) or cancel.
 */
async function elicit(
  server: Server,
  runner: CallRunner,
  options: AbpOptions,
  log: Logger,
  slot: BrowserSlot,
  request: AbpElicitation,
): Promise<AbpElicitationAnswer> {
  const plan = planElicitation(request);
  if (!plan) return unsupportedElicitation(request.method);
  const call = runner.latest(slot.name);
  try {
    const result = await server.elicitInput(plan.request, {
      ...(call ? { relatedRequestId: call.requestId, signal: call.signal } : {}),
      timeout: options.callTimeoutMs,
    });
    return answerFrom(plan, result);
  } catch (error) {
    const fallback = options.elicitation === 'defaults' ? plan.fallback() : CANCELLED;
    log.info(
      { method: request.method, err: error instanceof Error ? error.message : String(error), fallback },
      'elicitation not answered by the client; using the fallback',
    );
    return fallback;
  }
}

function hasSessionParameter(schema: Record<string, unknown> | undefined): boolean {
  return isPlainObject(schema?.properties) && 'session' in schema.properties;
}
