/**
 * How much of a result each MCP client takes before it cuts, spills or refuses it, known by the
 * `clientInfo.name` it sends in `initialize`. The pipeline's text limits default to the client's budget
 * (a rule's `inlineLimit`, `lineLimit` or `resultLimit` overrides them). The table in docs/pipeline.md is this one.
 */
import type { Implementation } from '@modelcontextprotocol/server';

export interface ClientBudget {
  /** Text a model works with (code, prose) stays inline up to this many characters. */
  textChars: number;
  /** A text with more lines than this is cut by the client: it is stored instead (0: no limit). */
  maxLines: number;
  /** The JSON of a whole result, in bytes, past which the client refuses or cuts it (0: no limit). */
  resultBytes: number;
}

export interface KnownClient {
  /** Matched against `clientInfo.name`. */
  name: RegExp;
  label: string;
  budget: ClientBudget;
  /** Where the figures come from. */
  source: string;
}

export const KNOWN_CLIENTS: readonly KnownClient[] = [
  {
    name: /^claude-code$/i,
    label: 'Claude Code',
    budget: { textChars: 50_000, maxLines: 0, resultBytes: 100_000 },
    source:
      'Claude Code saves a result over 50,000 characters to a file of its own and refuses one over ' +
      'MAX_MCP_OUTPUT_TOKENS, 25,000 tokens by default (about 100,000 characters); its documentation, ' +
      '"MCP output limits and warnings" (October 2026)',
  },
  {
    name: /^claude-ai$/i,
    label: 'Claude Desktop',
    budget: { textChars: 100_000, maxLines: 0, resultBytes: 1_048_576 },
    source:
      'Claude Desktop (clientInfo "claude-ai") refuses a tool result over 1 MiB; below that no limit is documented, ' +
      "so text is kept up to Claude Code's refusal point, 25,000 tokens (about 100,000 characters)",
  },
  {
    name: /codex/i,
    label: 'Codex',
    budget: { textChars: 10_240, maxLines: 256, resultBytes: 0 },
    source:
      'Codex (since 0.56) cuts every tool output to 10 KiB or 256 lines, whichever comes first; ' +
      'openai/codex issues 6544 and 5913',
  },
];

/** Clients not in the table: the common ground of the ones that are. */
export const DEFAULT_BUDGET: ClientBudget = { textChars: 40_000, maxLines: 0, resultBytes: 1_048_576 };

export function budgetFor(client: Implementation | undefined): ClientBudget {
  const name = client?.name ?? '';
  let budget = budgets.get(name);
  if (!budget) {
    budget = KNOWN_CLIENTS.find((known) => known.name.test(name))?.budget ?? DEFAULT_BUDGET;
    // Client names come from clients: kept up to a bound.
    if (budgets.size < MAX_NAMES) budgets.set(name, budget);
  }
  return budget;
}

/** Budgets by client name, found once per name. */
const budgets = new Map<string, ClientBudget>();
const MAX_NAMES = 1000;
