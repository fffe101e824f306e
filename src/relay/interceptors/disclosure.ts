import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { Frame } from '../../wire/frame.js';
import { jsonText } from '../../wire/json.js';
import type { Call } from '../call.js';
import type { Interceptor, Next } from '../chain.js';
import type { RelayContext } from '../context.js';
import {
  CALL_TOOL,
  DEFAULT_LIMIT,
  DESCRIBE_TOOLS,
  MAX_LIMIT,
  META_NAMES,
  META_TOOLS,
  SEARCH_TOOLS,
} from '../disclosure/meta-tools.js';
import { estimatedTokens, searching } from '../disclosure/mode.js';
import { shownTools, type ShownTools } from '../disclosure/shown.js';
import { quoted } from '../param-text.js';

/**
 * Progressive tool disclosure (`gateway.disclosure`). In `search` (or `auto`, for a client that does not search
 * tools itself and a catalog over the budget) the client's tools/list holds three meta-tools instead of the
 * catalog: search_tools, describe_tools and call_tool. A call_tool call becomes the call of the tool it names, in
 * its frame, and goes on down the chain as a direct call would: one path, the same routing, pipeline, progress,
 * cancellation, questions and errors. Real names the client learned earlier still work as they are. In `all` this
 * interceptor takes nothing, so nothing changes.
 */
export function disclosure({ config, offload }: RelayContext): Interceptor {
  const { disclosure: mode, disclosureBudget: budget } = config.gateway;
  return {
    name: 'disclosure',
    takes: (method, fromClient) => mode !== 'all' && fromClient && (method === 'tools/list' || method === 'tools/call'),
    async request(call, next) {
      const shown = shownTools(offload, call.session!, call.hostsApps);
      if (!searching(mode, call.envelope.clientInfo, () => estimatedTokens(shown.tools), budget)) return next(call);
      if (call.method === 'tools/list') return Frame.result(call.received.id!, { tools: META_TOOLS });
      const name = call.params.name;
      if (typeof name !== 'string' || !META_NAMES.has(name)) return next(call);
      const args = (call.frame.blobs.restore(call.params.arguments) ?? {}) as Record<string, unknown>;
      if (name === SEARCH_TOOLS) return answer(call, await search(shown, args));
      if (name === DESCRIBE_TOOLS) return answer(call, await describe(shown, args));
      return callThrough(call, next, shown, args);
    },
  };
}

function answer(call: Call, result: CallToolResult): Frame {
  call.report = { server: 'mcp-offload', tool: String(call.params.name) };
  return Frame.result(call.received.id!, result as unknown as Record<string, unknown>);
}

function found(tools: readonly Tool[]): CallToolResult {
  const structuredContent = {
    tools: tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
  };
  return { content: [{ type: 'text', text: jsonText(structuredContent) }], structuredContent };
}

function failed(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

async function search(shown: ShownTools, args: Record<string, unknown>): Promise<CallToolResult> {
  if (typeof args.query !== 'string' || args.query.trim() === '')
    return failed(`${SEARCH_TOOLS}: "query" must be a non-empty string describing the task`);
  const asked = typeof args.limit === 'number' && Number.isFinite(args.limit) ? Math.floor(args.limit) : DEFAULT_LIMIT;
  const limit = Math.min(MAX_LIMIT, Math.max(1, asked));
  return found((await shown.index()).search(args.query, limit).map((hit) => hit.tool));
}

async function describe(shown: ShownTools, args: Record<string, unknown>): Promise<CallToolResult> {
  const names = args.names;
  if (!Array.isArray(names) || names.some((n) => typeof n !== 'string'))
    return failed(`${DESCRIBE_TOOLS}: "names" must be an array of tool names`);
  const index = await shown.index();
  const unknown = names.filter((n: string) => !index.get(n));
  if (unknown.length)
    return failed(`${DESCRIBE_TOOLS}: no tool named ${unknown.map((n) => `"${quoted(n)}"`).join(', ')}`);
  return found(names.map((n: string) => index.get(n)!.tool));
}

/**
 * call_tool: the call's frame becomes the named tool's call (its progress token and the rest of its params kept),
 * checked first against the tool's input schema, then passed down the chain like any call of the client's.
 */
async function callThrough(call: Call, next: Next, shown: ShownTools, args: Record<string, unknown>): Promise<Frame> {
  const target = args.name;
  if (typeof target !== 'string' || target === '')
    return answer(call, failed(`${CALL_TOOL}: "name" must be the name of a tool (find one with ${SEARCH_TOOLS})`));
  const targetArgs = args.arguments ?? {};
  const tool = (await shown.index()).get(target)?.tool;
  if (tool) {
    // Loaded here, as the index is: ajv's compiler is for the few proxies that run call_tool.
    const { argumentProblem } = await import('../disclosure/arguments.js');
    const problem = argumentProblem(tool, targetArgs);
    if (problem)
      return answer(call, failed(`Invalid arguments for tool "${quoted(target)}": ${problem}. Nothing was called.`));
  }
  // The arguments as they came (long literals the reader kept aside stay aside and are put back on the way out).
  const raw = (call.params.arguments as Record<string, unknown> | undefined)?.arguments ?? {};
  call.frame = call.frame.with(['params', 'name'], target).with(['params', 'arguments'], raw);
  return next(call);
}
