/**
 * Walking and rewriting JSON values without recursion (a deeply nested result must not overflow the stack)
 * and without mutation (the upstream's object stays as it was: the proxy is transparent).
 */
import { defineOwn } from './define-own.js';

export type JsonPath = (string | number)[];

/** `['items', 0, 'file']` → `.items[0].file`, for sources in logs, notes and `_meta`. */
export function pathText(path: JsonPath): string {
  return path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${key}`)).join('');
}

/**
 * Where a value stands in the document being walked. Its path is built on demand from parent pointers: a walk that
 * copied its parent's path for every value spent time growing with the square of the depth (20 000 nested arrays
 * in a 40 KB text froze the proxy for 15 s), and most values' paths are never needed.
 */
export class JsonPlace {
  constructor(
    readonly key: string | number | undefined,
    readonly parent: JsonPlace | undefined,
  ) {}

  path(): JsonPath {
    const path: JsonPath = [];
    if (this.parent === undefined) return path;
    path.push(this.key!);
    for (let at = this.parent; at.parent; at = at.parent) path.push(at.key!);
    return path.reverse();
  }
}

/** What a visitor of `walkJson` returns: `SKIP` leaves a value's children out, `STOP` ends the walk. */
export const SKIP = 1;
export const STOP = 2;

interface Pending {
  value: unknown;
  place: JsonPlace;
  /** Set on the marker pushed after an object's children: the object leaves the current branch. */
  leaving?: object;
}

/**
 * Calls `visit` for every value in `root` (containers before their children, depth first in document order),
 * with where it stands; returns false when the visitor stopped the walk. Iterative, so no depth overflows the
 * stack, and linear in the size of the value. An object that contains itself is not entered again on the same
 * branch (JSON cannot, but a JS upstream's value might).
 */
export function walkJson(root: unknown, visit: (value: unknown, place: JsonPlace) => number | void): boolean {
  const stack: Pending[] = [{ value: root, place: new JsonPlace(undefined, undefined) }];
  const onBranch = new Set<object>();
  while (stack.length > 0) {
    const { value, place, leaving } = stack.pop()!;
    if (leaving) {
      onBranch.delete(leaving);
      continue;
    }
    const told = visit(value, place);
    if (told === STOP) return false;
    if (told === SKIP || typeof value !== 'object' || value === null || onBranch.has(value)) continue;
    onBranch.add(value);
    stack.push({ value: undefined, place, leaving: value });
    // Children pushed last-first, so they pop in document order.
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], place: new JsonPlace(i, place) });
    } else {
      const keys = Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i];
        stack.push({ value: (value as Record<string, unknown>)[key], place: new JsonPlace(key, place) });
      }
    }
  }
  return true;
}

/**
 * Calls `visit` for every string in `value` (not object keys), depth first in document order, with where it
 * stands (`place.path()` builds its path). `visit` returns false to stop the walk; the function returns false when
 * it was stopped.
 */
export function findStringsDeep(value: unknown, visit: (s: string, place: JsonPlace) => boolean): boolean {
  return walkJson(value, (node, place) =>
    typeof node === 'string' && visit(node, place) === false ? STOP : undefined,
  );
}

function copyWith(container: unknown, key: string | number, child: unknown): unknown {
  if (Array.isArray(container)) {
    const copy = container.slice();
    copy[Number(key)] = child;
    return copy;
  }
  const copy = { ...(container as Record<string, unknown>) };
  defineOwn(copy, String(key), child);
  return copy;
}

/**
 * A new root in which the value at `path` is `newValue`. Only the containers along the path are copied
 * (shallowly); everything else is shared with `root`, which is never modified. An empty path returns
 * `newValue`. A path through something that is not an object or array, or to an array index out of range,
 * throws a RangeError: it means the caller's path did not come from this value.
 */
export function setAtPath<T>(root: T, path: readonly (string | number)[], newValue: unknown): T {
  if (path.length === 0) return newValue as T;
  const containers: unknown[] = [];
  let at: unknown = root;
  for (let i = 0; i < path.length; i++) {
    const key = path[i];
    const isArray = Array.isArray(at);
    const fits = isArray
      ? Number.isInteger(Number(key)) && Number(key) >= 0 && Number(key) < (at as unknown[]).length
      : typeof at === 'object' && at !== null && Object.prototype.hasOwnProperty.call(at, key);
    if (!fits) throw new RangeError(`setAtPath: no ${JSON.stringify(key)} at ${JSON.stringify(path.slice(0, i))}`);
    containers.push(at);
    at = (at as Record<string | number, unknown>)[key];
  }
  let result: unknown = newValue;
  for (let i = path.length - 1; i >= 0; i--) result = copyWith(containers[i], path[i], result);
  return result as T;
}
