import { createHash } from 'node:crypto';

export const MAX_NAME_LENGTH = 64;
const VALID_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export function isValidName(name: string): boolean {
  return VALID_NAME.test(name);
}

/** Replaces characters clients reject; keeps a valid name unchanged. */
export function sanitize(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_-]/g, '_');
  return cleaned.length > 0 ? cleaned : '_';
}

/**
 * Shortens to the length limit. The cut is marked with a hash of the whole name, so two long names
 * sharing their first 55 characters still differ.
 */
export function fitLength(name: string, original = name): string {
  if (name.length <= MAX_NAME_LENGTH) return name;
  const hash = createHash('sha256').update(original).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_NAME_LENGTH - hash.length - 1)}_${hash}`;
}

export function exposedName(prefix: string | null, separator: string, name: string): string {
  const joined = prefix ? `${sanitize(prefix)}${separator}${sanitize(name)}` : sanitize(name);
  return fitLength(joined, prefix ? `${prefix}${separator}${name}` : name);
}

/**
 * Gives each name a unique exposed form in the order offered: the first keeps it, later ones get
 * `_2`, `_3`, ... The result depends only on the order, so it is the same on every start.
 */
export class NameAllocator {
  private readonly taken: Set<string>;

  constructor(reserved: Iterable<string> = []) {
    this.taken = new Set(reserved);
  }

  allocate(wanted: string): { name: string; collided: boolean } {
    if (!this.taken.has(wanted)) {
      this.taken.add(wanted);
      return { name: wanted, collided: false };
    }
    for (let n = 2; ; n++) {
      const suffix = `_${n}`;
      const candidate = `${wanted.slice(0, MAX_NAME_LENGTH - suffix.length)}${suffix}`;
      if (!this.taken.has(candidate)) {
        this.taken.add(candidate);
        return { name: candidate, collided: true };
      }
    }
  }
}
