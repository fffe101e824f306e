/** Collects problems against the document's positions; hands them out sorted and deduplicated. */
import type { RawProblem } from './ajv-messages.js';
import { formatProblem, type ConfigProblem } from './types.js';
import type { NodeInfo, Position } from './yaml-tree.js';

export class ProblemList {
  private readonly problems: ConfigProblem[] = [];
  /** Values whose env substitution failed: later complaints about them would only repeat it. */
  private readonly unsubstituted = new Set<string>();

  constructor(
    private readonly file: string,
    private readonly nodes: Map<string, NodeInfo> = new Map(),
  ) {}

  addAt(position: Position, path: string, message: string): void {
    this.problems.push({ file: this.file, line: position.line, column: position.column, path, message });
  }

  add({ pointer, anchor, message }: RawProblem): void {
    if (this.unsubstituted.has(pointer)) return;
    this.addAt(this.locate(pointer, anchor), pointer, message);
  }

  addEnvProblem(pointer: string, message: string): void {
    this.add({ pointer, anchor: 'value', message });
    this.unsubstituted.add(pointer);
  }

  get size(): number {
    return this.problems.length;
  }

  sorted(): ConfigProblem[] {
    const seen = new Set<string>();
    return this.problems
      .filter((p) => {
        const text = formatProblem(p);
        if (seen.has(text)) return false;
        seen.add(text);
        return true;
      })
      .sort((a, b) => a.line - b.line || a.column - b.column);
  }

  /** The nearest position the document has for `pointer`: itself, else its closest ancestor. */
  private locate(pointer: string, anchor: RawProblem['anchor']): Position {
    for (let p = pointer; ; p = p.slice(0, p.lastIndexOf('/'))) {
      const info = this.nodes.get(p);
      if (info) return (anchor === 'key' ? info.key : undefined) ?? info.value;
      if (p === '') return { line: 1, column: 1 };
    }
  }
}
