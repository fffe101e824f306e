import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { createRequire } from 'node:module';
import { splitLines } from './lines.js';
import { searchLines, SEARCH_BUDGET_MS } from './line-search.js';
import { boundedError, clipped, quoted } from './quoted.js';
import type { ArtifactOptions } from '../config/types.js';
import { isTextMimeType } from './mime.js';
import { utf8 } from './resources.js';
import { humanSize } from './sizes.js';
import type { ArtifactStore } from './store.js';
import type { ArtifactLinks, ArtifactRecord } from './types.js';
import { parseJson, stringifyJson } from '../wire/json.js';

const MAX_MATCHES = 200;

/** The built-in tools, under their configured names. */
export function artifactTools(options: ArtifactOptions['tools']): Tool[] {
  return [
    {
      name: options.listName,
      title: 'List stored tool outputs',
      description:
        'Lists the files mcp-offload stored from tool results of this session (binary data and large outputs kept out of the context), newest first.',
      inputSchema: {
        type: 'object',
        properties: {
          server: { type: 'string', description: 'Only artifacts from this upstream server.' },
          tool: { type: 'string', description: 'Only artifacts from this tool (its upstream name).' },
          limit: { type: 'integer', minimum: 1, maximum: 500, description: 'At most this many (default 50).' },
        },
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: options.readName,
      title: 'Read part of a stored tool output',
      description: `Reads a stored artifact without flooding the context: a line range, a byte range, a JSONPath query (JSON artifacts) or a pattern search (text). Answers are cut at ${options.readLimit} characters.`,
      inputSchema: {
        type: 'object',
        properties: {
          uri: { type: 'string', description: 'The artifact:// URI from a summary or artifact_list.' },
          lines: {
            type: 'string',
            description: 'Line range of a text artifact, 1-based and inclusive: "1-40", "200-", "15".',
          },
          offset: { type: 'integer', minimum: 0, description: 'Byte offset to start at.' },
          length: {
            type: 'integer',
            minimum: 1,
            description: 'Number of bytes to read from offset. Binary ranges come back as base64.',
          },
          query: { type: 'string', description: 'JSONPath into a JSON artifact, e.g. "$.items[0:5].name".' },
          pattern: {
            type: 'string',
            description:
              'Regular expression in RE2 syntax (case-insensitive; no backreferences or lookaround); answers the matching lines with their numbers.',
          },
          maxChars: {
            type: 'integer',
            minimum: 100,
            description: `Cut the answer at this many characters (at most ${options.readLimit}).`,
          },
        },
        required: ['uri'],
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
  ];
}

export interface ArtifactToolCall {
  store: ArtifactStore;
  options: ArtifactOptions['tools'];
  owner: string;
  name: string;
  args: Record<string, unknown>;
  /** Over HTTP: download links instead of (or next to) paths, and the gallery. */
  links?: ArtifactLinks;
}

/** Answers a call of a built-in tool. Mistakes in the arguments are tool errors the model can fix. */
export async function callArtifactTool(call: ArtifactToolCall): Promise<CallToolResult> {
  try {
    if (call.name === call.options.listName) return await listArtifacts(call);
    return await readArtifactPart(call);
  } catch (error) {
    // Bounded as answers are, whatever a message quotes: an error reaches the model's context too.
    const text = boundedError(error instanceof Error ? error.message : String(error), call.options.readLimit);
    return { isError: true, content: [{ type: 'text', text }] };
  }
}

async function listArtifacts({ store, owner, args, links }: ArtifactToolCall): Promise<CallToolResult> {
  const limit = typeof args.limit === 'number' ? args.limit : 50;
  await store.loaded();
  const records = store.listNames({ owner, server: str(args.server), tool: str(args.tool) }).slice(0, limit);
  if (!records.length) return { content: [{ type: 'text', text: 'No artifacts stored in this session.' }] };
  const where = async (r: ArtifactRecord) =>
    (links ? [...(links.showPath ? [r.path] : []), await links.urlFor(r)] : [r.path]).map((w) => `\n  ${w}`).join('');
  const lines = await Promise.all(
    records.map(
      async (r) =>
        `${r.uri}  ${r.mimeType}  ${humanSize(r.size)}  ${r.server}/${r.tool}  ${r.created}${await where(r)}`,
    ),
  );
  const gallery = links?.galleryUrl ? `\nGallery: ${links.galleryUrl()}` : '';
  return {
    content: [{ type: 'text', text: `${records.length} artifact(s), newest first:\n${lines.join('\n')}${gallery}` }],
  };
}

async function readArtifactPart(call: ArtifactToolCall): Promise<CallToolResult> {
  const { store, owner, args, options, links } = call;
  const uri = str(args.uri);
  if (!uri) throw new Error('uri is required: an artifact:// URI from a summary or artifact_list');
  const record = await store.find(uri, owner);
  if (!record || !record.owners.includes(owner)) throw new Error(`no artifact ${uri} in this session`);
  const limit = Math.min(typeof args.maxChars === 'number' ? args.maxChars : options.readLimit, options.readLimit);

  if (typeof args.offset === 'number' || typeof args.length === 'number') {
    const start = typeof args.offset === 'number' ? args.offset : 0;
    const length = typeof args.length === 'number' ? args.length : limit;
    const bytes = await store.read(record.id, { start, end: Math.min(start + length, record.size) });
    const text = isTextMimeType(record.mimeType) ? utf8(bytes) : undefined;
    const body = text ?? bytes.toString('base64');
    return answer(
      `bytes ${start}-${start + bytes.length} of ${record.size}${text === undefined ? ' (base64)' : ''}`,
      body,
      limit,
    );
  }
  if (!isTextMimeType(record.mimeType)) {
    // Over HTTP a download link, not the gateway's path: the client cannot open the gateway's files.
    const where = links
      ? `${links.showPath ? ` at ${record.path},` : ''} download: ${await links.urlFor(record)}.`
      : ` at ${record.path}.`;
    const open = links ? 'Download it' : 'Open the file';
    return answer(
      'binary artifact',
      `${record.mimeType}, ${humanSize(record.size)}${where} ${open}, read it as a resource, or ask for a byte range (offset, length) to get base64.`,
      limit,
    );
  }
  const text = (await store.read(record.id)).toString('utf8');
  if (str(args.query)) return answer(`JSONPath ${clipped(str(args.query)!)}`, query(text, str(args.query)!), limit);
  if (str(args.pattern))
    return answer(
      `lines matching /${clipped(str(args.pattern)!)}/i`,
      await search(text, str(args.pattern)!, limit),
      limit,
    );
  return lineRange(text, str(args.lines), limit, record);
}

function lineRange(text: string, spec: string | undefined, limit: number, record: ArtifactRecord): CallToolResult {
  const lines = splitLines(text);
  const match = spec ? /^\s*(\d+)\s*(?:-\s*(\d*)\s*)?$/.exec(spec) : null;
  if (spec && !match) throw new Error(`lines must look like "1-40", "200-" or "15", got ${quoted(spec)}`);
  const first = match ? Math.max(1, Number(match[1])) : 1;
  const last = match
    ? match[2] === undefined
      ? first
      : match[2] === ''
        ? lines.length
        : Number(match[2])
    : lines.length;
  const body = lines.slice(first - 1, last).join('\n');
  return answer(
    `lines ${first}-${Math.min(last, lines.length)} of ${lines.length} (${humanSize(record.size)})`,
    body,
    limit,
  );
}

// Loaded on the first query, and kept: an idle proxy needs none. Required (its CommonJS build), as field rules do.
type JsonPathPlus = typeof import('jsonpath-plus');
let jsonPathPlus: JsonPathPlus | undefined;

function query(text: string, path: string): string {
  const { JSONPath } = (jsonPathPlus ??= createRequire(import.meta.url)('jsonpath-plus') as JsonPathPlus);
  let json: unknown;
  try {
    json = parseJson(text);
  } catch {
    throw new Error('this artifact is not JSON; use lines or pattern instead of query');
  }
  let found: unknown[];
  try {
    // 'safe': filters such as [?(@.price > 10)] work, without running any code a query might carry.
    found = JSONPath({ path, json: json as object, wrap: true, eval: 'safe' }) as unknown[];
  } catch (error) {
    throw new Error(queryProblem(path, error), { cause: error });
  }
  return stringifyJson(found.length === 1 ? found[0] : found, 2);
}

/** The library's error in our words, with what a query may do. */
function queryProblem(path: string, error: unknown): string {
  const reason = (error instanceof Error ? error.message : String(error)).replace(/^jsonPath:\s*/i, '').split('\n')[0];
  // Both cut short: a 100 KB query (or a library message quoting one) once made a 100 KB error.
  return (
    `the JSONPath query ${quoted(path)} could not be evaluated (${clipped(reason)}). ` +
    'Queries select with $.key, [n], [start:end], [*] and .., and filter with [?(@.field > 10 && @.name == "x")] ' +
    '(comparisons ==, !=, <, <=, >, >=, combined with &&, || and !); nothing else can run in a filter.'
  );
}

async function search(text: string, pattern: string, limit: number): Promise<string> {
  const { hits, lines, stoppedAt } = await searchLines(text, pattern, MAX_MATCHES, limit);
  const found = hits.length ? hits.join('\n') : 'no matching lines';
  if (stoppedAt === undefined) return found;
  // The note goes first: an answer cut at the read limit still says the search was partial.
  return (
    `[search stopped after ${SEARCH_BUDGET_MS / 1000} s at line ${stoppedAt} of ${lines}: this pattern is slow on ` +
    `this text; a simpler one, or lines to read, answers in full]\n${found}`
  );
}

function answer(what: string, body: string, limit: number): CallToolResult {
  const cut = body.length > limit;
  const shown = cut ? body.slice(0, limit) : body;
  const footer = cut ? `\n… [cut at ${limit} of ${body.length} characters; narrow the range or query]` : '';
  return { content: [{ type: 'text', text: `[${what}]\n${shown}${footer}` }] };
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
