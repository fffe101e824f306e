/**
 * `root` with every leaf (a value that is not an array or a plain object: a string, a number, raw JSON...) replaced
 * by what `leaf` answers for it. Only the containers on the way to a leaf that changed are copied (shallowly); the
 * rest is shared, and `root` is never modified. The very same `root` when nothing changed.
 *
 * Iterative: a message nested thousands of levels deep is read by JSON.parse without trouble, and a recursive walk
 * over it would overflow the stack (a hostile upstream could use that to get a result past the pipeline whole). A
 * container met again on its own branch (a cycle, which only an in-process peer's value can have) is left as it is.
 */
export function mapLeaves(root: unknown, leaf: (value: unknown) => unknown): unknown {
  if (!isContainer(root)) return leaf(root);
  const onBranch = new Set<object>([root]);
  const stack: Level[] = [level(root, undefined, '')];
  let result: unknown = root;
  while (stack.length > 0) {
    const at = stack[stack.length - 1]!;
    if (at.next < at.keys.length) {
      const key = at.keys[at.next++]!;
      const child = at.source[key];
      if (isContainer(child) && !onBranch.has(child)) {
        onBranch.add(child);
        stack.push(level(child, at, key));
      } else {
        const mapped = leaf(child);
        if (mapped !== child) set(at, key, mapped);
      }
      continue;
    }
    stack.pop();
    onBranch.delete(at.original);
    const done = at.copy ?? at.original;
    if (at.parent) {
      if (done !== at.original) set(at.parent, at.key, done);
    } else result = done;
  }
  return result;
}

/** A container being mapped: its members, the next one to map, and its copy once a member changed. */
interface Level {
  original: object;
  source: Record<string, unknown>;
  keys: string[];
  next: number;
  copy?: Record<string, unknown> | unknown[];
  parent: Level | undefined;
  key: string;
}

function level(container: object, parent: Level | undefined, key: string): Level {
  const keys = Array.isArray(container) ? Array.from(container, (_, i) => String(i)) : Object.keys(container);
  return { original: container, source: container as Record<string, unknown>, keys, next: 0, parent, key };
}

function set(at: Level, key: string, value: unknown): void {
  const copy = (at.copy ??= Array.isArray(at.original)
    ? [...(at.original as unknown[])]
    : { ...(at.original as Record<string, unknown>) });
  // Defined, not assigned: a member named __proto__ stays a member.
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
}

/** An array or an object that JSON writes member by member (raw JSON, an exact number, is a leaf). */
function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !JSON.isRawJSON(value);
}
