import { readFileSync } from 'node:fs';

interface LockEntry {
  version?: string;
  optional?: boolean;
  engines?: { node?: string };
  optionalDependencies?: Record<string, string>;
}

const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as {
  packages: Record<string, LockEntry>;
};
const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
};

/** Where node would find `name` from the package at `from`: its own node_modules, then each parent's. */
function resolveFrom(from: string, name: string): LockEntry | undefined {
  let dir = from;
  for (;;) {
    const entry = lock.packages[`${dir ? `${dir}/` : ''}node_modules/${name}`];
    if (entry) return entry;
    if (!dir) return undefined;
    const cut = dir.lastIndexOf('/node_modules/');
    dir = cut === -1 ? '' : dir.slice(0, cut);
  }
}

describe('package-lock.json', () => {
  // npm ci refuses a lock that lacks any platform's optional package ("not in sync"): one written
  // where the registry served only some platforms' bindings breaks every clean install.
  test('lists every optional dependency of every package, for every platform', () => {
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        if (!resolveFrom(path, name)) missing.push(`${name} (optional dependency of ${path || 'the project'})`);
      }
    }
    expect(missing).toEqual([]);
  });

  test('holds no package that asks for a newer Node than the project supports', () => {
    const ours = Number(/(\d+)/.exec(manifest.engines.node)![1]);
    const tooNew = Object.entries(lock.packages)
      .filter(([, entry]) => !entry.optional)
      .filter(([, entry]) => {
        const wanted = /^>=\s*(\d+)/.exec(entry.engines?.node ?? '');
        return wanted !== null && Number(wanted[1]) > ours;
      })
      .map(([path, entry]) => `${path} wants node ${entry.engines!.node}`);
    expect(tooNew).toEqual([]);
  });
});
