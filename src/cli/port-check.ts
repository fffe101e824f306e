import { createServer } from 'node:net';

/**
 * Why the proxy could not listen on `host:port`, in one line, or undefined when it can. Checked before any upstream
 * starts, so that a port in use costs nothing but the line (the listening socket itself is opened later, once the
 * upstreams are up; a port taken in between still fails there, with the same words).
 */
export async function listenProblem(host: string, port: number): Promise<string | undefined> {
  if (port === 0) return undefined;
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ host, port, exclusive: true }, resolve);
    });
    return undefined;
  } catch (error) {
    return listenErrorText(error, host, port);
  } finally {
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  }
}

/** A listen error in words: which address, and what to do. */
export function listenErrorText(error: unknown, host: string, port: number): string {
  const code = (error as { code?: unknown } | null)?.code;
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (code === 'EADDRINUSE') return `cannot listen on ${where}: the port is in use (choose another with --http)`;
  if (code === 'EACCES') return `cannot listen on ${where}: permission denied (ports below 1024 need privileges)`;
  if (code === 'EADDRNOTAVAIL') return `cannot listen on ${where}: this machine has no such address`;
  return `cannot listen on ${where}: ${error instanceof Error ? error.message : String(error)}`;
}
