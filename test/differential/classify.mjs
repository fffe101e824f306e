// The nature of a difference compare.mjs finds: every hunk of the diff is read back as JSON values (json-value.mjs)
// and classified
//
//   bytes only   every removed message reads back as the same value as the added one in its place: only key order,
//                spacing, number spelling or escapes differ
//   order only   the same values, in another order (a message moved)
//   semantic     values differ: a message changed (with the paths where), was lost, or is new
//
// and broken down into its changes, each of which an intended.json entry may cover (intended.mjs):
//
//   { kind: 'bytes', golden, actual }                   a pair of messages with the same value
//   { kind: 'moved', golden, actual }                   the same value at another place
//   { kind: 'semantic', golden, actual, differences }   a pair whose values differ (diffValues: op, path, values)
//   { kind: 'lost', golden }                            a golden message with no counterpart
//   { kind: 'new', actual }                             a new message with no counterpart
//   { kind: 'order', golden: [], actual: [] }           (order only) the hunk's messages, the same values reordered
//
// golden/actual are { at, text } as diff.mjs gives them (`at` 0-based in its list).
//
// A message transcript.mjs kept as its length and hash (over 16 KiB) has no value to read on the golden side; the
// new side's whole text is at hand (transcript.mjs keeps it, not written), so the pair is the same value when the
// golden hash is that of the new text with its top-level members in another order (what the old build's
// re-serialization of the envelope did), and is otherwise taken as semantic ("cannot be read back").
import { createHash } from 'node:crypto';
import { diffValues, parseJson, sameValue } from './json-value.mjs';
import { jsonStart } from './normalize.mjs';

/** The start of a message kept as its hash (transcript.mjs): its length and SHA-256. */
const COMPACTED = /^\[(\d+) characters, sha256 ([0-9a-f]+)\] /;

/**
 * A message as { head, value?, members?, text, compacted? }: `head` the text before its JSON (an HTTP request's
 * `POST /mcp | headers`), compared as text; `value` its JSON value when it has one that parses.
 */
export function readMessage(text, full) {
  const compacted = COMPACTED.exec(text);
  if (compacted && full === undefined) {
    return { text, head: text, compacted: { length: Number(compacted[1]), sha256: compacted[2] } };
  }
  const whole = full ?? text;
  const at = jsonStart(whole);
  if (at < 0) return { text, head: whole };
  try {
    const { value, members } = parseJson(whole.slice(at));
    return { text, whole, head: whole.slice(0, at), value, members, jsonAt: at };
  } catch {
    return { text, head: whole };
  }
}

const sha256 = (text) => createHash('sha256').update(text).digest('hex');

function* permutations(items) {
  if (items.length <= 1) {
    yield items;
    return;
  }
  for (let i = 0; i < items.length; i++) {
    const rest = [...items.slice(0, i), ...items.slice(i + 1)];
    for (const tail of permutations(rest)) yield [items[i], ...tail];
  }
}

/** Whether the compacted golden message `golden` is `actual`'s text with its top-level members in another order. */
function reorderedTo(golden, actual) {
  if (!actual.value || !(actual.value instanceof Map) || actual.members.length > 6) return false;
  const body = actual.whole.slice(actual.jsonAt);
  const members = actual.members.map(({ key, start, end }) => `${JSON.stringify(key)}:${body.slice(start, end)}`);
  if (members.reduce((n, m) => n + m.length + 1, 1) + actual.head.length !== golden.compacted.length) return false;
  for (const order of permutations(members)) {
    if (sha256(`${actual.head}{${order.join(',')}}`) === golden.compacted.sha256) return true;
  }
  return false;
}

/** Whether two messages are the same value (heads equal as text, JSON equal as values). */
function same(golden, actual) {
  if (golden.compacted && !actual.compacted) return reorderedTo(golden, actual);
  if (actual.compacted && !golden.compacted) return reorderedTo(actual, golden);
  if (golden.head !== actual.head) return false;
  if (golden.value === undefined || actual.value === undefined) {
    return golden.value === undefined && actual.value === undefined && golden.text === actual.text;
  }
  return sameValue(golden.value, actual.value);
}

/** What a message is, to pair it with its counterpart: its HTTP head's first part, and its method or `answer`. */
function signature(message) {
  if (message.compacted) {
    // Only its start is at hand: the head, and a method when it names one early.
    const visible = message.text.replace(COMPACTED, '');
    const at = jsonStart(visible);
    const method = /^.{0,200}?"method"\s*:\s*"([^"]+)"/s.exec(visible.slice(Math.max(at, 0)))?.[1];
    const head = at > 0 ? visible.slice(0, at).split(' | ')[0] : '';
    return method ? `${head} message ${method}` : `${head} answer`;
  }
  const head = message.head.split(' | ')[0];
  const v = message.value;
  if (!(v instanceof Map)) return `text ${head}`;
  return typeof v.get('method') === 'string' ? `${head} message ${v.get('method')}` : `${head} answer`;
}

