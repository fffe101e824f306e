import { expandEnv } from '../../src/config/env.js';

const env = { HOME: '/home/me', EMPTY: '', TOKEN: 's3cret' };

describe('expandEnv', () => {
  test('replaces ${VAR} anywhere in the string', () => {
    expect(expandEnv('Bearer ${TOKEN}', env)).toEqual({ value: 'Bearer s3cret', problems: [] });
    expect(expandEnv('${HOME}/x:${TOKEN}', env).value).toBe('/home/me/x:s3cret');
  });

  test('${VAR:-default} uses the default when VAR is unset or empty', () => {
    expect(expandEnv('${NOPE:-fallback}', env).value).toBe('fallback');
    expect(expandEnv('${EMPTY:-fallback}', env).value).toBe('fallback');
    expect(expandEnv('${TOKEN:-fallback}', env).value).toBe('s3cret');
    expect(expandEnv('${NOPE:-}', env)).toEqual({ value: '', problems: [] });
    expect(expandEnv('${NOPE:-a:b-c}', env).value).toBe('a:b-c');
  });

  test('a set but empty variable without default is empty, not missing', () => {
    expect(expandEnv('x${EMPTY}y', env)).toEqual({ value: 'xy', problems: [] });
  });

  test('$$ is a literal $, and a lone $ is kept', () => {
    expect(expandEnv('$${TOKEN}', env).value).toBe('${TOKEN}');
    expect(expandEnv('price: 5$$', env).value).toBe('price: 5$');
    expect(expandEnv('$HOME and $', env).value).toBe('$HOME and $');
  });

  test('a missing variable is a problem naming it', () => {
    expect(expandEnv('${GITHUB_TOKEN}', env).problems).toEqual([
      'missing environment variable GITHUB_TOKEN (use ${GITHUB_TOKEN:-default} to give a default)',
    ]);
  });

  test('every malformed reference is reported', () => {
    expect(expandEnv('${1A} ${A B} ${A-x} ${NOPE} ${UNCLOSED', env).problems).toEqual([
      'cannot substitute "${1A}": write ${NAME} or ${NAME:-default}, or "$$" for a literal "$"',
      'cannot substitute "${A B}": write ${NAME} or ${NAME:-default}, or "$$" for a literal "$"',
      'cannot substitute "${A-x}": write ${NAME} or ${NAME:-default}, or "$$" for a literal "$"',
      'missing environment variable NOPE (use ${NOPE:-default} to give a default)',
      'unclosed "${" in "${1A} ${A B} ${A-x} ${NOPE} ${UNCLOSED" (write "$$" for a literal "$")',
    ]);
    expect(expandEnv('${A:-${B}}', env).problems).toEqual([
      'a default cannot contain another substitution: "${A:-${B}"',
    ]);
  });
});
