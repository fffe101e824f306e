// Summary of a V8 CPU profile (a .cpuprofile file from `node --cpu-prof`, or the object
// Profiler.stop returns through node:inspector): self time per function.
//
//   node bench/lib/cpuprofile.mjs <file.cpuprofile> [top=15]   prints the table
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { relative } from 'node:path';

/**
 * [{ name, where, hits, share }] by self time, largest first: hitCount of every node summed per
 * callFrame (functionName + url), as a share of all samples. "(program)", "(idle)" and
 * "(garbage collector)" are V8's own buckets.
 */
export function topSelfTime(profile, top = 15, root = process.cwd()) {
  const totals = new Map();
  let all = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (!hits) continue;
    all += hits;
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url ? relative(root, url.startsWith('file://') ? fileURLToPath(url) : url) : '';
    const key = `${functionName || '(anonymous)'}\u0000${file}`;
    const entry = totals.get(key) ?? {
      name: functionName || '(anonymous)',
      where: file ? `${file}:${lineNumber + 1}` : '',
      hits: 0,
    };
    entry.hits += hits;
    totals.set(key, entry);
  }
  return [...totals.values()]
    .sort((a, b) => b.hits - a.hits)
    .slice(0, top)
    .map((e) => ({ ...e, share: all ? e.hits / all : 0 }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const profile = JSON.parse(readFileSync(process.argv[2], 'utf8'));
  for (const e of topSelfTime(profile, Number(process.argv[3] ?? 15))) {
    process.stdout.write(`${(100 * e.share).toFixed(1).padStart(5)} %  ${e.name}  ${e.where}\n`);
  }
}
