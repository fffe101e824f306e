/**
 * The text a model sees in place of a stored payload. It always leads with where the file is (the ABP
 * bridge's `File saved: / Type: / Size:` lines), then facts that help decide whether to open it, and is
 * capped so that no summary can flood the context however much metadata comes with it.
 */
import { humanSize } from '../../artifacts/sizes.js';
import { compactJson as compact, renderTemplate } from './template.js';

export interface SummaryInput {
  path: string;
  uri: string;
  mimeType: string;
  size: number;
  metadata?: Record<string, unknown>;
  facts?: Record<string, unknown>;
  downloadUrl?: string;
  /** The client cannot open the gateway's files (HTTP mode): lead with the download URL instead of the path. */
  hidePath?: boolean;
  template?: string;
  vars?: Record<string, unknown>;
}

export const MAX_SUMMARY_CHARS = 2048;
const MAX_TEMPLATE_CHARS = 500;
const MAX_METADATA_CHARS = 500;
const MAX_OUTLINE_CHARS = 400;
const MAX_FACT_CHARS = 200;
// A download URL is kept whole in all sane cases (signed URLs run to a few hundred characters).
const MAX_URL_CHARS = 1000;

// Facts rendered by a line of their own below; any other fact gets a generic `name: value` line.
const KNOWN_FACTS = new Set([
  'width',
  'height',
  'pages',
  'lines',
  'chars',
  'estimatedTokens',
  'head',
  'outline',
  'columns',
  'columnCount',
]);

function cap(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function baseName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
}

function sizeLine(size: number): string {
  // `Size: 512 bytes (512 B)` would say the same thing twice.
  return size < 1024 ? `Size: ${size} bytes` : `Size: ${size} bytes (${humanSize(size)})`;
}

function factLines(facts: Record<string, unknown>): { lines: string[]; head: string[] } {
  const lines: string[] = [];
  const { width, height, pages, lines: lineCount, estimatedTokens, outline, columns, columnCount, head } = facts;
  if (typeof width === 'number' && typeof height === 'number') lines.push(`Dimensions: ${width}x${height}`);
  if (typeof pages === 'number') lines.push(`Pages: ${pages}`);
  if (typeof lineCount === 'number') {
    lines.push(
      typeof estimatedTokens === 'number'
        ? `Lines: ${lineCount}, about ${estimatedTokens} tokens`
        : `Lines: ${lineCount}`,
    );
  }
  if (Array.isArray(columns) && columns.length > 0) {
    const more =
      typeof columnCount === 'number' && columnCount > columns.length ? `, +${columnCount - columns.length} more` : '';
    lines.push(cap(`Columns: ${columns.join(', ')}${more}`, MAX_OUTLINE_CHARS));
  }
  if (outline !== undefined) lines.push(`Outline: ${cap(compact(outline), MAX_OUTLINE_CHARS)}`);
  for (const [name, value] of Object.entries(facts)) {
    if (KNOWN_FACTS.has(name) || value === undefined) continue;
    lines.push(cap(`${name}: ${typeof value === 'string' ? value : compact(value)}`, MAX_FACT_CHARS));
  }
  const headLines = Array.isArray(head) ? head.map((line) => `  ${cap(String(line), MAX_FACT_CHARS)}`) : [];
  return { lines, head: headLines.length > 0 ? ['Head:', ...headLines] : [] };
}

/** Variables a template can use: the input's fields, `size_human`, `filename`, `name`, and the caller's vars. */
function templateVars(a: SummaryInput): Record<string, unknown> {
  const filename = baseName(a.path);
  const metadataName = a.metadata?.name;
  return {
    // A client over HTTP cannot open the gateway's files: its `path` is where it can fetch the bytes.
    path: a.hidePath ? (a.downloadUrl ?? a.uri) : a.path,
    uri: a.uri,
    mimeType: a.mimeType,
    size: a.size,
    size_human: humanSize(a.size),
    filename,
    name: typeof metadataName === 'string' ? metadataName : filename,
    metadata: a.metadata ?? {},
    facts: a.facts ?? {},
    ...(a.downloadUrl === undefined ? {} : { downloadUrl: a.downloadUrl }),
    ...a.vars,
  };
}

/**
 * ```
 * <template line, when a template is given>
 * File saved: <absolute path>
 * Type: <mime type>
 * Size: <n> bytes (<human size>)
 * Metadata: <compact JSON, when there is any>
 * <fact lines: Dimensions, Pages, Lines + tokens, Columns, Outline, others>
 * Resource: <artifact URI>
 * Download: <url, when given>
 * Head:
 *   <first lines of a text>
 * ```
 * With `hidePath` (and a download URL) the `Download:` line takes the place of `File saved:`.
 * The template line, path, type, size, resource and download lines are always there; metadata, facts and
 * head lines are added in order while the summary stays within 2 KB, and a last line says how many were left
 * out. The head comes last because it is the most expendable.
 */
export function summaryText(a: SummaryInput): string {
  const firstLines: string[] = [];
  if (a.template) firstLines.push(cap(renderTemplate(a.template, templateVars(a)), MAX_TEMPLATE_CHARS));
  const urlFirst = a.hidePath === true && a.downloadUrl !== undefined;
  const where = urlFirst ? `Download: ${cap(a.downloadUrl!, MAX_URL_CHARS)}` : `File saved: ${a.path}`;
  firstLines.push(where, `Type: ${a.mimeType}`, sizeLine(a.size));

  const optional: string[] = [];
  if (a.metadata && Object.keys(a.metadata).length > 0)
    optional.push(`Metadata: ${cap(compact(a.metadata), MAX_METADATA_CHARS)}`);
  const { lines: facts, head } = factLines(a.facts ?? {});
  optional.push(...facts);

  const lastLines = [`Resource: ${a.uri}`];
  if (a.downloadUrl && !urlFirst) lastLines.push(`Download: ${cap(a.downloadUrl, MAX_URL_CHARS)}`);

  const length = (lines: string[]): number => lines.reduce((n, line) => n + line.length + 1, 0);
  let budget = MAX_SUMMARY_CHARS - length(firstLines) - length(lastLines);
  const kept: string[] = [];
  let omitted = 0;
  const keep = (line: string): void => {
    if (omitted === 0 && line.length + 1 <= budget) {
      kept.push(line);
      budget -= line.length + 1;
    } else {
      omitted++;
    }
  };
  optional.forEach(keep);
  const afterFacts = kept.length;
  head.forEach(keep);

  const lines = [...firstLines, ...kept.slice(0, afterFacts), ...lastLines, ...kept.slice(afterFacts)];
  if (omitted > 0) lines.push(`(${omitted} more line${omitted === 1 ? '' : 's'} left out)`);
  return lines.join('\n');
}
