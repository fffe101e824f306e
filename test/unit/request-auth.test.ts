import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { ANONYMOUS, BearerAuth } from '../../src/http/auth.js';
import { RequestAuth } from '../../src/http/request-auth.js';
import { originOf } from '../../src/http/modern-posts.js';

/** A request as node:http hands it to the server, with these headers, and its response. */
function exchange(headers: Record<string, string> = {}): { req: IncomingMessage; res: ServerResponse } {
  const req = new IncomingMessage(new Socket());
  Object.assign(req.headers, headers);
  return { req, res: new ServerResponse(req) };
}

// Without OAuth the answer is at hand, and the request goes on in the turn node:http handed it over in (its body read
// as it is parsed): a promise here would cost every POST a turn of the event loop.
describe('RequestAuth without OAuth answers at once', () => {
  const auth = new RequestAuth(new BearerAuth([{ name: 'ci', token: 'a-static-token-of-ci' }]));

  test('a static token: its name, not a promise of it', () => {
    const { req, res } = exchange({ authorization: 'Bearer a-static-token-of-ci' });
    expect(auth.authenticate(req, res)).toBe('ci');
    expect(res.headersSent).toBe(false);
  });

  test('a wrong token, or none: undefined, and the 401 written', () => {
    const refused: Array<Record<string, string>> = [{ authorization: 'Bearer not-the-token' }, {}];
    for (const headers of refused) {
      const { req, res } = exchange(headers);
      expect(auth.authenticate(req, res)).toBeUndefined();
      expect(res.statusCode).toBe(401);
    }
  });

  test('no tokens configured: everyone is anonymous', () => {
    const { req, res } = exchange();
    expect(new RequestAuth(new BearerAuth([])).authenticate(req, res)).toBe(ANONYMOUS);
  });
});

describe('originOf', () => {
  test('the origin a client reached the proxy at, from its Host header, the same when asked again', () => {
    for (let round = 0; round < 2; round++) {
      expect(originOf(exchange({ host: '127.0.0.1:8080' }).req)).toBe('http://127.0.0.1:8080');
      expect(originOf(exchange({ host: 'Proxy.Example:80' }).req)).toBe('http://proxy.example');
      expect(originOf(exchange({ host: '[::1]:9' }).req)).toBe('http://[::1]:9');
      expect(originOf(exchange({ host: 'bad host/x' }).req)).toBeUndefined();
      expect(originOf(exchange().req)).toBeUndefined();
    }
  });

  test('more Host values than it keeps: each still read right', () => {
    for (let i = 0; i < 600; i++)
      expect(originOf(exchange({ host: `h${i}.example:${1000 + i}` }).req)).toBe(`http://h${i}.example:${1000 + i}`);
    expect(originOf(exchange({ host: 'bad host/x' }).req)).toBeUndefined();
    expect(originOf(exchange({ host: '127.0.0.1:8080' }).req)).toBe('http://127.0.0.1:8080');
  });
});