/** Pairs of indexes of `a` and `b` with equal keys, in order (their longest common subsequence). */
function lcsPairs(a, b, equal) {
  const n = a.length;
  const m = b.length;
  const lcs = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = equal(a[i], b[j]) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const pairs = [];
  for (let i = 0, j = 0; i < n && j < m;) {
    if (equal(a[i], b[j])) pairs.push([i++, j++]);
    else if (lcs[i + 1][j] >= lcs[i][j + 1]) i++;
    else j++;
  }
  return pairs;
}

/** Whether two lists hold the same messages (by value), in any order. */
function sameMessages(golden, actual) {
  if (golden.length !== actual.length) return false;
  const left = [...actual];
  for (const g of golden) {
    const i = left.findIndex((a) => same(g, a));
    if (i < 0) return false;
    left.splice(i, 1);
  }
  return true;
}

/**
 * Classifies `hunk` (diff.mjs) of one side: { class: 'bytes only' | 'order only' | 'semantic', changes }.
 * `fullActual`: the new side's whole messages by index (for those the transcript keeps as a hash).
 */
export function classifyHunk(hunk, fullActual = []) {
  const golden = hunk.removed.map((m) => ({ ...m, message: readMessage(m.text) }));
  const actual = hunk.added.map((m) => ({ ...m, message: readMessage(m.text, fullActual[m.at]) }));
  const plain = (m) => ({ at: m.at, text: m.text });

  if (golden.length === actual.length && golden.every((g, i) => same(g.message, actual[i].message))) {
    return {
      class: 'bytes only',
      changes: golden.map((g, i) => ({ kind: 'bytes', golden: plain(g), actual: plain(actual[i]) })),
    };
  }
  const messages = (list) => list.map((m) => m.message);
  if (sameMessages(messages(golden), messages(actual))) {
    return { class: 'order only', changes: [{ kind: 'order', golden: golden.map(plain), actual: actual.map(plain) }] };
  }

  // Pairs: by value first (unchanged messages among changed ones), then by what they are (method, or answer).
  const changes = [];
  const pairedG = new Set();
  const pairedA = new Set();
  const pair = (i, j, change) => {
    pairedG.add(i);
    pairedA.add(j);
    changes.push(change);
  };
  for (const [i, j] of lcsPairs(golden, actual, (g, a) => same(g.message, a.message))) {
    pair(i, j, { kind: 'bytes', golden: plain(golden[i]), actual: plain(actual[j]) });
  }
  const restG = golden.map((g, i) => i).filter((i) => !pairedG.has(i));
  const restA = actual.map((a, j) => j).filter((j) => !pairedA.has(j));
  const bySignature = lcsPairs(
    restG,
    restA,
    (i, j) => signature(golden[i].message) === signature(actual[j].message),
  ).map(([x, y]) => [restG[x], restA[y]]);
  for (const [i, j] of bySignature) {
    const g = golden[i].message;
    const a = actual[j].message;
    const differences =
      g.value !== undefined && a.value !== undefined && g.head === a.head
        ? diffValues(g.value, a.value)
        : [{ op: '~', path: g.compacted || a.compacted ? '(kept as a hash: cannot be read back)' : '(the text)' }];
    if (g.head !== a.head && g.value !== undefined) differences.unshift({ op: '~', path: '(the HTTP head)' });
    pair(i, j, { kind: 'semantic', golden: plain(golden[i]), actual: plain(actual[j]), differences });
  }
  const lostG = golden.map((g, i) => i).filter((i) => !pairedG.has(i));
  const newA = actual.map((a, j) => j).filter((j) => !pairedA.has(j));
  // A lost message whose value is new elsewhere moved.
  for (const i of lostG) {
    const j = newA.find((k) => !pairedA.has(k) && same(golden[i].message, actual[k].message));
    if (j !== undefined) pair(i, j, { kind: 'moved', golden: plain(golden[i]), actual: plain(actual[j]) });
    else changes.push({ kind: 'lost', golden: plain(golden[i]) });
  }
  for (const j of newA) if (!pairedA.has(j)) changes.push({ kind: 'new', actual: plain(actual[j]) });
  // In the order of the diff's lines.
  const line = new Map(hunk.ops.map((o, k) => [o.op === '+' ? `+${o.b}` : `-${o.a}`, k]));
  const position = (c) =>
    Math.min(c.golden ? line.get(`-${c.golden.at}`) : Infinity, c.actual ? line.get(`+${c.actual.at}`) : Infinity);
  changes.sort((x, y) => position(x) - position(y));
  const semantic = changes.some((c) => c.kind === 'semantic' || c.kind === 'lost' || c.kind === 'new');
  return { class: semantic ? 'semantic' : 'order only', changes };
}
