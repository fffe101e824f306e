import type { ArtifactStore } from '../artifacts/store.js';
import type { ArtifactRecord } from '../artifacts/types.js';
import { contentDisposition, downloadName, servedInline } from './content-headers.js';
import type { LinkSigner } from './link-signer.js';

/** Where artifacts are served: `/artifacts` (the gallery) and `/artifacts/<id>` (the bytes). */
export const ARTIFACTS_PATH = '/artifacts';

/** `server/tool_ab12.png` → `/artifacts/server/tool_ab12.png`, each segment percent-encoded. */
export function artifactPath(id: string): string {
  return `${ARTIFACTS_PATH}/${id.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * The artifact id in a raw request path (not normalized by a URL parser, which would resolve `..`
 * before we could see it), or `undefined` for anything that is not a plain relative id: empty, `.`
 * or `..` segments, encoded slashes or backslashes, control characters, bad percent-encoding.
 */
export function idFromPath(rawPath: string): string | undefined {
  const prefix = `${ARTIFACTS_PATH}/`;
  if (!rawPath.startsWith(prefix)) return undefined;
  const segments: string[] = [];
  for (const raw of rawPath.slice(prefix.length).split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    // eslint-disable-next-line no-control-regex
    if (segment === '' || segment === '.' || segment === '..' || /[/\\\u0000-\u001f\u007f]/.test(segment))
      return undefined;
    segments.push(segment);
  }
  return segments.length > 0 && segments.length <= 8 ? segments.join('/') : undefined;
}

export const artifactSubject = (id: string): string => `artifact:${id}`;
export const gallerySubject = (owner: string): string => `gallery:${owner}`;

/** `<base>/artifacts/<id>?expires=…&sig=…` */
export function signedArtifactUrl(signer: LinkSigner, base: string, id: string): string {
  const { expires, sig } = signer.sign(artifactSubject(id));
  return `${base}${artifactPath(id)}?expires=${expires}&sig=${sig}`;
}

/** `<base>/artifacts?scope=<owner>&expires=…&sig=…`: the gallery of one owner. */
export function signedGalleryUrl(signer: LinkSigner, base: string, owner: string): string {
  const { expires, sig } = signer.sign(gallerySubject(owner));
  return `${base}${ARTIFACTS_PATH}?scope=${encodeURIComponent(owner)}&expires=${expires}&sig=${sig}`;
}

/**
 * `artifacts.links.via: presigned`: a GET URL of the bucket, valid `seconds`, that serves the bytes with
 * the same name and disposition as the gateway would. The bytes then never pass through a replica.
 */
export function presignedArtifactUrl(store: ArtifactStore, record: ArtifactRecord, seconds: number): Promise<string> {
  return store.presignedUrl(record, seconds, contentDisposition(downloadName(record), servedInline(record.mimeType)));
}
