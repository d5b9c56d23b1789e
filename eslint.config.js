// Type-aware lint: an unawaited promise or an unhandled switch case is a bug here
// (an unawaited Discord reply is a timed-out interaction).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // bench/card-libraries.mjs measures packages that are not dependencies (installed for its run only): untyped.
  { ignores: ['node_modules/**', 'dist/**', 'coverage/**', 'bench/results/**', 'bench/card-libraries.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: ['*.js', 'src/*.mjs', 'src/cards/*.mjs', 'src/service/*.mjs', 'test/cards/*.mjs', 'deploy/*.mjs', 'bench/memory-probe.mjs'],
          // The plain worker entries and scripts above: ten files, past the default of eight.
          maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: 12,
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
);
