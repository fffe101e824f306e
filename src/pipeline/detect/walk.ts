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

interface Frame {
  value: unknown;
  key: string | number | undefined;
  parent: Frame | undefined;
  /** Set on the marker pushed after an object's children: the object leaves the current branch. */
  leaving?: object;
}

function pathOf(frame: Frame): JsonPath {
  const path: JsonPath = [];
  for (let f: Frame | undefined = frame; f?.parent; f = f.parent) path.push(f.key!);
  return path.reverse();
}

/**
 * Calls `visit` for every string in `value` (not object keys), depth first in document order, with its path.
 * `visit` returns false to stop the walk; the function returns false when it was stopped. An object that
 * contains itself is not entered again on the same branch (JSON cannot, but a JS upstream's value might).
 * Paths are built only for the strings visited, so a 100 000-level chain costs no more than its strings.
 */
export function findStringsDeep(value: unknown, visit: (s: string, path: JsonPath) => boolean): boolean {
  const stack: Frame[] = [{ value, key: undefined, parent: undefined }];
  const onBranch = new Set<object>();
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (frame.leaving) {
      onBranch.delete(frame.leaving);
      continue;
    }
    const v = frame.value;
    if (typeof v === 'string') {
      if (visit(v, pathOf(frame)) === false) return false;
      continue;
    }
    if (typeof v !== 'object' || v === null || onBranch.has(v)) continue;
    onBranch.add(v);
    stack.push({ value: undefined, key: undefined, parent: undefined, leaving: v });
    // Children pushed last-first, so they pop in document order.
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], key: i, parent: frame });
    } else {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push({ value: (v as Record<string, unknown>)[keys[i]], key: keys[i], parent: frame });
      }
    }
  }
  return true;
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
