import { findStringsDeep, pathText } from './detect/walk.js';
import { MIN_CHARS as PREVIEW_MIN_CHARS, previewMarkIn } from './preview-mark.js';

/**
 * Text the proxy handed a client in place of content: a summary of a stored payload, or a preview that leaves part
 * of it out. Such text is not a stand-in (restore.ts cannot put the content back), so a call carrying it would write
 * the summary where the content was: `read_text_file` then `write_file` makes the file its own summary.
 *
 * It is recognized from the text alone, so it works in every session and on every replica, with nothing to look up:
 * - a summary by its frame (summary/describe.ts): a `File saved:` or `Download:` line, then `Type:` and `Size: <n>
 *   bytes` lines, then within a few lines `Resource: artifact://…`. A file that quotes a whole summary is refused
 *   too; a text merely naming an artifact, or holding any one of those lines, is not.
 * - a preview by the line that says what it leaves out (summary/preview.ts: `… [<n> lines, <n> characters not
 *   shown] …`), and an `artifact_read` answer cut short by its `… [cut at <n> of <n> characters; …]` line.
 * - an image preview (base64, or a `data:` URI) by the mark in its metadata (preview-mark.ts), which names the
 *   artifact: a tool saving an image would otherwise overwrite the original with a scaled-down copy.
 */
export interface HandedOut {
  kind: 'summary' | 'preview' | 'image-preview';
  /** Where in the arguments, as `content` or `edits[0].newText`. */
  where: string;
  /** The artifact the text stands for, when the text names it. */
  uri?: string;
}

// Bounded everywhere (line lengths, the lines between), so no text makes the search slow.
const SUMMARY =
  /^(?:File saved|Download): [^\n]{1,2000}\r?\nType: [^\n]{1,200}\r?\nSize: \d+ bytes[^\n]{0,40}\r?\n(?:[^\n]{0,2100}\r?\n){0,40}?Resource: (artifact:\/\/[^\s]{1,300})\r?$/m;
const LEFT_OUT = /^… \[\d+ lines?, \d+ characters not shown\] …\r?$/m;
const CUT = /… \[cut at \d+ of \d+ characters; narrow the range or query\]/;
// Every signature holds one of these; a string without any is passed over at the cost of three searches.
const HINTS = ['Resource: artifact://', 'characters not shown] …', '… [cut at '];

/**
 * Whether arguments read as they are in `text` (Frame.plainText: no escapes) may carry a summary or preview: every
 * signature holds a hint, and an image preview is a string of PREVIEW_MIN_CHARS or more, which a shorter text cannot
 * hold. False answers for the arguments without a walk of them (findHandedOut would find nothing).
 */
export function textMayHoldHandedOut(text: string): boolean {
  return text.length >= PREVIEW_MIN_CHARS || HINTS.some((hint) => text.includes(hint));
}

/** The first summary or preview of the proxy's in the arguments, or undefined when they carry none. */
export function findHandedOut(args: Record<string, unknown> | undefined): HandedOut | undefined {
  if (args === undefined) return undefined;
  let found: HandedOut | undefined;
  findStringsDeep(args, (text, place) => {
    if (!HINTS.some((hint) => text.includes(hint))) {
      const image = previewMarkIn(text);
      if (image !== undefined) found = { kind: 'image-preview', where: pathText(place.path()).slice(1), uri: image };
      return found === undefined;
    }
    const summary = SUMMARY.exec(text);
    if (summary) found = { kind: 'summary', where: pathText(place.path()).slice(1), uri: summary[1] };
    else if (LEFT_OUT.test(text) || CUT.test(text)) found = { kind: 'preview', where: pathText(place.path()).slice(1) };
    return found === undefined;
  });
  return found;
}

/** Why the call was not sent, and how to make the change without losing the content. */
export function refusal(found: HandedOut, uriArgumentsResolve: boolean): string {
  if (found.kind === 'image-preview') {
    const uri = found.uri!;
    const whole = uriArgumentsResolve
      ? `pass the artifact:// URI ${uri} itself as the whole argument, which mcp-offload replaces by the original ` +
        `image's bytes, or `
      : '';
    return (
      `the argument ${found.where || '(the arguments)'} holds an image preview mcp-offload made of ${uri}, scaled ` +
      `down and re-encoded, not the image itself; sent on, it would be saved where the original was. To pass the ` +
      `image, ${whole}use the original file (its path, or the resource ${uri}, read whole with resources/read).`
    );
  }
  const what =
    found.kind === 'summary'
      ? `a summary mcp-offload wrote in place of ${found.uri ?? 'a stored payload'}`
      : 'a preview mcp-offload made of a stored payload, with part of it left out';
  const read = found.uri ? `read the exact lines first with artifact_read {uri: "${found.uri}", lines or query}` : '';
  const whole = uriArgumentsResolve
    ? `; or pass the artifact:// URI itself as the whole argument, which mcp-offload replaces by the full content`
    : '';
  return (
    `the argument ${found.where || '(the arguments)'} holds ${what}, not the content itself; sent on, it would be ` +
    `written where the content was. To change a file, use the server's own edit tool (edit_file, for instance) with ` +
    `just the text to replace${read ? `, and ${read}` : ''}${whole}.`
  );
}
