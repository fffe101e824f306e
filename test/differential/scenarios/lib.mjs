// Building blocks of the scenarios: the upstream's handshake rules and the client's opening messages. Everything
// here is a byte template on purpose (not JSON.stringify of an object), so that the bytes on the wire are exactly
// the ones written down.

const MODERN = '2026-07-28';

/** A rule answering `method` (and tool `name`) with the given message templates. */
export const on = (method, reply, extra = {}) => ({ method, reply: [reply].flat(), ...extra });
/** A result message of the request being answered. */
export const result = (body) => `{"jsonrpc":"2.0","id":{{id}},"result":${body}}`;
/** A rule for one tool: tools/call of `name`, answered with `reply`. */
export const tool = (name, reply, extra = {}) => on('tools/call', reply, { name, ...extra });

/** The tools a scripted upstream lists: `names` with an open input schema. */
const toolList = (names) =>
  `{"tools":[${names.map((name) => `{"name":"${name}","inputSchema":{"type":"object"}}`).join(',')}]}`;

/**
 * A legacy (2025-11-25) upstream's handshake: server/discover is a method it does not know (-32601, as the SDK v1
 * answers it), then initialize, the lists and ping.
 */
export function legacyHandshake(tools) {
  return [
    on('server/discover', '{"jsonrpc":"2.0","id":{{id}},"error":{"code":-32601,"message":"Method not found"}}'),
    on(
      'initialize',
      result(
        '{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"prompts":{},"resources":{}},"serverInfo":{"name":"scripted-legacy","version":"1.0.0"}}',
      ),
    ),
    on('tools/list', result(toolList(tools))),
    on('prompts/list', result('{"prompts":[{"name":"greet","description":"A greeting"}]}')),
    on('resources/list', result('{"resources":[{"uri":"scripted://note","name":"note","mimeType":"text/plain"}]}')),
    on('resources/templates/list', result('{"resourceTemplates":[]}')),
    on('ping', result('{}')),
  ];
}

/**
 * A modern (2026-07-28 only) upstream: server/discover names 2026-07-28 alone, every answer has a resultType, and
 * initialize is refused as a modern-only server does.
 */
export function modernHandshake(tools) {
  const complete = (body) => result(`{"resultType":"complete",${body.slice(1)}`);
  // Lists are cacheable results in 2026-07-28: ttlMs and cacheScope are required.
  const list = (body) => complete(`{"ttlMs":0,"cacheScope":"private",${body.slice(1)}`);
  return [
    on(
      'server/discover',
      result(
        `{"resultType":"complete","ttlMs":0,"cacheScope":"private","supportedVersions":["${MODERN}"],"capabilities":{"tools":{},"prompts":{},"resources":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"scripted-modern","version":"1.0.0"}}}`,
      ),
    ),
    on(
      'initialize',
      `{"jsonrpc":"2.0","id":{{id}},"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["${MODERN}"]}}}`,
    ),
    on('tools/list', list(toolList(tools))),
    on('prompts/list', list('{"prompts":[]}')),
    on('resources/list', list('{"resources":[]}')),
    on('resources/templates/list', list('{"resourceTemplates":[]}')),
    on('ping', complete('{}')),
  ];
}

/** The opening of a 2025-11-25 client: initialize (id 1, answered), then notifications/initialized. */
export function legacyOpening(capabilities = '{}') {
  return [
    {
      send: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":${capabilities},"clientInfo":{"name":"differential","version":"1.0.0"}}}`,
    },
    { expect: { id: 1 } },
    { send: '{"jsonrpc":"2.0","method":"notifications/initialized"}' },
  ];
}

/** The per-request `_meta` envelope of a 2026-07-28 client (its fields as JSON text, for a template). */
export const envelope = (capabilities = '{}') =>
  `"io.modelcontextprotocol/protocolVersion":"${MODERN}","io.modelcontextprotocol/clientInfo":{"name":"differential","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":${capabilities}`;

/** The opening of a 2026-07-28 client: server/discover (id 1, answered). */
export function modernOpening(capabilities = '{}') {
  return [
    { send: `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{${envelope(capabilities)}}}}` },
    { expect: { id: 1 } },
  ];
}

/** A request step and the step that waits for its answer. */
export function ask(id, method, params = '{}') {
  return [
    { send: `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${params}}` },
    { expect: { id, method: { $exists: false } }, what: `the answer to ${method} (id ${id})` },
  ];
}
