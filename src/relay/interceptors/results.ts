import type { CallToolResult } from '@modelcontextprotocol/server';
import { ARTIFACTS_META_KEY } from '../../pipeline/pipeline.js';
import type { CallInfo } from '../../pipeline/types.js';
import type { Frame } from '../../wire/frame.js';
import type { Upstream } from '../../upstreams/upstream.js';
import type { Call } from '../call.js';
import type { Interceptor } from '../chain.js';
import type { RelayContext } from '../context.js';
import { isToolResult } from '../results.js';
import { ATTR } from '../../tracing/attributes.js';
import { traced } from '../../tracing/trace.js';
import { definitionOf, rewritableFor, withoutStructuredContent } from '../apps.js';

/**
 * Tool results through the artifact pipeline (pipeline/pipeline.ts): binary and oversized parts are stored and
 * replaced by summaries, previews and links, by the tool's rules. A result no layer touches is the very same frame,
 * written as it came. A task's final result is its tool's result and goes through as one: inlined in a completed
 * task's `tasks/get` answer (2026-07-28) or as the whole `tasks/result` answer (2025). New artifacts are new
 * resources of the session, whose client hears so. For a host of MCP Apps (relay/apps.ts), a tool's own view gets
 * its `structuredContent` byte for byte while `content` is compacted, an app-only tool's result passes untouched,
 * and a result with artifacts says how to show them in the proxy's artifact viewer.
 */
export function results({ offload }: RelayContext): Interceptor {
  return {
    name: 'results',
    takes: (method, fromClient) => fromClient && RESULT_KINDS.has(method),
    // Not async: a result the pipeline surely passes is answered with no turn of its own (chain.ts).
    request(call, next) {
      const upstream = call.upstream;
      if (!upstream) return next(call);
      return next(call).then((answer) => resultOf(call, upstream, answer));
    },
  };

  /** The answer with its tool result through the pipeline: at once when the pipeline surely passes it. */
  function resultOf(call: Call, upstream: Upstream, answer: Frame): Frame | Promise<Frame> {
    const result = answer.message.result;
    if (!result) return answer;
    const kind = RESULT_KINDS.get(call.method)!;
    const tool = kind === 'call' ? call.report?.tool : upstream.tasks.toolOf(String(call.params.taskId));
    if (tool === undefined) return answer;
    const rewritable = call.hostsApps ? rewritableFor(definitionOf(upstream, tool), true) : 'all';
    if (rewritable === 'nothing') return answer;
    const info = toolCallInfo(call, upstream.name, tool);
    if (kind !== 'inlined') {
      if (!isToolResult(result)) return answer;
      // Most results pass as they came, which the pipeline tells at a glance. (Traced, the pipeline's span is made
      // all the same.)
      const input = rewritable === 'content' ? withoutStructuredContent(result as unknown as CallToolResult) : result;
      if (!call.trace && offload.passesUnchanged(input as unknown as CallToolResult, info, answer.blobs)) return answer;
    }
    return piped(call, upstream, answer, kind, { tool, rewritable, info });
  }

  async function piped(
    call: Call,
    upstream: Upstream,
    answer: Frame,
    kind: ResultKind,
    { tool, rewritable, info }: { tool: string; rewritable: Rewritable; info: CallInfo },
  ): Promise<Frame> {
    const result = answer.message.result!;
    const process = async (original: CallToolResult): Promise<CallToolResult> => {
      const input = rewritable === 'content' ? withoutStructuredContent(original) : original;
      // Traced, the pipeline's span is the parent of what it stores.
      const done = await traced(
        call.trace,
        'pipeline',
        { [ATTR.server]: upstream.name, [ATTR.toolName]: tool },
        (span) => offload.processResult(input, span ? { ...info, trace: span } : info, answer.blobs),
      );
      if (done === input) return original;
      const hinted = call.hostsApps ? offload.viewerHint(done, upstream.name, tool) : done;
      return rewritable === 'content' ? withStructuredContentOf(hinted, original) : hinted;
    };
    let processed: Frame;
    if (kind === 'inlined') {
      const inlined = result.result as Record<string, unknown> | undefined;
      if (!inlined || !isToolResult(inlined)) return answer;
      const done = await process(inlined as unknown as CallToolResult);
      // A frame splices members two levels deep at most: here the view's data keeps its value, not its bytes.
      processed = (done as unknown) === inlined ? answer : answer.with(['result', 'result'], done);
    } else {
      const done = await process(result as unknown as CallToolResult);
      if ((done as unknown) === result) processed = answer;
      // The view's data keeps its bytes: only the members the pipeline changed are spliced into the answer.
      else if (rewritable === 'content') processed = spliceChanged(answer, result, done);
      else processed = answer.replace({ ...answer.message, result: done as never });
    }
    if (processed !== answer && hasArtifacts(processed)) announceArtifacts(call, offload.offersResources);
    return processed;
  }
}

