/**
 * Lines as an editor counts them, the one definition for summaries (`Lines: N`) and `artifact_read`
 * (`[lines 1-20 of N]`): a newline ends a line, so a final one does not start another; an empty text
 * has no lines; `\r\n` ends a line like `\n`.
 */
export function countLines(content: Buffer | string): number {
  if (content.length === 0) return 0;
  const nextEnd =
    typeof content === 'string'
      ? (from: number) => content.indexOf('\n', from)
      : (from: number) => content.indexOf(0x0a, from);
  let lines = 0;
  for (let at = nextEnd(0); at !== -1; at = nextEnd(at + 1)) lines++;
  const last = content[content.length - 1];
  return last === 0x0a || last === '\n' ? lines : lines + 1;
}

/** The lines of a text, without their line ends; as many as `countLines` counts. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (text.endsWith('\n')) lines.pop();
  return lines;
}
