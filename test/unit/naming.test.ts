import { exposedName, fitLength, isValidName, NameAllocator, sanitize } from '../../src/relay/naming.js';

test('valid names stay as they are', () => {
  expect(sanitize('get-tiny_image2')).toBe('get-tiny_image2');
  expect(exposedName(null, '__', 'echo')).toBe('echo');
  expect(exposedName('github', '__', 'create_issue')).toBe('github__create_issue');
});

test('characters clients reject are replaced', () => {
  expect(exposedName(null, '__', 'files.read/all')).toBe('files_read_all');
  expect(exposedName('my server', '__', 'tool')).toBe('my_server__tool');
  expect(sanitize('')).toBe('_');
});

test('long names are cut to 64 characters with a hash that keeps them apart', () => {
  const a = exposedName('server', '__', `${'a'.repeat(70)}one`);
  const b = exposedName('server', '__', `${'a'.repeat(70)}two`);
  expect(a).toHaveLength(64);
  expect(b).toHaveLength(64);
  expect(a).not.toBe(b);
  expect(isValidName(a) && isValidName(b)).toBe(true);
  expect(fitLength('short')).toBe('short');
});

test('collisions get numbered suffixes in the order offered', () => {
  const names = new NameAllocator();
  expect(names.allocate('x__echo')).toEqual({ name: 'x__echo', collided: false });
  expect(names.allocate('x__echo')).toEqual({ name: 'x__echo_2', collided: true });
  expect(names.allocate('x__echo')).toEqual({ name: 'x__echo_3', collided: true });
  const long = 'l'.repeat(64);
  names.allocate(long);
  const second = names.allocate(long);
  expect(second.name).toHaveLength(64);
  expect(second.name.endsWith('_2')).toBe(true);
});
