// Jest configuration lives here rather than in package.json: n8n's package lint rejects unknown
// placeholders such as <rootDir> in package.json.
module.exports = {
	rootDir: '..',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	// n8n user folders left by failed e2e scenarios hold installed packages (duplicate package names).
	modulePathIgnorePatterns: ['<rootDir>/test/output/'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/test/tsconfig.json' }],
	},
	testTimeout: 30000,
};
