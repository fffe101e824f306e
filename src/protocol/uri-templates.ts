import type { UriTemplate } from '@modelcontextprotocol/server';

/** What a resource template is matched with: the SDK's RFC 6570 UriTemplate. */
export interface TemplateMatcher {
  match(uri: string): unknown;
}

let TemplateClass: typeof UriTemplate | undefined;

/**
 * Loads the SDK's UriTemplate, once. The SDK's server package (and zod with it) is some fifteen megabytes of memory
 * that a proxy whose servers list no resource templates never needs, so it is loaded only when a server lists one
 * (upstreams/catalog-fetch.ts), before the catalog that matches against it is built.
 */
export async function loadTemplates(): Promise<void> {
  TemplateClass ??= (await import('@modelcontextprotocol/server')).UriTemplate;
}

/** A matcher for `uriTemplate`; one that matches nothing when the template is malformed (or was never loaded). */
export function templateMatcher(uriTemplate: string): TemplateMatcher {
  try {
    if (TemplateClass) return new TemplateClass(uriTemplate);
  } catch {
    // A malformed template serves nothing, as it would from the server itself.
  }
  return { match: () => null };
}
