// ESLint: the recommended JavaScript and TypeScript rules (typescript-eslint), Prettier for layout
// (eslint-config-prettier turns off what would fight it), and lines capped at 120 characters.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'bench/peers/', 'test/conformance/node_modules/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // Strings, template literals and regular expressions are what they are; URLs are not split.
      'max-len': [
        'error',
        { code: 120, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // Pages, apps and extensions the browser tests serve to Chromium.
    files: [
      'test/fixtures/abp-app/**/*.js',
      'test/fixtures/abp-extension/**/*.js',
      'test/fixtures/abp-mini-app/**/*.js',
      'test/fixtures/apps-host/**/*.js',
    ],
    languageOptions: { globals: { ...globals.browser, chrome: 'readonly' } },
  },
  {
    // The artifact viewer: an MCP App that runs in a host's sandboxed iframe (bundled by viewer/build.mjs).
    files: ['viewer/src/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
