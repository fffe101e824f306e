/** "did you mean" for unknown keys: the closest allowed key, ignoring case, "_" and "-". */
export function closestKey(input: string, allowed: readonly string[]): string | undefined {
  const wanted = simplify(input);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of allowed) {
    const distance = levenshtein(wanted, simplify(candidate));
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const tolerance = wanted.length <= 3 ? 1 : wanted.length <= 6 ? 2 : 3;
  return bestDistance <= tolerance ? best : undefined;
}

function simplify(key: string): string {
  return key.toLowerCase().replace(/[-_]/g, '');
}

export function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}
