import type { CallToolResult, ReadResourceResult, Resource, Tool } from '@modelcontextprotocol/server';
import picomatch from 'picomatch';
import type { ArtifactOptions } from '../config/types.js';
import { APP_MIME_TYPE } from '../protocol/apps.js';
import { humanSize } from './sizes.js';
import type { ArtifactStore } from './store.js';
import type { ArtifactRecord } from './types.js';
import { viewerHtml } from './viewer-html.js';

/** The viewer's `ui://` resource. */
export const VIEWER_URI = 'ui://mcp-offload/artifact-viewer';

/** What the view is handed of each artifact to show (artifact_view's `structuredContent.artifacts`). */
export interface ViewedArtifact {
  uri: string;
  name: string;
  mimeType: string;
  size: number;
  sha256: string;
  server: string;
  tool: string;
  created: string;
  /** Image dimensions, page count, JSON outline, ... (pipeline/facts). */
  facts: Record<string, unknown>;
}

/**
 * The artifact viewer, an MCP App (SEP-1865): a `ui://` view that hosts of MCP Apps render, and the `artifact_view`
 * tool linked to it, whose result hands the view an artifact's description. The view reads the bytes through its
 * host (`resources/read` of the artifact:// URI, or `artifact_read`), never over the network. Offered only to hosts
 * of MCP Apps (relay/interceptors/lists.ts); other clients never see any of it.
 */
export class ArtifactViewer {
  readonly tool: Tool;
  private readonly linked: (name: string) => boolean;

  constructor(
    private readonly options: ArtifactOptions['viewer'],
    /** The artifact_read tool's name, when it is offered. */
    private readonly readTool: string | undefined,
  ) {
    this.tool = viewTool(options.toolName);
    this.linked = options.linkTools.length ? picomatch(options.linkTools) : () => false;
  }

  get name(): string {
    return this.options.toolName;
  }

  /** Whether the config links this upstream tool (upstream names) to the viewer. */
  links(server: string, tool: string): boolean {
    return this.linked(`${server}/${tool}`);
  }

  get resource(): Resource {
    return {
      uri: VIEWER_URI,
      name: 'artifact-viewer',
      title: "mcp-offload's artifact viewer",
      description:
        'Shows stored tool outputs (artifact:// resources): images with zoom, JSON as a tree with a JSONPath filter, text with search, PDF pages.',
      mimeType: APP_MIME_TYPE,
    };
  }

  /** The view's HTML. It needs no network: the host's default policy (no `csp` given) suits it. */
  async read(): Promise<ReadResourceResult> {
    const html = await viewerHtml(this.readTool !== undefined ? { readTool: this.readTool } : {});
    return {
      contents: [{ uri: VIEWER_URI, mimeType: APP_MIME_TYPE, text: html, _meta: { ui: { prefersBorder: true } } }],
    };
  }

  /** artifact_view: the artifact's description for the view, and a line for the model. Mistakes are tool errors. */
  async view(store: ArtifactStore, owner: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const uri = typeof args.uri === 'string' ? args.uri : '';
    if (!uri) return failure('uri is required: an artifact:// URI from a summary or artifact_list');
    const record = await store.find(uri, owner);
    if (!record || !record.owners.includes(owner)) return failure(`no artifact ${uri} in this session`);
    const viewed = describe(record);
    return {
      content: [
        {
          type: 'text',
          text: `Shown to the user in mcp-offload's artifact viewer: ${viewed.name} (${record.mimeType}, ${humanSize(record.size)}), ${record.uri}.`,
        },
      ],
      structuredContent: { artifacts: [viewed] },
    };
  }
}

function describe(record: ArtifactRecord): ViewedArtifact {
  return {
    uri: record.uri,
    name: record.filename ?? record.id.split('/').pop()!,
    mimeType: record.mimeType,
    size: record.size,
    sha256: record.sha256,
    server: record.server,
    tool: record.tool,
    created: record.created,
    facts: record.facts,
  };
}

function failure(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

function viewTool(name: string): Tool {
  return {
    name,
    title: 'Show a stored tool output to the user',
    description:
      "Shows a stored artifact (an artifact:// URI from a summary or artifact_list) to the user in mcp-offload's viewer: images with zoom, JSON as a tree with a JSONPath filter, text with search, PDF pages. Nothing of the file enters your context; read it with artifact_read.",
    inputSchema: {
      type: 'object',
      properties: { uri: { type: 'string', description: 'The artifact:// URI to show.' } },
      required: ['uri'],
    },
    outputSchema: {
      type: 'object',
      properties: {
        artifacts: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              uri: { type: 'string' },
              name: { type: 'string' },
              mimeType: { type: 'string' },
              size: { type: 'integer' },
              sha256: { type: 'string' },
              server: { type: 'string' },
              tool: { type: 'string' },
              created: { type: 'string' },
              facts: { type: 'object' },
            },
            required: ['uri', 'name', 'mimeType', 'size'],
          },
        },
      },
      required: ['artifacts'],
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
    _meta: { ui: { resourceUri: VIEWER_URI } },
  };
}
