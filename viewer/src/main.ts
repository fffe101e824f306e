// mcp-offload's artifact viewer: an MCP App (SEP-1865) that shows the artifacts a tool result points at. The host
// hands it the result of artifact_view (or of a tool the proxy links to the viewer); the view reads each artifact
// through the host and draws it. Built into one self-contained HTML page by viewer/build.mjs.
import {
  App,
  PostMessageTransport,
  applyDocumentTheme,
  applyHostStyleVariables,
  type McpUiHostContext,
} from '@modelcontextprotocol/ext-apps';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { artifactsOf, kindOf, type Shown } from './artifacts.js';
import { el, humanSize, status } from './dom.js';
import { imageView } from './image-view.js';
import { jsonView } from './json-view.js';
import { pdfView } from './pdf-view.js';
import { base64Of, bytesOf, readArtifact, textOf } from './reader.js';
import { textView } from './text-view.js';

const root = document.getElementById('viewer')!;
const app = new App({ name: 'mcp-offload artifact viewer', version: '1.0.0' }, {}, { autoResize: true });

app.ontoolresult = (result) => show(result as CallToolResult);
app.ontoolcancelled = () => root.replaceChildren(status('The call was cancelled.'));
app.onhostcontextchanged = (context) => applyContext(context);

/** Room the name line and a toolbar take above a scrolling view. */
const CHROME_PX = 96;

function applyContext(context: McpUiHostContext | undefined): void {
  if (context?.theme) applyDocumentTheme(context.theme);
  if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
  // A scrolling view fits the host's container: its fixed height, or the most it may grow to.
  const container = context?.containerDimensions as { height?: number; maxHeight?: number } | undefined;
  const room = container?.height ?? container?.maxHeight;
  if (room) document.documentElement.style.setProperty('--view-max-height', `${Math.max(160, room - CHROME_PX)}px`);
}

/** A result's artifacts: a tab for each (when several), and the view of the one chosen. */
function show(result: CallToolResult): void {
  const artifacts = artifactsOf(result);
  if (result.isError) {
    const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
    root.replaceChildren(status(text || 'The tool failed.', 'error'));
    return;
  }
  if (!artifacts.length) {
    root.replaceChildren(status('Nothing was stored from this result.'));
    return;
  }
  const panel = el('div', { class: 'panel' });
  const tabs = el('nav', { class: 'tabs', role: 'tablist' });
  const choose = (index: number) => {
    tabs.querySelectorAll('button').forEach((tab, i) => tab.setAttribute('aria-selected', String(i === index)));
    void open(artifacts[index]!, panel);
  };
  artifacts.forEach((artifact, index) => {
    const tab = el('button', { type: 'button', role: 'tab', title: artifact.uri }, artifact.name);
    tab.addEventListener('click', () => choose(index));
    tabs.append(tab);
  });
  root.replaceChildren(...(artifacts.length > 1 ? [tabs] : []), panel);
  choose(0);
}

/** Reads an artifact and draws it in `panel`, under a line that says what it is. */
async function open(artifact: Shown, panel: HTMLElement): Promise<void> {
  const heading = el(
    'header',
    { class: 'artifact-header' },
    el('strong', { class: 'artifact-name' }, artifact.name),
    el('span', { class: 'artifact-meta' }, ` ${artifact.mimeType} · ${humanSize(artifact.size)}`),
  );
  const kind = kindOf(artifact);
  if (kind === 'none') {
    panel.replaceChildren(heading, status(`No preview for ${artifact.mimeType}. It is ${artifact.uri}.`));
    return;
  }
  panel.replaceChildren(heading, status('Loading…'));
  panel.dataset.kind = kind;
  try {
    const content = await readArtifact(app, artifact.uri, artifact.size);
    const view =
      kind === 'image'
        ? imageView(base64Of(content), artifact.mimeType, artifact.name)
        : kind === 'pdf'
          ? pdfView(bytesOf(content))
          : kind === 'json'
            ? jsonView(textOf(content))
            : textView(textOf(content));
    panel.replaceChildren(heading, view);
  } catch (error) {
    panel.replaceChildren(heading, status(`${artifact.uri} could not be read: ${(error as Error).message}`, 'error'));
  }
}

void app
  .connect(new PostMessageTransport(window.parent, window.parent))
  .then(() => applyContext(app.getHostContext()))
  .catch((error: unknown) => root.replaceChildren(status(`Not connected to a host: ${String(error)}`, 'error')));
