import { isTextMimeType } from '../artifacts/mime.js';
import { utf8 } from '../artifacts/resources.js';
import type { ArtifactStore } from '../artifacts/store.js';
import { findStringsDeep, setAtPath, type JsonPath } from './detect/walk.js';

const ARTIFACT_URI = /^artifact:\/\/\S+$/;

/**
 * The reverse direction: a tool argument that is exactly the `artifact://` URI of one of the
 * session's artifacts is replaced by its content (text for text, base64 for binary), so one tool's
 * output can feed another without passing through the model. Other values are left alone.
 */
export async function resolveArtifactArguments(
  args: Record<string, unknown> | undefined,
  store: ArtifactStore,
  owner: string,
): Promise<Record<string, unknown> | undefined> {
  if (!args) return args;
  const found: { path: JsonPath; uri: string }[] = [];
  findStringsDeep(args, (value, place) => {
    if (ARTIFACT_URI.test(value)) found.push({ path: place.path(), uri: value });
    return true;
  });
  let next: unknown = args;
  for (const { path, uri } of found) {
    // find: over a shared bucket the artifact may come from another replica.
    const record = await store.find(uri, owner);
    if (!record || !record.owners.includes(owner)) continue;
    const bytes = await store.read(record.id);
    const text = isTextMimeType(record.mimeType) ? utf8(bytes) : undefined;
    next = setAtPath(next, path, text ?? bytes.toString('base64'));
  }
  return next as Record<string, unknown>;
}
