// Lint configuration: typescript-eslint's recommended rules over every TypeScript file.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '.build/',
      '.tmp/',
      'node_modules/',
      'web/dist/',
      '.data/',
      'coverage/',
      'companion/ui/dist/',
      'companion/android/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // Browser code also runs on plain-HTTP pages (the server's LAN address), where browsers leave
    // out crypto.randomUUID: ids come from contracts/random-id.ts instead.
    files: ['web/src/**/*.{ts,tsx}', 'companion/core/**/*.ts', 'companion/ui/src/**/*.{ts,tsx}', 'contracts/**/*.ts'],
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[property.name='randomUUID']",
          message: 'Plain-HTTP pages have no crypto.randomUUID: use randomUuid() from #contracts/random-id.ts.',
        },
      ],
    },
  },
);
