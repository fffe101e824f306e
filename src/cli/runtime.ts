/**
 * The oldest Node major line mcp-offload runs on: exact numbers are written with `JSON.rawJSON` (src/wire/json.ts),
 * which the LTS lines have from Node 22 on. `engines` says so too, but npm only warns about it (`npx` runs the
 * package all the same), and on Node 20 the proxy would start and then fail every message with a TypeError.
 */
export const OLDEST_NODE = 22;

/** Why this runtime cannot run mcp-offload (one line for the terminal), or undefined when it can. */
export function runtimeProblem(version: string = process.versions.node, json: object = JSON): string | undefined {
  const major = Number(version.split('.')[0]);
  const rawJson = typeof (json as { rawJSON?: unknown }).rawJSON === 'function';
  if (major >= OLDEST_NODE && rawJson) return undefined;
  const missing = major >= OLDEST_NODE ? ', which lacks JSON.rawJSON' : '';
  return `mcp-offload needs Node.js ${OLDEST_NODE} or newer; this is Node.js ${version}${missing}`;
}
