import js from '@eslint/js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';
import boundaries from './eslint.boundaries.js';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/coverage/**',
      'data/**',
      '**/test-results/**',
      '**/playwright-report/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    files: ['shell/**/*.{ts,tsx}', 'remote-*/**/*.{ts,tsx}', 'shared-*/**/*.{ts,tsx}', 'examples/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    // antd reaches the apps only through shared-ui: one tree-shaken, themed copy for the whole page.
    files: [
      'shell/**/*.{ts,tsx}',
      'remote-*/**/*.{ts,tsx}',
      'shared-auth/**/*.{ts,tsx}',
      'shared-stepup/**/*.{ts,tsx}',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'antd',
              message: "Import antd components from 'shared-ui' (see README: Adding a UI component).",
            },
            { name: '@ant-design/icons', message: "Import icons from 'shared-ui'." },
          ],
          patterns: [{ group: ['antd/*', '@ant-design/icons/*'], message: "Import from 'shared-ui'." }],
        },
      ],
    },
  },
  {
    // The package picture of docs/architecture.md: no feature-to-feature imports inside a package, no remote imports
    // another remote, only the shell knows the remotes (at run time), server domain code never imports routes, and
    // a server folder imports only folders of lower layers (SERVER_LAYERS).
    files: ['**/*.{ts,tsx,js,mjs,cjs}'],
    plugins: { boundaries },
    rules: {
      'boundaries/imports': [
        'error',
        {
          allow: [
            {
              importer: 'shared-auth/src/contract/remotes.contract.test.ts',
              target: 'shell/src/config/pages.ts',
              why: 'the contract test checks the shell pages against the remote names',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node, ...globals.browser } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
