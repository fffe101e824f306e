/**
 * abp_connect, abp_disconnect, abp_status, abp_call and abp_render_to_pdf. Every failure is an
 * `isError` result the model can read; nothing here throws at the client.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Logger } from '../../logger.js';
import { notConnected, type ActiveCall, type CallRunner } from './calls.js';
import { DEFAULT_SESSION, SESSION_NAME } from '../../config/abp.js';
import type { BrowserSlot, SessionPool } from './pool.js';
import { errorResult, pdfResult, textResult } from './results.js';
import { STATIC_TOOLS } from './tools.js';
import type { ConnectTarget } from './types.js';
import { isPlainObject } from '../../config/pointer.js';

export interface StaticContext {
  pool: SessionPool;
  runner: CallRunner;
  call: Omit<ActiveCall, 'slot' | 'capability'>;
  log: Logger;
}

export async function handleStaticTool(
  name: string,
  args: Record<string, unknown>,
  context: StaticContext,
): Promise<CallToolResult> {
  const session = args.session ?? DEFAULT_SESSION;
  if (typeof session !== 'string' || !SESSION_NAME.test(session)) {
    return errorResult(
      `INVALID_PARAMS: "session" must be 1 to 32 letters, digits, "_" or "-", got ${JSON.stringify(args.session)}`,
    );
  }
  const { pool } = context;
  switch (name) {
    case STATIC_TOOLS.connect:
      return connect(pool, session, args);
    case STATIC_TOOLS.disconnect:
      return textResult(
        (await pool.disconnect(session))
          ? `Disconnected session "${session}".`
          : `Session "${session}" was not connected.`,
      );
    case STATIC_TOOLS.status:
      return textResult(status(args.session === undefined ? pool.all() : pool.all().filter((s) => s.name === session)));
    case STATIC_TOOLS.call: {
      const slot = pool.get(session);
      if (!slot?.connected) return errorResult(notConnected(session));
      if (typeof args.capability !== 'string' || args.capability === '')
        return errorResult('INVALID_PARAMS: "capability" must be the name of a capability, e.g. "export.pdf"');
      if (args.params !== undefined && !isPlainObject(args.params))
        return errorResult('INVALID_PARAMS: "params" must be an object');
      return context.runner.run(
        slot,
        args.capability,
        (args.params as Record<string, unknown> | undefined) ?? {},
        context.call,
      );
    }
    case STATIC_TOOLS.renderToPdf:
      return renderToPdf(pool.get(session), session, args, context.log);
    default:
      return errorResult(`Unknown tool "${name}"`);
  }
}

async function connect(pool: SessionPool, session: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const target = connectTarget(args);
  if (typeof target === 'string') return errorResult(`INVALID_PARAMS: ${target}`);
  try {
    const info = await pool.connect(session, target);
    const tools = pool.get(session)?.registry?.tools() ?? [];
    return textResult(
      [
        `Connected to ${info.app.name} ${info.app.version} at ${info.pageUrl} (browser session "${session}", ABP session ${info.sessionId}).`,
        `${tools.length} capabilities: ${tools.map((t) => `${t.capability.name} (${t.toolName})`).join(', ') || 'none'}.`,
        'Call them with abp_call {capability, params} or with their own tools.',
      ].join('\n'),
    );
  } catch (error) {
    return errorResult(`Connection failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Exactly one of url, extensionPath, extensionId; abpPage only with an extension. A string is the problem. */
export function connectTarget(args: Record<string, unknown>): ConnectTarget | string {
  const given = (['url', 'extensionPath', 'extensionId'] as const).filter((key) => args[key] !== undefined);
  if (given.length !== 1) {
    return given.length === 0
      ? 'give one of "url" (a web app), "extensionPath" (an unpacked extension) or "extensionId" (a Chrome Web Store extension)'
      : `give only one of "url", "extensionPath", "extensionId" (got ${given.map((k) => `"${k}"`).join(' and ')})`;
  }
  const key = given[0]!;
  const value = args[key];
  if (typeof value !== 'string' || value.trim() === '') return `"${key}" must be a non-empty string`;
  if (args.abpPage !== undefined && (typeof args.abpPage !== 'string' || args.abpPage === ''))
    return '"abpPage" must be a non-empty string';
  if (key === 'url') {
    if (args.abpPage !== undefined) return '"abpPage" applies to extensions only; give the page in "url" itself';
    if (!/^https?:\/\//i.test(value))
      return `"url" must be an http:// or https:// address, got ${JSON.stringify(value)}`;
    return { url: value };
  }
  const page = args.abpPage !== undefined ? { abpPage: args.abpPage as string } : {};
  if (key === 'extensionId') {
    if (!/^[a-p]{32}$/.test(value)) return `"extensionId" must be 32 letters from a to p, got ${JSON.stringify(value)}`;
    return { extensionId: value, ...page };
  }
  return { extensionPath: value, ...page };
}

function status(slots: BrowserSlot[]): string {
  const connected = slots.filter((s) => s.connected);
  if (!connected.length) return 'No ABP app is connected. Call abp_connect with a url, extensionPath or extensionId.';
  return connected
    .map((slot) => {
      const info = slot.info!;
      const tools = slot.registry?.tools() ?? [];
      const unavailable = (slot.registry?.list() ?? []).filter((c) => c.available === false).map((c) => c.name);
      return [
        `Session "${slot.name}": ${slot.lost ? `page lost (${slot.lost})` : 'connected'}`,
        `  App: ${info.app.name} ${info.app.version} (${info.app.id})`,
        `  Page: ${info.pageUrl}${info.extensionId ? ` (extension ${info.extensionId})` : ''}`,
        `  ABP session: ${info.sessionId}`,
        `  Capabilities (${tools.length}): ${tools.map((t) => `${t.capability.name} → ${t.toolName}`).join(', ') || 'none'}`,
        ...(unavailable.length ? [`  Unavailable: ${unavailable.join(', ')}`] : []),
      ].join('\n');
    })
    .join('\n\n');
}

async function renderToPdf(
  slot: BrowserSlot | undefined,
  session: string,
  args: Record<string, unknown>,
  log: Logger,
): Promise<CallToolResult> {
  if (!slot?.connected || !slot.session) return errorResult(notConnected(session));
  if (typeof args.html !== 'string' || args.html === '')
    return errorResult('INVALID_PARAMS: "html" must be a non-empty string');
  if (args.options !== undefined && !isPlainObject(args.options))
    return errorResult('INVALID_PARAMS: "options" must be an object');
  try {
    return pdfResult(await slot.session.renderToPdf(args.html, args.options as Record<string, unknown> | undefined));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log.warn({ session, err: message }, 'render to PDF failed');
    return errorResult(`OPERATION_FAILED: rendering the PDF failed: ${message}`);
  }
}
