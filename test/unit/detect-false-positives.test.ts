/**
 * Strings that must never be called binary. Most pass the cheap alphabet check (hex, UUIDs, `aaaa`); what
 * rejects them is the absence of a magic signature in the decoded bytes.
 */
import { createHash } from 'node:crypto';
import { detectBase64Binary } from '../../src/pipeline/detect/base64.js';
import { noise } from './detect-fixtures.js';

const base64url = (s: string): string => Buffer.from(s).toString('base64url');
const sha = (algorithm: string, input: string): string => createHash(algorithm).update(input).digest('hex');

function jwt(claims: Record<string, unknown>): string {
  const header = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = base64url(JSON.stringify(claims));
  const signature = createHash('sha256').update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${signature}`;
}

function uuid(i: number): string {
  const hex = sha('sha1', String(i));
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const LOREM =
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore ' +
  'magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo ' +
  'consequat. Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu fugiat nulla pariatur. ';

const PROSE =
  'It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of foolishness, ' +
  'it was the epoch of belief, it was the epoch of incredulity, it was the season of Light, it was the season of ' +
  'Darkness, it was the spring of hope, it was the winter of despair. ';

const MINIFIED_JS =
  '!function(e,t){"object"==typeof exports&&"undefined"!=typeof module?module.exports=t():"function"==typeof define' +
  '&&define.amd?define(t):(e=e||self).Thing=t()}(this,function(){"use strict";var e=function(e,t){return e+t};' +
  'return{add:e,version:"1.0.0"}});';

const csv = [
  'id,name,email,amount',
  ...Array.from({ length: 200 }, (_, i) => `${i},user${i},user${i}@example.com,${i * 3.5}`),
].join('\n');

const cases: Array<[string, string]> = [
  ['a short token', 'ghp_16C7e42F292c6912E7710c838347Ae178B4a'],
  [
    'a short base64 PNG header (below the minimum)',
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  ],
  ['a SHA-256 hex digest', sha('sha256', 'x')],
  ['a SHA-512 hex digest', sha('sha512', 'x')],
  [
    'a 2000-character hex string',
    Array.from({ length: 16 }, (_, i) => sha('sha512', String(i)))
      .join('')
      .slice(0, 2000),
  ],
  ['a JWT', jwt({ sub: '1234567890', name: 'John Doe', iat: 1516239022 })],
  ['a 3000-character JWT', jwt({ sub: 'x', roles: Array.from({ length: 300 }, (_, i) => `role-${i}`) })],
  ['a UUID', uuid(1)],
  ['100 UUIDs, one per line', Array.from({ length: 100 }, (_, i) => uuid(i)).join('\n')],
  ['long English prose', PROSE.repeat(30)],
  ['a 5000-character word', 'a'.repeat(5000)],
  ["'A' × 4000 (decodes to zeros)", 'A'.repeat(4000)],
  ['a URL with a query string', `https://example.com/search?q=${'term'.repeat(300)}&page=2&sort=desc`],
  ['minified JavaScript', MINIFIED_JS.repeat(10)],
  ['a CSV', csv],
  ['base64 of UTF-8 text', Buffer.from(PROSE.repeat(20)).toString('base64')],
  [
    'base64 of UTF-8 text, url-safe',
    Buffer.from(`{"items":[${'"héllo wörld",'.repeat(200)}"x"]}`).toString('base64url'),
  ],
  ['base64 of random bytes with no signature', noise(6000, 12345).toString('base64')],
  ['a long line of =', '='.repeat(3000)],
  ['lorem ipsum', LOREM.repeat(20)],
  ['lorem ipsum without spaces', LOREM.replace(/[^A-Za-z]/g, '').repeat(20)],
  ['an empty string', ''],
];

describe('detectBase64Binary never calls these binary', () => {
  test.each(cases)('%s', async (_, s) => {
    expect(await detectBase64Binary(s)).toBeUndefined();
  });

  test('the 3000-character JWT really is that long', () => {
    expect(cases.find(([name]) => name === 'a 3000-character JWT')![1].length).toBeGreaterThanOrEqual(3000);
  });

  // Without the length floor only the signature check stands between these and a false positive.
  const shortPng = 'a short base64 PNG header (below the minimum)';
  test.each(cases.filter(([name]) => name !== shortPng))('%s, with a minimum length of 1', async (_, s) => {
    expect(await detectBase64Binary(s, 1)).toBeUndefined();
  });
});
