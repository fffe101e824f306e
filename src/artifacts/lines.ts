/**
 * Lines as an editor counts them, the one definition for summaries (`Lines: N`) and `artifact_read`
 * (`[lines 1-20 of N]`): a newline ends a line, so a final one does not start another; an empty text
 * has no lines; `\r\n` ends a line like `\n`.
 */
export function countLines(bytes: Buffer): number {
  if (bytes.length === 0) return 0;
  let lines = 0;
  for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a, at + 1)) lines++;
  return bytes[bytes.length - 1] === 0x0a ? lines : lines + 1;
}

/** The lines of a text, without their line ends; as many as `countLines` counts. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (text.endsWith('\n')) lines.pop();
  return lines;
}
