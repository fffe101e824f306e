import type { Tool } from '@modelcontextprotocol/server';

export const SEARCH_TOOLS = 'search_tools';
export const DESCRIBE_TOOLS = 'describe_tools';
export const CALL_TOOL = 'call_tool';

/** How many tools a search returns unless asked, and at most. */
export const DEFAULT_LIMIT = 5;
export const MAX_LIMIT = 20;

/**
 * What a client in `search` disclosure is listed instead of the catalog: a few hundred tokens whatever the catalog's
 * size. The descriptions tell the model the protocol: search with the task, then call by name.
 */
export const META_TOOLS: readonly Tool[] = [
  {
    name: SEARCH_TOOLS,
    description:
      'Find the tools for a task among all the tools this server offers (they are not listed up front). Describe ' +
      'the task in plain words ("open a pull request", "take a screenshot of the page"); get the best-matching ' +
      `tools with their names, descriptions and input schemas. Then call one with ${CALL_TOOL}.`,
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'The task, in plain words.' },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_LIMIT,
          description: `How many tools to return (default ${DEFAULT_LIMIT}).`,
        },
      },
      required: ['query'],
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: DESCRIBE_TOOLS,
    description: 'The full definitions (description, input schema) of tools named by a search or known already.',
    inputSchema: {
      type: 'object',
      properties: { names: { type: 'array', items: { type: 'string' }, minItems: 1, description: 'Tool names.' } },
      required: ['names'],
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: CALL_TOOL,
    description: `Call a tool found with ${SEARCH_TOOLS}, by its name, with arguments that match its input schema. Returns exactly what the tool returns.`,
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'The tool name, as search_tools gave it.' },
        arguments: { type: 'object', description: "The tool's arguments." },
      },
      required: ['name'],
    },
  },
];

export const META_NAMES: ReadonlySet<string> = new Set(META_TOOLS.map((t) => t.name));
