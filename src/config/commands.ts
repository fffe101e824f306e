/**
 * Whether each local server's command can be started: a typo (`command: nodee`) is a problem at its
 * line, with the closest program on the PATH as a suggestion. `which` (the npm CLI team's, as npm itself
 * uses) does the PATH walk, with Windows' PATHEXT. Only `validate` asks: a gateway may be checked on
 * another machine than the one it runs on, and a running gateway serves the servers that do start.
 */
import { readdirSync } from 'node:fs';
import { delimiter, isAbsolute, resolve } from 'node:path';
import which from 'which';
import type { RawProblem } from './ajv-messages.js';
import { serverMapKey } from './checks.js';
import { isPlainObject, joinPointer } from './pointer.js';
import { closestKey } from './suggest.js';

export function checkCommands(root: unknown, env: NodeJS.ProcessEnv, report: (problem: RawProblem) => void): void {
  if (!isPlainObject(root)) return;
  const mapKey = serverMapKey(root);
  const servers = isPlainObject(root[mapKey]) ? root[mapKey] : {};
  for (const [name, server] of Object.entries(servers)) {
    if (!isPlainObject(server) || typeof server.command !== 'string' || server.command === '') continue;
    const own = isPlainObject(server.env) && typeof server.env.PATH === 'string' ? server.env.PATH : undefined;
    const path = own ?? env.PATH ?? '';
    const cwd = typeof server.cwd === 'string' ? resolve(server.cwd) : process.cwd();
    if (findCommand(server.command, path, cwd)) continue;
    report({
      pointer: joinPointer(joinPointer(`/${mapKey}`, name), 'command'),
      anchor: 'value',
      message: notFound(server.command, path, cwd),
    });
  }
}

/** The executable a command names, looked up as the server's process would be started; null if none. */
export function findCommand(command: string, path: string, cwd: string): string | null {
  if (command.includes('/') || command.includes('\\')) {
    return which.sync(isAbsolute(command) ? command : resolve(cwd, command), { nothrow: true });
  }
  return which.sync(command, { path, nothrow: true });
}

/** `command not found: nodee (did you mean "node"?)`, or where it was looked for. */
export function notFound(command: string, path: string, cwd: string): string {
  if (command.includes('/') || command.includes('\\')) {
    return `command not found: ${command} (no executable file at ${isAbsolute(command) ? command : resolve(cwd, command)})`;
  }
  const meant = closestKey(command, executablesOn(path));
  return `command not found: ${command}${meant ? ` (did you mean "${meant}"?)` : ` (looked in the PATH: ${path || 'empty'})`}`;
}

function executablesOn(path: string): string[] {
  const names = new Set<string>();
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    try {
      for (const name of readdirSync(dir)) names.add(name);
    } catch {
      // a PATH entry that does not exist is common and harmless
    }
  }
  return [...names];
}
