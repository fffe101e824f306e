import { closestKey, levenshtein } from '../../src/config/suggest.js';

test('levenshtein distance', () => {
  expect(levenshtein('comand', 'command')).toBe(1);
  expect(levenshtein('', 'abc')).toBe(3);
  expect(levenshtein('kitten', 'sitting')).toBe(3);
});

test('closestKey ignores case, "_" and "-", and gives up when nothing is close', () => {
  const keys = ['command', 'args', 'env', 'timeoutMs', 'mcpServers', 'servers'];
  expect(closestKey('comand', keys)).toBe('command');
  expect(closestKey('timeout_ms', keys)).toBe('timeoutMs');
  expect(closestKey('Timeout', keys)).toBe('timeoutMs');
  expect(closestKey('mcp_servers', keys)).toBe('mcpServers');
  expect(closestKey('xyz', keys)).toBeUndefined();
  expect(closestKey('environment', keys)).toBeUndefined();
});
