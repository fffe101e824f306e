import { JSONPath } from 'jsonpath-plus';
import { button, el, status } from './dom.js';
import { textView } from './text-view.js';

/** Children of one node shown at a time; the rest come with "more". */
const PAGE = 500;

/**
 * JSON as a collapsible tree (children drawn when first opened, so a large document opens at once), a JSONPath
 * filter (jsonpath-plus, as artifact_read's queries, with the same safe evaluation: no code runs in a filter), and
 * the raw text with search.
 */
export function jsonView(text: string): HTMLElement {
  let document_: unknown;
  try {
    document_ = JSON.parse(text);
  } catch (error) {
    return el(
      'section',
      { class: 'view json-view' },
      status(`Not valid JSON (${(error as Error).message}); shown as text.`),
      textView(text),
    );
  }
  const tree = el('div', { class: 'json-tree' }, node('$', document_, true));
  const filter = el('input', {
    type: 'search',
    placeholder: 'JSONPath filter, e.g. $.items[?(@.price > 10)].name',
    'aria-label': 'JSONPath filter',
    class: 'jsonpath',
  });
  const outcome = el('span', { class: 'match-count' }, '');
  const raw = textView(text);
  raw.hidden = true;

  const apply = () => {
    const path = filter.value.trim();
    if (!path) {
      outcome.textContent = '';
      tree.replaceChildren(node('$', document_, true));
      return;
    }
    try {
      const found = JSONPath({ path, json: document_ as object, wrap: true, resultType: 'all', eval: 'safe' }) as {
        path: string;
        value: unknown;
      }[];
      outcome.textContent = `${found.length} match${found.length === 1 ? '' : 'es'}`;
      const list = el('div', { class: 'json-matches' });
      for (const match of found) list.append(node(match.path, match.value, found.length <= 20));
      tree.replaceChildren(list);
    } catch (error) {
      outcome.textContent = '';
      tree.replaceChildren(status(`The filter could not be evaluated: ${(error as Error).message}`, 'error'));
    }
  };
  filter.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') apply();
  });
  const showRaw = button('Raw', 'Show the text as stored', () => {
    raw.hidden = !raw.hidden;
    tree.hidden = !raw.hidden;
    showRaw.textContent = raw.hidden ? 'Raw' : 'Tree';
  });
  const toolbar = el(
    'div',
    { class: 'toolbar' },
    filter,
    button('Filter', 'Apply the JSONPath filter', apply),
    outcome,
    showRaw,
  );
  return el('section', { class: 'view json-view' }, toolbar, tree, raw);
}

/** One member: a leaf as `key: value`, an object or array as a `<details>` whose children are drawn when opened. */
function node(key: string, value: unknown, open = false): HTMLElement {
  const label = el('span', { class: 'json-key' }, key);
  if (value === null || typeof value !== 'object')
    return el('div', { class: 'json-leaf' }, label, ': ', el('span', { class: `json-${typeOf(value)}` }, show(value)));
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  const summary = el(
    'summary',
    {},
    label,
    el('span', { class: 'json-count' }, Array.isArray(value) ? ` [${entries.length}]` : ` {${entries.length}}`),
  );
  const details = el('details', { class: 'json-node' }, summary);
  let drawn = 0;
  const drawMore = () => {
    details.querySelector(':scope > .json-more')?.remove();
    for (const [k, v] of entries.slice(drawn, drawn + PAGE)) details.append(node(k, v));
    drawn = Math.min(entries.length, drawn + PAGE);
    if (drawn < entries.length)
      details.append(
        el('div', { class: 'json-more' }, button(`${entries.length - drawn} more`, 'Show more members', drawMore)),
      );
  };
  details.addEventListener('toggle', () => {
    if (details.open && drawn === 0) drawMore();
  });
  if (open) {
    details.open = true;
    drawMore();
  }
  return details;
}

function typeOf(value: unknown): string {
  return value === null ? 'null' : typeof value;
}

function show(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
