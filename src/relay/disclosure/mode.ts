import { jsonText } from '../../wire/json.js';
import type { Implementation } from '@modelcontextprotocol/server';
import type { Tool } from '@modelcontextprotocol/server';

import type { Disclosure } from '../../config/types.js';

/**
 * Clients that keep tool definitions out of the model's context themselves (they list the tools, then load only
 * those a search of their own finds): a gateway that searched for them would add a round trip and save nothing.
 * Matched against `clientInfo.name`, case-insensitively. Claude Code ("claude-code") defers MCP tools behind its
 * own tool search when they are many; GitHub Copilot CLI does the same.
 */
const SEARCHING_CLIENTS: readonly RegExp[] = [/^claude-code\b/i, /^(github-)?copilot[- ]cli\b/i];

export function searchesToolsItself(client: Implementation | undefined): boolean {
  const name = client?.name ?? '';
  return SEARCHING_CLIENTS.some((pattern) => pattern.test(name));
}

const tokens = new WeakMap<readonly Tool[], number>();

/**
 * About how many tokens a list of tools costs a model: its JSON's length over 4, the usual rate of English and
 * JSON with the tokenizers in use (the bench counts with a real one). Kept per list: a list is rebuilt on change.
 */
export function estimatedTokens(tools: readonly Tool[]): number {
  let n = tokens.get(tools);
  if (n === undefined) {
    n = Math.ceil(jsonText(tools).length / 4);
    tokens.set(tools, n);
  }
  return n;
}

/** Whether a client is shown the meta-tools rather than the catalog. */
export function searching(
  mode: Disclosure,
  client: Implementation | undefined,
  listTokens: () => number,
  budget: number,
): boolean {
  if (mode === 'all') return false;
  if (mode === 'search') return true;
  return !searchesToolsItself(client) && listTokens() > budget;
}
