/**
 * The backend's MCP tools: five static ones, always listed, and one per available capability of the
 * connected sessions. Every tool takes an optional `session` (a named browser session).
 */
import type { Tool } from '@modelcontextprotocol/server';
import { DEFAULT_SESSION } from '../../config/abp.js';
import type { CapabilityTool } from './registry.js';
import { isPlainObject } from '../../config/pointer.js';

export const STATIC_TOOLS = {
  connect: 'abp_connect',
  disconnect: 'abp_disconnect',
  status: 'abp_status',
  call: 'abp_call',
  renderToPdf: 'abp_render_to_pdf',
} as const;

export const STATIC_TOOL_NAMES: ReadonlySet<string> = new Set(Object.values(STATIC_TOOLS));

/** Control tools answer in a line or two; their results are not files (see preset.ts). */
export const CONTROL_TOOL_NAMES = [STATIC_TOOLS.connect, STATIC_TOOLS.disconnect, STATIC_TOOLS.status];

export const SESSION_PROPERTY = {
  type: 'string',
  pattern: '^[A-Za-z0-9_-]{1,32}$',
  description: `Named browser session, for several apps at once (default: "${DEFAULT_SESSION}").`,
} as const;

export const STATIC_TOOL_LIST: Tool[] = [
  {
    name: STATIC_TOOLS.connect,
    description:
      'Connect to an ABP app: a web app by URL, an unpacked Chrome extension by directory, or a Chrome Web Store extension by id. ' +
      'Give exactly one of url, extensionPath, extensionId. Connecting a session that is connected disconnects it first. ' +
      "The app's capabilities become tools named abp_<capability with dots as underscores>.",
    inputSchema: {
      type: 'object',
      properties: {
        url: { type: 'string', description: 'Address of the ABP web app (http or https).' },
        extensionPath: {
          type: 'string',
          description: 'Directory of an unpacked Chrome extension that serves an ABP page.',
        },
        extensionId: { type: 'string', description: 'Chrome Web Store id of an extension (32 letters a to p).' },
        abpPage: { type: 'string', description: 'Page of the extension that runs the ABP app. Default: abp-app.html.' },
        session: SESSION_PROPERTY,
      },
    },
  },
  {
    name: STATIC_TOOLS.disconnect,
    description: 'Disconnect from the ABP app: shut the session down and close its browser.',
    inputSchema: { type: 'object', properties: { session: SESSION_PROPERTY } },
  },
  {
    name: STATIC_TOOLS.status,
    description: 'Connection state of every browser session: app, session id, and capabilities.',
    inputSchema: { type: 'object', properties: { session: SESSION_PROPERTY } },
  },
  {
    name: STATIC_TOOLS.call,
    description:
      'Call a capability of the connected ABP app by its name (e.g. "export.pdf"). Every successful result is saved to a file; ' +
      'you get its path, type, size and metadata. This is the reliable way to call any capability.',
    inputSchema: {
      type: 'object',
      properties: {
        capability: { type: 'string', description: 'Capability name, dot notation as the app declares it.' },
        params: { type: 'object', description: "The capability's parameters, as its input schema describes them." },
        session: SESSION_PROPERTY,
      },
      required: ['capability'],
    },
  },
  {
    name: STATIC_TOOLS.renderToPdf,
    description:
      'Render HTML to a PDF file with the connected browser (A4, backgrounds printed unless options say otherwise).',
    inputSchema: {
      type: 'object',
      properties: {
        html: { type: 'string', description: 'The HTML document to render.' },
        options: {
          type: 'object',
          description: 'Options of Puppeteer\'s page.pdf(), e.g. {"format": "Letter", "landscape": true}.',
        },
        session: SESSION_PROPERTY,
      },
      required: ['html'],
    },
  },
];

/** A capability's tool: its description and input schema, with `session` added unless the app uses that name. */
export function dynamicTool({ toolName, capability }: CapabilityTool, sessions: readonly string[]): Tool {
  const schema = { ...(capability.inputSchema ?? {}) } as Record<string, unknown>;
  const properties = { ...(isPlainObject(schema.properties) ? schema.properties : {}) };
  if (!('session' in properties)) {
    const offeredBy =
      sessions.length > 1 || sessions[0] !== DEFAULT_SESSION ? ` Offered by: ${sessions.join(', ')}.` : '';
    properties.session = { ...SESSION_PROPERTY, description: `${SESSION_PROPERTY.description}${offeredBy}` };
  }
  const notes = [capability.experimental ? '(experimental)' : '', capability.deprecated ? '(deprecated)' : ''].filter(
    Boolean,
  );
  const description = [capability.description ?? `ABP capability ${capability.name}`, ...notes].join(' ');
  return {
    name: toolName,
    description: `${description} [ABP capability ${capability.name}; results are saved to files]`,
    inputSchema: { ...schema, type: 'object', properties } as Tool['inputSchema'],
  };
}

/** The capability's own arguments: `session` is ours unless the capability declares it. */
export function splitSession(
  args: Record<string, unknown>,
  capabilityHasSession: boolean,
): { session?: string; params: Record<string, unknown> } {
  if (capabilityHasSession) return { params: args };
  const { session, ...params } = args;
  return { ...(typeof session === 'string' ? { session } : {}), params };
}
