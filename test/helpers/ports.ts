import net from 'node:net';

/**
 * A TCP port that was free on 127.0.0.1 a moment ago (listen on port 0, read it, close).
 * Inherently racy, but fine for tests that bind it right away.
 */
export async function freePort(): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      if (addr === null || typeof addr === 'string') {
        srv.close();
        reject(new Error(`unexpected server address: ${String(addr)}`));
        return;
      }
      const { port } = addr;
      srv.close((err) => (err ? reject(err) : resolve(port)));
    });
  });
}
