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
	// The suite mostly waits on timers, the emulator and n8n-core's engine, not on the CPU: on a
	// 2-core machine one worker took 278 s, three 165–168 s, five 132 s (a CPU count's default gives one).
	maxWorkers: Math.max(5, require('os').cpus().length),
	// The triggers' background waits, shortened for every test file (harness/timings.ts says why).
	setupFiles: ['<rootDir>/test/harness/timings.ts'],
};