/** The processed result with the original's `structuredContent` (the object, unchanged), where it had one. */
function withStructuredContentOf(done: CallToolResult, original: CallToolResult): CallToolResult {
  if (!('structuredContent' in original)) return done;
  return { ...done, structuredContent: original.structuredContent } as CallToolResult;
}

/** The answer with each member of `result` that `done` changed, added or dropped set anew; the rest keeps its text. */
function spliceChanged(answer: Frame, result: Record<string, unknown>, done: CallToolResult): Frame {
  const after = done as unknown as Record<string, unknown>;
  let frame = answer;
  for (const key of new Set([...Object.keys(result), ...Object.keys(after)]))
    if (after[key] !== result[key]) frame = frame.with(['result', key], after[key]);
  return frame;
}

type ResultKind = 'call' | 'inlined' | 'whole';
type Rewritable = ReturnType<typeof rewritableFor>;

/** Which answers carry a tool result: a call's own, or a task's (inlined, or the whole answer). */
const RESULT_KINDS = new Map<string, ResultKind>([
  ['tools/call', 'call'],
  ['tasks/get', 'inlined'],
  ['tasks/result', 'whole'],
]);

/**
 * The call a result answers, as the pipeline and the argument restore read it: made once per call (write-back,
 * restore and results all read it), again only when an interceptor has changed the call since.
 */
export function callInfo(call: Call): CallInfo {
  const made = call.info;
  if (made && made.frame === call.frame && made.report === call.report) return made.info;
  const session = call.session!;
  const args = call.params.arguments;
  const client = call.envelope.clientInfo ?? session.clientInfo;
  const info: CallInfo = {
    server: call.report?.server ?? call.upstream?.name ?? '',
    tool: call.report?.tool ?? '',
    ...(args !== null && typeof args === 'object' ? { args: args as Record<string, unknown> } : {}),
    owner: session.owner,
    ...(session.identity.links ? { links: session.identity.links } : {}),
    ...(client ? { client } : {}),
  };
  call.info = { frame: call.frame, report: call.report, info };
  return info;
}

/** callInfo for a result of `server`'s `tool` (a task's result names its tool only in the task). */
function toolCallInfo(call: Call, server: string, tool: string): CallInfo {
  const info = callInfo(call);
  return info.server === server && info.tool === tool ? info : { ...info, server, tool };
}

function hasArtifacts(answer: Frame): boolean {
  const result = answer.message.result;
  const inner = result?.result as Record<string, unknown> | undefined;
  const meta = (result?._meta ?? inner?._meta) as Record<string, unknown> | undefined;
  return meta?.[ARTIFACTS_META_KEY] !== undefined;
}

/** New artifacts are new resources of the session. */
function announceArtifacts(call: Call, offersResources: boolean): void {
  if (!offersResources) return;
  void call.session!.notify('notifications/resources/list_changed');
}
