import { spawn } from 'node:child_process';

/**
 * Opens `url` in the user's browser when there is one: `$BROWSER` (the first of its `:`-separated commands, with
 * `%s` replaced by the URL or the URL appended), else `open` on macOS and `xdg-open` where a display is; on a
 * machine without any (a server over SSH) it returns false and the printed URL is the way. Never throws.
 */
export function openBrowser(url: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const command = browserCommand(env);
  if (!command) return false;
  try {
    // The URL goes in as a positional parameter of sh, never into the command text.
    const script = command.includes('%s') ? command.replaceAll('%s', '"$1"') : `${command} "$1"`;
    const child = spawn('/bin/sh', ['-c', script, 'browser', url], { stdio: 'ignore', detached: true, env });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

function browserCommand(env: NodeJS.ProcessEnv): string | undefined {
  const browser = env.BROWSER?.split(':')[0]?.trim();
  if (browser) return browser;
  if (process.platform === 'darwin') return 'open';
  if (process.platform === 'linux' && (env.DISPLAY || env.WAYLAND_DISPLAY)) return 'xdg-open';
  return undefined;
}
