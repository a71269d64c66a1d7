// @ts-check
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'playground/var/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-empty': ['error', { allowEmptyCatch: false }],
      // `interface ErrorCodes extends CodesOf<typeof myErrors> {}` is how a registry's codes are
      // merged into the closed ErrorCode union (a type alias cannot be merged).
      '@typescript-eslint/no-empty-object-type': [
        'error',
        { allowInterfaces: 'with-single-extends' },
      ],
      // Another plugin's declarations (its API, config keys, events) reach every file of a
      // program that includes its module: a file imports the type it uses, never an empty
      // `import type {}` to pull them in (docs/writing-a-plugin.md, "Other plugins' APIs").
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ImportDeclaration[specifiers.length=0][importKind="type"]',
          message:
            "An empty `import type {}` imports nothing: import the type this file uses from the plugin's module.",
        },
      ],
    },
  },
  {
    // A promise nobody awaits or handles can reject with nobody listening, and an unhandled
    // rejection ends a Node process: on the request path that is one request taking the server
    // down. Every promise in the framework's own code is awaited, returned, or given a handler
    // (`void` does not count: it silences the rule, not the rejection). Needs type information,
    // so it runs on the framework's sources and the playground only.
    files: [
      'kernel/**/*.ts',
      'plugins/**/*.ts',
      'cli/**/*.ts',
      'playground/**/*.ts',
      'examples/**/*.ts',
    ],
    ignores: ['plugins/debug/toolbar/**'],
    languageOptions: { parserOptions: { projectService: true } },
    rules: {
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: false }],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
    },
  },
  {
    // An example is an app built on fw's public API only: Node's modules, its own files, and
    // `fw`, `fw/plugins/<name>`, `fw/testing`, `fw/cli`; never fw's sources by path, the
    // playground, or a library fw happens to install.
    files: ['examples/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!node:|\\.{1,2}/|fw$|fw/(plugins/[a-z-]+|testing|cli)$)',
              message:
                'An example imports only fw, fw/plugins/*, fw/testing, fw/cli, node: modules and its own files.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
)
