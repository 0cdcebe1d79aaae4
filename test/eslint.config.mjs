// Ordinary TypeScript lint for the test code (emulator, harness, tests, e2e, benchmarks). The
// community-node rules apply to package.json, nodes/ and credentials/ only (see ../.eslint.config.mjs).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
	{ ignores: ['**/output/**', '**/real-n8n/n8n/**'] },
	{
		files: ['**/*.ts'],
		extends: [js.configs.recommended, tseslint.configs.recommended],
		rules: {
			'@typescript-eslint/no-explicit-any': 'error',
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
		},
	},
);
