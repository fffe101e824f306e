import { OLDEST_NODE, runtimeProblem } from '../../src/cli/runtime.js';

test('Node 22 and later, with JSON.rawJSON, run the proxy', () => {
  expect(OLDEST_NODE).toBe(22);
  expect(runtimeProblem('22.0.0', { rawJSON: () => undefined })).toBeUndefined();
  expect(runtimeProblem('24.11.1', { rawJSON: () => undefined })).toBeUndefined();
  // This test's own runtime (the suite runs on Node 22 or later).
  expect(runtimeProblem()).toBeUndefined();
});

test('an older Node is named in one line, with the version the proxy needs', () => {
  expect(runtimeProblem('20.20.2', { rawJSON: () => undefined })).toBe(
    'mcp-offload needs Node.js 22 or newer; this is Node.js 20.20.2',
  );
  expect(runtimeProblem('18.19.1', {})).toBe('mcp-offload needs Node.js 22 or newer; this is Node.js 18.19.1');
});

test('a Node 22 or later without JSON.rawJSON (a runtime built without it) is refused too, and says why', () => {
  expect(runtimeProblem('22.1.0', {})).toBe(
    'mcp-offload needs Node.js 22 or newer; this is Node.js 22.1.0, which lacks JSON.rawJSON',
  );
});
