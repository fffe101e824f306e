import type { ArtifactRecord } from '../artifacts/types.js';
import { humanSize } from '../artifacts/sizes.js';
import { downloadName } from './content-headers.js';

/** Shown as thumbnails; the bytes come from a signed link, as an <img>, which never runs script. */
const THUMBNAIL_TYPES = /^image\/(png|jpeg|gif|webp|avif|bmp|svg\+xml)$/;
const MAX_SHOWN = 500;

export interface GalleryPage {
  records: ArtifactRecord[];
  filter: { server?: string; tool?: string };
  /** Hidden form fields that carry the page's own access (a signed gallery link) into the filter form. */
  access: Record<string, string>;
  /** A link to the artifact's bytes, relative to the gallery page. */
  hrefFor(record: ArtifactRecord): string;
  nonce: string;
}

/** No script at all; the one inline style block runs only with this response's nonce. */
export function galleryCsp(nonce: string): string {
  return `default-src 'none'; img-src 'self'; style-src 'nonce-${nonce}'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;
}

const escape = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function options(values: string[], selected: string | undefined, all: string): string {
  const items = [`<option value="">${all}</option>`];
  for (const value of values)
    items.push(`<option${value === selected ? ' selected' : ''} value="${escape(value)}">${escape(value)}</option>`);
  return items.join('');
}

function card(record: ArtifactRecord, href: string): string {
  const name = downloadName(record);
  const preview = THUMBNAIL_TYPES.test(record.mimeType)
    ? `<img loading="lazy" src="${escape(href)}" alt="${escape(name)}">`
    : `<span class="type">${escape(record.mimeType.split('/')[1]?.slice(0, 12) ?? 'file')}</span>`;
  const dimensions =
    typeof record.facts.width === 'number' ? ` · ${record.facts.width}×${String(record.facts.height)}` : '';
  return `<li class="artifact" data-id="${escape(record.id)}">
<a class="preview" href="${escape(href)}">${preview}</a>
<div class="name" title="${escape(name)}">${escape(name)}</div>
<div class="meta">${escape(record.mimeType)} · ${escape(humanSize(record.size))}${escape(dimensions)}</div>
<div class="meta">${escape(record.server)} / ${escape(record.tool)}</div>
<div class="meta"><time datetime="${escape(record.lastStored ?? record.created)}">${escape((record.lastStored ?? record.created).replace('T', ' ').slice(0, 19))} UTC</time></div>
<a class="download" href="${escape(href)}" download="${escape(name)}">Download</a>
</li>`;
}

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
header{padding:16px 24px;background:#fff;border-bottom:1px solid #dde1e7;display:flex;flex-wrap:wrap;gap:16px;align-items:center}
h1{font-size:18px;margin:0 auto 0 0}
form{display:flex;gap:8px;align-items:center}
select,button{font:inherit;padding:4px 8px}
main{padding:24px}
ul{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(220px,1fr));gap:16px}
.artifact{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:12px;display:flex;flex-direction:column;gap:4px;min-width:0}
.preview{display:flex;align-items:center;justify-content:center;height:140px;background:#eef0f3;border-radius:4px;overflow:hidden;text-decoration:none}
.preview img{max-width:100%;max-height:140px;object-fit:contain}
.type{font-weight:600;color:#5b6475;text-transform:uppercase}
.name{font-weight:600;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.meta{color:#5b6475;font-size:12px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.download{margin-top:4px}
.empty{color:#5b6475}
`;

/** The gallery: the requester's artifacts, newest first, with a filter by server and tool. */
export function galleryHtml(page: GalleryPage): string {
  const { records, filter, access } = page;
  const servers = [...new Set(records.map((r) => r.server))].sort();
  const tools = [
    ...new Set(records.filter((r) => !filter.server || r.server === filter.server).map((r) => r.tool)),
  ].sort();
  const shown = records
    .filter((r) => (!filter.server || r.server === filter.server) && (!filter.tool || r.tool === filter.tool))
    .slice(0, MAX_SHOWN);
  const hidden = Object.entries(access)
    .map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`)
    .join('');
  const list = shown.length
    ? `<ul>${shown.map((r) => card(r, page.hrefFor(r))).join('\n')}</ul>`
    : '<p class="empty">No artifacts here yet: they appear when a tool result is stored.</p>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Artifacts · mcp-offload</title><style nonce="${page.nonce}">${STYLE}</style></head>
<body><header><h1>Artifacts <small>(${shown.length} of ${records.length})</small></h1>
<form method="get">${hidden}
<label>Server <select name="server">${options(servers, filter.server, 'all')}</select></label>
<label>Tool <select name="tool">${options(tools, filter.tool, 'all')}</select></label>
<button type="submit">Filter</button></form><a href="savings">Savings</a></header>
<main>${list}</main></body></html>`;
}
