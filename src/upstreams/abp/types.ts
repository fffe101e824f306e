// The seam between the two halves of the ABP backend:
//   browser side (browser.ts, manifest.ts, extension.ts, session.ts, guard.ts): puppeteer-core and window.abp;
//   MCP side (registry.ts, tools.ts, server.ts, ...): an in-process MCP server whose tools call a BrowserSession.
// Nothing here imports puppeteer, so the MCP side compiles without knowing how the browser is driven.

/** A capability as the manifest or `listCapabilities()` describes it; absent fields are simply absent. */
export interface AbpCapability {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  available?: boolean;
  experimental?: boolean;
  deprecated?: boolean;
  requirements?: unknown;
}

export interface AbpAppInfo {
  id: string;
  name: string;
  version: string;
  description?: string;
  homepage?: string;
  icon?: string;
  support?: string;
}

export interface AbpManifest {
  abp: string;
  app: AbpAppInfo;
  capabilities: AbpCapability[];
}

/** Exactly one of url, extensionPath, extensionId; `abpPage` only for extensions (default `abp-app.html`). */
export type ConnectTarget =
  { url: string } | { extensionPath: string; abpPage?: string } | { extensionId: string; abpPage?: string };

export interface BrowserOptions {
  /** Resolved executable: config, then CHROME_PATH, then well-known locations (see browser.ts). */
  executablePath?: string;
  headless: boolean;
  /** Launch, navigation and extension-id discovery (ABP_BROWSER_TIMEOUT, default 30 000). */
  browserTimeoutMs: number;
  /** How long a browser-initiated download may take to finish (ABP_DOWNLOAD_TIMEOUT, default 30 000). */
  downloadTimeoutMs: number;
  /** How long to wait for `window.abp` to appear after navigation (default 10 000). */
  abpWaitMs: number;
  /** Persistent profile directory; a fresh temporary profile when absent. */
  userDataDir?: string;
  /** Where `extensionId` packages are fetched from: `{id}` in the URL is replaced by the id. */
  extensionStoreUrl: string;
  /** Where downloaded extensions are unpacked, one folder per id. */
  extensionCacheDir: string;
  /** Identity sent in `initialize`. */
  agent: { name: string; version: string };
}

export interface AbpError {
  code: string;
  message: string;
  retryable?: boolean;
  details?: unknown;
  retryAfter?: number;
  alternatives?: unknown;
}

/** What `window.abp.call` answered (a thrown exception in the page is turned into `success: false`). */
export interface AbpResponse {
  success: boolean;
  data?: unknown;
  error?: AbpError;
  metadata?: unknown;
  cancelled?: boolean;
}

/** A side effect the event guard captured during one call. */
export interface InterceptedOutput {
  kind: 'print' | 'download';
  bytes: Buffer;
  mimeType: string;
  filename?: string;
}

export interface HandledDialog {
  type: 'alert' | 'confirm' | 'prompt' | 'beforeunload';
  message: string;
  action: 'accepted' | 'dismissed';
}

export interface CallOutcome {
  response: AbpResponse;
  /** Print PDFs and finished downloads, empty when nothing happened (the caller applies the priority rule). */
  outputs: InterceptedOutput[];
  dialogs: HandledDialog[];
}

export interface CallOptions {
  timeoutMs: number;
  callId: string;
  progressToken?: string | number;
  /** Aborted when the MCP client cancels: the session calls `abp.cancel(callId)` when the app has it. */
  signal?: AbortSignal;
}

export interface ConnectionInfo {
  /** The page the session runs in (http(s) or chrome-extension://). */
  pageUrl: string;
  sessionId: string;
  app: AbpAppInfo;
  /** Fetched (web apps) or synthesized from the runtime (extensions). */
  manifest: AbpManifest;
  /** Manifest and runtime merged: runtime entries win, runtime-only ones are added. */
  capabilities: AbpCapability[];
  features: Record<string, unknown>;
  extensionId?: string;
}

export interface AbpProgress {
  operationId: string | number;
  progress: number;
  total?: number;
  percentage?: number;
  status?: string;
  stage?: string;
}

export interface AbpElicitation {
  method: string;
  params?: Record<string, unknown>;
}

export interface AbpElicitationAnswer {
  success: boolean;
  data?: unknown;
  error?: AbpError;
  cancelled?: boolean;
}

/** Callbacks from the page to the MCP side; both of the protocol's event conventions end up here. */
export interface SessionEvents {
  onProgress(progress: AbpProgress): void;
  onNotification(notification: { method?: string; params?: unknown }): void;
  onElicitation(request: AbpElicitation): Promise<AbpElicitationAnswer>;
  /** The app announced a capability change; the session has already re-listed them. */
  onCapabilitiesChanged(capabilities: AbpCapability[]): void;
  /** The page crashed or closed, or the browser went away. */
  onPageLost(reason: string): void;
}

export interface BrowserSession {
  readonly connected: boolean;
  readonly info: ConnectionInfo | undefined;
  /** Runs the whole connect sequence; on failure every step taken is rolled back and the error thrown. */
  connect(target: ConnectTarget): Promise<ConnectionInfo>;
  /** Page health check, guard armed, `window.abp.call`, intercepted outputs collected. */
  call(capability: string, params: unknown, options: CallOptions): Promise<CallOutcome>;
  /** `page.pdf` of the given HTML in a fresh page of the same browser (A4, backgrounds unless told otherwise). */
  renderToPdf(html: string, options?: Record<string, unknown>): Promise<Buffer>;
  /** Shutdown, guard detach, browser close. Logs problems, never throws. */
  disconnect(): Promise<void>;
}

/** Thrown by `call` when the page or browser is gone; its message is what the client sees. */
export class PageLostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PageLostError';
  }
}
