/**
 * Sets a plain own property. Assignment would treat a `__proto__` key (legal in JSON, and so in upstream
 * results) as the prototype setter; defineProperty keeps it an ordinary key.
 */
export function defineOwn(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
