import { button, el } from './dom.js';

/** Highlighting stops here: a search of a huge text stays quick. */
const MAX_MARKS = 2000;

/** Text with search: every match marked (case-insensitive), a count, and Enter / ↑ ↓ to go from one to the next. */
export function textView(text: string): HTMLElement {
  const body = el('pre', { class: 'text-body' }, text);
  const input = el('input', { type: 'search', placeholder: 'Search', 'aria-label': 'Search the text' });
  const count = el('span', { class: 'match-count' }, '');
  let marks: HTMLElement[] = [];
  let at = -1;

  const go = (step: number) => {
    if (!marks.length) return;
    marks[at]?.classList.remove('current');
    at = (at + step + marks.length) % marks.length;
    marks[at]!.classList.add('current');
    marks[at]!.scrollIntoView({ block: 'center' });
    count.textContent = `${at + 1} of ${marks.length}${marks.length === MAX_MARKS ? '+' : ''}`;
  };
  const search = () => {
    const wanted = input.value;
    marks = [];
    at = -1;
    if (!wanted) {
      body.textContent = text;
      count.textContent = '';
      return;
    }
    const haystack = text.toLowerCase();
    const needle = wanted.toLowerCase();
    const pieces = document.createDocumentFragment();
    let from = 0;
    for (let found = haystack.indexOf(needle); found !== -1 && marks.length < MAX_MARKS;) {
      pieces.append(text.slice(from, found));
      const mark = el('mark', {}, text.slice(found, found + needle.length));
      marks.push(mark);
      pieces.append(mark);
      from = found + needle.length;
      found = haystack.indexOf(needle, from);
    }
    pieces.append(text.slice(from));
    body.replaceChildren(pieces);
    count.textContent = marks.length ? '' : 'no match';
    go(1);
  };
  input.addEventListener('input', search);
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' || event.key === 'ArrowDown') go(event.shiftKey ? -1 : 1);
    else if (event.key === 'ArrowUp') go(-1);
    else return;
    event.preventDefault();
  });
  const toolbar = el(
    'div',
    { class: 'toolbar' },
    input,
    button('↑', 'Previous match', () => go(-1)),
    button('↓', 'Next match', () => go(1)),
    count,
  );
  return el('section', { class: 'view text-view' }, toolbar, body);
}
