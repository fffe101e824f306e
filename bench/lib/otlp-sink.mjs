// A local OTLP/HTTP trace receiver for the tracing bench group: it takes every POST /v1/traces, answers 200 with an
// empty ExportTraceServiceResponse at once, and counts requests and bytes (the bench only needs the export to land
// somewhere real and cheap; the tests decode what they receive: test/helpers/otlp-receiver.ts).
import { createServer } from 'node:http';

export async function startOtlpSink() {
  const seen = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on('data', (chunk) => (seen.bytes += chunk.length));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') seen.requests++;
      const json = (req.headers['content-type'] ?? '').startsWith('application/json');
      res
        .writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' })
        .end(json ? '{}' : '');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${server.address().port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}
