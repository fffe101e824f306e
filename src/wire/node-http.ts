import type * as Http from 'node:http';
import type * as Https from 'node:https';
import { createRequire } from 'node:module';

// Required, not imported: an ESM import of node:http builds its facade by reading every export, `WebSocket` too,
// whose getter loads undici (fetch) and with it http2, some 10 MiB a proxy never uses; CommonJS reads only what is
// used. test/unit/structure.test.ts keeps every other module from importing node:http or node:https as ESM.
const require = createRequire(import.meta.url);

/** node:http, as CommonJS. */
export const http = require('node:http') as typeof Http;

/** node:https, loaded on its first use: it loads tls, which a proxy without an https peer never needs. */
export const https = (): typeof Https => require('node:https') as typeof Https;
