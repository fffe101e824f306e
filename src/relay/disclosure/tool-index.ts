import MiniSearch from 'minisearch';
import type { Tool } from '@modelcontextprotocol/server';
import { terms } from './text.js';
import { concepts, tagged } from './vocabulary.js';

/** A tool as the index knows it: the name the client calls it by, the server it comes from, its definition. */
export interface IndexedTool {
  readonly name: string;
  readonly server: string;
  readonly tool: Tool;
}

/** A description's first terms say what the tool does (its summary); what follows is details. */
const SUMMARY_TERMS = 48;
/** Past this many terms a description's details add no signal, only length (examples, hints, caveats). */
const DETAIL_TERMS = 160;
/**
 * Field weights. A tool's name and summary say what it does; its details and parameters say what it takes and
 * how; a concept shared with the task (vocabulary.ts) is as good as a word of the name.
 */
const BOOST = { name: 3, title: 1, summary: 2, details: 0.4, params: 0.8, concepts: 6 };
const FIELDS = ['name', 'title', 'summary', 'details', 'params', 'concepts'] as const;
type Field = (typeof FIELDS)[number];
type Doc = { id: number } & Record<Field, string>;

/**
 * A full-text index of the catalog (MiniSearch's BM25+, over terms already split, stemmed and tagged with concepts
 * here), built once per catalog: a list change makes a new catalog and so a new index.
 *
 * One server's long descriptions must not drown another's short ones: BM25 normalizes a field's length by the
 * average over every tool, so a server whose tools all carry pages of examples matches most words of any task a
 * little. Each tool's score is therefore weighed by how long its server's descriptions are against the catalog's
 * (boostDocument), and a description counts in full only for its first paragraph.
 */
export class ToolIndex {
  private readonly search_: MiniSearch<Doc>;
  private readonly weight: Float64Array;
  private readonly byName = new Map<string, IndexedTool>();

  constructor(readonly tools: readonly IndexedTool[]) {
    const docs = tools.map((entry, id) => document(entry, id));
    for (const entry of tools) this.byName.set(entry.name, entry);
    this.weight = serverWeights(tools, docs);
    this.search_ = new MiniSearch<Doc>({
      fields: [...FIELDS],
      idField: 'id',
      tokenize: (text) => (text ? text.split(' ') : []),
      processTerm: (term) => term,
    });
    this.search_.addAll(docs);
  }

  get(name: string): IndexedTool | undefined {
    return this.byName.get(name);
  }

  /** The tools that best match a task, best first. */
  search(query: string, limit: number): IndexedTool[] {
    const { words, tags } = tagged(terms(query));
    if (words.length === 0 && tags.length === 0) return [];
    const weight = this.weight;
    const hits = this.search_.search(
      {
        combineWith: 'OR',
        queries: [
          { queries: words, fields: FIELDS.filter((f) => f !== 'concepts'), combineWith: 'OR' as const },
          ...(tags.length ? [{ queries: tags, fields: ['concepts'], combineWith: 'OR' as const }] : []),
        ],
      },
      { boost: BOOST, boostDocument: (id: number) => weight[id]!, combineWith: 'OR' },
    );
    return hits.slice(0, limit).map((hit) => this.tools[hit.id as number]!);
  }
}

function document({ name, tool, server }: IndexedTool, id: number): Doc {
  const nameTerms = [...new Set([...terms(name), ...terms(server)])];
  const titleTerms = terms([tool.title, tool.annotations?.title].filter(Boolean).join(' '));
  const all = terms(tool.description ?? '');
  const summary = all.slice(0, SUMMARY_TERMS);
  const details = all.slice(SUMMARY_TERMS, SUMMARY_TERMS + DETAIL_TERMS);
  const params = terms(parameterWords(tool.inputSchema).join(' '));
  const tags = concepts([...nameTerms, '|', ...titleTerms, '|', ...summary, '|', ...params]);
  return {
    id,
    name: nameTerms.join(' '),
    title: titleTerms.join(' '),
    summary: summary.join(' '),
    details: details.join(' '),
    params: params.join(' '),
    concepts: tags.join(' '),
  };
}

/** The top-level parameters' names and the values their enums allow ("get_diff", "resolved"): what a call can do. */
function parameterWords(schema: Tool['inputSchema'] | undefined): string[] {
  const words: string[] = [];
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    words.push(name);
    for (const value of enumValues(property)) words.push(value);
  }
  return words;
}

/** The string values an enum allows, also where the enum sits in an anyOf or oneOf (an optional field, say). */
function enumValues(property: unknown): string[] {
  if (typeof property !== 'object' || property === null) return [];
  const { enum: values, anyOf, oneOf } = property as { enum?: unknown; anyOf?: unknown; oneOf?: unknown };
  const own = Array.isArray(values) ? values.filter((v): v is string => typeof v === 'string') : [];
  const alternatives = [anyOf, oneOf].flatMap((list) => (Array.isArray(list) ? list.flatMap(enumValues) : []));
  return [...own, ...alternatives];
}

/**
 * Per-server length normalization: a tool's score is divided by (its server's mean indexed length / the catalog's)
 * to the power 0.5, within [0.5, 2], so servers with terse descriptions stand level with verbose ones.
 */
function serverWeights(tools: readonly IndexedTool[], docs: readonly Doc[]): Float64Array {
  const length = (doc: Doc) => `${doc.summary} ${doc.details}`.split(' ').length;
  const perServer = new Map<string, { sum: number; n: number }>();
  let total = 0;
  docs.forEach((doc, i) => {
    const server = tools[i]!.server;
    const s = perServer.get(server) ?? { sum: 0, n: 0 };
    s.sum += length(doc);
    s.n += 1;
    perServer.set(server, s);
    total += length(doc);
  });
  const mean = total / Math.max(1, docs.length);
  const weights = new Float64Array(docs.length);
  tools.forEach((t, i) => {
    const s = perServer.get(t.server)!;
    weights[i] = Math.min(2, Math.max(0.5, Math.pow(mean / (s.sum / s.n), 0.25)));
  });
  return weights;
}
