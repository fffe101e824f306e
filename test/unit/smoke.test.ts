import { VERSION } from '../../src/version.js';
test('version', () => { expect(VERSION).toMatch(/^\d+\.\d+\.\d+/); });
