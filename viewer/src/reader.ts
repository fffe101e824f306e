import type { App } from '@modelcontextprotocol/ext-apps';

/** An artifact's content as the host relayed it: text (textual types), or base64 of the bytes. */
export type Content = { text: string } | { base64: string };

/** The gateway's settings the page is served with (src/artifacts/viewer-html.ts). */
interface PageConfig {
  readTool?: string;
}

function pageConfig(): PageConfig {
  try {
    return JSON.parse(document.getElementById('viewer-config')?.textContent ?? '{}') as PageConfig;
  } catch {
    return {};
  }
}

/**
 * Reads an artifact through the host, never the network: `resources/read` of its artifact:// URI when the host
 * relays resource reads, else the artifact_read tool, a byte range at a time.
 */
export async function readArtifact(app: App, uri: string, size: number): Promise<Content> {
  const host = app.getHostCapabilities();
  if (host?.serverResources) {
    const { contents } = await app.readServerResource({ uri });
    const [first] = contents;
    if (first && 'text' in first && typeof first.text === 'string') return { text: first.text };
    if (first && 'blob' in first && typeof first.blob === 'string') return { base64: first.blob };
    throw new Error(`the host answered resources/read of ${uri} without its content`);
  }
  const tool = pageConfig().readTool;
  if (host?.serverTools && tool) return { base64: bytesToBase64(await readInRanges(app, tool, uri, size)) };
  throw new Error('this host relays neither resources/read nor tool calls to mcp-offload: nothing can be read');
}

/** The bytes through artifact_read byte ranges; a range whose answer was cut is asked again, half as long. */
async function readInRanges(app: App, tool: string, uri: string, size: number): Promise<Uint8Array> {
  const bytes = new Uint8Array(size);
  let offset = 0;
  let length = 12_000;
  while (offset < size) {
    const result = await app.callServerTool({ name: tool, arguments: { uri, offset, length } });
    const block = result.content[0];
    const text = block?.type === 'text' ? block.text : '';
    if (result.isError) throw new Error(text || `${tool} failed`);
    const header = /^\[bytes (\d+)-(\d+) of \d+( \(base64\))?\]\n/.exec(text);
    if (!header) throw new Error(`unexpected answer from ${tool}: ${text.slice(0, 80)}`);
    const body = text.slice(header[0].length);
    if (body.includes('\n… [cut at ')) {
      if (length <= 256) throw new Error(`${tool} answers are too short to read ${uri}`);
      length = Math.floor(length / 2);
      continue;
    }
    const piece = header[3] ? base64ToBytes(body) : new TextEncoder().encode(body);
    bytes.set(piece, offset);
    offset += piece.length;
    if (piece.length === 0) break;
  }
  return bytes;
}

export function base64ToBytes(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** The content as text (UTF-8 for bytes). */
export function textOf(content: Content): string {
  return 'text' in content ? content.text : new TextDecoder().decode(base64ToBytes(content.base64));
}

/** The content as bytes. */
export function bytesOf(content: Content): Uint8Array {
  return 'text' in content ? new TextEncoder().encode(content.text) : base64ToBytes(content.base64);
}

/** The content as base64. */
export function base64Of(content: Content): string {
  return 'text' in content ? bytesToBase64(new TextEncoder().encode(content.text)) : content.base64;
}
