// Jest configuration lives here rather than in package.json: n8n's package lint rejects unknown
// placeholders such as <rootDir> in package.json.
module.exports = {
	rootDir: '..',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	// n8n user folders left by failed e2e scenarios hold installed packages (duplicate package names).
	// The manifests of other n8n versions for the e2e tests carry the same package name as the pinned one.
	modulePathIgnorePatterns: ['<rootDir>/test/output/', '<rootDir>/test/real-n8n/n8n/'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/test/tsconfig.json' }],
	},
	testTimeout: 30000,
	// The suite mostly waits on timers, the emulator and n8n-core's engine, not on the CPU: three
	// workers on a 2-core machine took 168 s where one took 278 s (a CPU count's default gives one).
	maxWorkers: Math.max(3, require('os').cpus().length),
	// The triggers' background waits, shortened for every test file (harness/timings.ts says why).
	setupFiles: ['<rootDir>/test/harness/timings.ts'],
};
