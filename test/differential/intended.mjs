// intended.json: the differences that are meant, each with its reason (see README.md, "Intended differences").
//
// An entry names where it applies: `scenario`, `side` (each a name, a list of names, or "*"), `transport`
// (absent: any). Then either
//
//   no `kind`     it covers a whole hunk of the diff there when its `pattern` (a regular expression) matches one of
//                 the hunk's removed or added messages, or its `index` (1-based, as the diff prints them) is the
//                 golden position of a removed message or the new position of an added one; with neither, every
//                 hunk there. (The first format: it covers whatever else the hunk holds too.)
//   a `kind`      it covers changes of that kind only (classify.mjs), and a hunk is intended when each of its changes
//                 is covered by some entry:
//                   bytes-only  a pair of messages that read back as the same value
//                   order-only  the same values in another order (a moved message, or a hunk that is order only)
//                   semantic    a pair whose values differ, when every difference (op and path) matches one of its
//                               `differences` ("~ id", "- params._meta.progressToken", "~ result.content[*].text")
//                   lost, new   a golden message with no counterpart now, a new message with none in the golden
//                 `pattern` and `index`, when given, must match one of the change's messages.
import { existsSync, readFileSync } from 'node:fs';
import { differenceMatches } from './json-value.mjs';

const KINDS = new Set(['bytes-only', 'order-only', 'semantic', 'lost', 'new']);
const FIELDS = new Set(['scenario', 'side', 'transport', 'kind', 'pattern', 'index', 'differences', 'reason']);
/** The change kinds (classify.mjs) each entry kind covers. */
const COVERS = {
  'bytes-only': ['bytes'],
  'order-only': ['moved', 'order'],
  semantic: ['semantic'],
  lost: ['lost'],
  new: ['new'],
};

const names = (value) => [value].flat();
const isNames = (value) =>
  typeof value === 'string' || (Array.isArray(value) && value.every((v) => typeof v === 'string'));

/** The entries of `file` (none when it does not exist), checked, each with a count of what it covered. */
export function loadIntended(file) {
  if (!existsSync(file)) return [];
  const entries = JSON.parse(readFileSync(file, 'utf8'));
  if (!Array.isArray(entries)) throw new Error(`${file}: not a list`);
  for (const [i, e] of entries.entries()) {
    const bad = (why) => new Error(`${file}: entry ${i + 1} ${why}: ${JSON.stringify(e)}`);
    if (!isNames(e.scenario) || !isNames(e.side) || typeof e.reason !== 'string') {
      throw bad('needs scenario, side and reason');
    }
    if (e.transport !== undefined && !isNames(e.transport)) throw bad('has a transport that is not a name or names');
    const unknown = Object.keys(e).filter((k) => !FIELDS.has(k));
    if (unknown.length > 0) throw bad(`has unknown fields (${unknown.join(', ')})`);
    if (e.kind !== undefined && !KINDS.has(e.kind)) throw bad(`has an unknown kind (${[...KINDS].join(', ')})`);
    if (e.kind === 'semantic' && (!Array.isArray(e.differences) || e.differences.length === 0)) {
      throw bad('is semantic: it needs the differences it allows');
    }
    if (e.differences !== undefined && e.kind !== 'semantic') throw bad('has differences but is not semantic');
    if ((e.kind === 'lost' || e.kind === 'new') && e.pattern === undefined && e.index === undefined) {
      throw bad(`is ${e.kind}: it needs a pattern or an index`);
    }
    if (e.pattern !== undefined) new RegExp(e.pattern);
  }
  return entries.map((entry) => ({ ...entry, used: 0 }));
}

function applies(entry, where) {
  const match = (value, name) => value === undefined || names(value).some((n) => n === '*' || n === name);
  return (
    match(entry.scenario, where.scenario) && match(entry.side, where.side) && match(entry.transport, where.transport)
  );
}

/** Whether `entry`'s pattern and index (when given) match one of `messages` ({ at, text, side: 'golden'|'actual' }). */
function matchesMessages(entry, messages) {
  if (entry.pattern !== undefined && !messages.some((m) => new RegExp(entry.pattern).test(m.text))) return false;
  if (entry.index !== undefined && !messages.some((m) => m.at + 1 === entry.index)) return false;
  return true;
}

const messagesOf = (change) => [
  ...names(change.golden ?? []).map((m) => ({ ...m, side: 'golden' })),
  ...names(change.actual ?? []).map((m) => ({ ...m, side: 'actual' })),
];

/** The entry without a kind that covers the whole `hunk`, if any (the first format). */
function wholeHunk(intended, where, hunk) {
  return intended.find((e) => {
    if (e.kind !== undefined || !applies(e, where)) return false;
    const changed = [...hunk.removed, ...hunk.added];
    if (e.pattern !== undefined && changed.some((m) => new RegExp(e.pattern).test(m.text))) return true;
    if (e.index !== undefined && changed.some((m) => m.at + 1 === e.index)) return true;
    return e.pattern === undefined && e.index === undefined;
  });
}

/** The entry with a kind that covers `change`, if any. */
function coverChange(intended, where, change) {
  return intended.find((e) => {
    if (e.kind === undefined || !applies(e, where) || !COVERS[e.kind].includes(change.kind)) return false;
    if (!matchesMessages(e, messagesOf(change))) return false;
    if (e.kind === 'semantic') {
      return change.differences.every((d) => e.differences.some((pattern) => differenceMatches(pattern, d)));
    }
    return true;
  });
}

/**
 * Which entries cover `hunk` (classified as `classified`): sets `change.intended` on each change an entry covers,
 * and returns { intended: whether every change is covered, entries: [the entries used] }. Counts each entry's use
 * (also when it covers part of a hunk only).
 */
export function coverHunk(intended, where, hunk, classified) {
  const whole = wholeHunk(intended, where, hunk);
  if (whole) {
    whole.used++;
    for (const change of classified.changes) change.intended = whole;
    return { intended: true, entries: [whole] };
  }
  const used = new Set();
  for (const change of classified.changes) {
    change.intended = coverChange(intended, where, change);
    if (change.intended) used.add(change.intended);
  }
  for (const entry of used) entry.used++;
  return { intended: classified.changes.every((c) => c.intended), entries: [...used] };
}
