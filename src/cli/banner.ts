import type { Gateway } from '../gateway/gateway.js';
import { VERSION } from '../version.js';

/** What one upstream looks like to the person reading the banner. */
export interface ServedUpstream {
  name: string;
  state: string;
  tools: number;
  prompts: number;
  resources: number;
  lastError?: string;
}

export interface BannerFacts {
  upstreams: ServedUpstream[];
  artifactDir: string;
  /** The Streamable HTTP endpoint; undefined in stdio mode. */
  url?: string;
}

export function bannerFacts(gateway: Gateway, url?: string): BannerFacts {
  return {
    upstreams: gateway.upstreams.map((u) => ({
      name: u.name,
      state: u.state,
      tools: u.catalog.tools.length,
      prompts: u.catalog.prompts.length,
      resources: u.catalog.resources.length,
      ...(u.lastError ? { lastError: u.lastError } : {}),
    })),
    artifactDir: gateway.offload.store.dir,
    ...(url ? { url } : {}),
  };
}

/**
 * A few lines for a person who started the proxy on a terminal: the logs are JSON for machines, and in
 * stdio mode nothing else would tell them that the proxy is waiting for a client to speak MCP on stdin.
 */
export function bannerText(facts: BannerFacts): string {
  const lines = [`mcp-offload ${VERSION}`, ...facts.upstreams.map(describeUpstream)];
  lines.push(`  artifacts are stored in ${facts.artifactDir}`);
  if (facts.url) {
    lines.push(`Serving MCP over Streamable HTTP at ${facts.url}: point an MCP client there. Ctrl-C stops it.`);
  } else {
    lines.push(
      'Waiting for an MCP client on stdin: mcp-offload speaks MCP (JSON-RPC) on stdin and stdout, so it is meant to be',
      'started by an MCP client (Claude Desktop, Claude Code, Cursor, ...) from its server settings, not typed into.',
      'Ctrl-C stops it. To try it by hand, serve HTTP instead: add --http 8080 and connect to http://127.0.0.1:8080/mcp',
    );
  }
  return `${lines.join('\n')}\n`;
}

function describeUpstream(upstream: ServedUpstream): string {
  const counts = [
    count(upstream.tools, 'tool'),
    count(upstream.prompts, 'prompt'),
    count(upstream.resources, 'resource'),
  ];
  if (upstream.state === 'up') return `  server "${upstream.name}": ${counts.join(', ')}`;
  const why = upstream.lastError ? ` (${upstream.lastError})` : '';
  if (upstream.state === 'needs-login') return `  server "${upstream.name}": ${upstream.lastError ?? 'needs a login'}`;
  const next = upstream.state === 'failed' ? 'it is not retried' : 'it is retried in the background';
  return `  server "${upstream.name}": ${upstream.state}${why}; ${next}`;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
