/** @type {import('jest').Config} */
export default {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.tsx?$': ['ts-jest', { useESM: true }] },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 30000,
  // Integration tests spawn real servers; two workers fit the 2-core machines.
  maxWorkers: 2,
  // Every test file's ES module graph stays in its worker (jest's vm modules), so a worker that ran half the
  // suite ends at 700 MB to 1 GB RSS, and the kernel takes longer to free that than the 500 ms jest-worker
  // allows before it force-exits a worker and prints "A worker process has failed to exit gracefully". A
  // worker whose heap passed 100 MB after a file (nearly every file) is replaced by a fresh one, so the last
  // ones are small and end at once; the suite takes no longer (339 s against 347 s).
  workerIdleMemoryLimit: '100MB',
};
