/** The repository's GitHub Actions workflows pass actionlint, and the check can fail. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { WORKFLOWS_DIR, lintWorkflow, lintWorkflows } from './workflows';

test('the publish and CI workflows pass actionlint', async () => {
	expect(readdirSync(WORKFLOWS_DIR).sort()).toEqual(['ci.yml', 'publish.yml']);
	expect(await lintWorkflows()).toEqual([]);
});

test('publishing runs the tests first and publishes with npm provenance with id-token: write', () => {
	const publish = readFileSync(join(WORKFLOWS_DIR, 'publish.yml'), 'utf8');
	expect(publish).toMatch(/id-token: write/);
	expect(publish).toMatch(/npm publish --provenance/);
	expect(publish.indexOf('run: npm test')).toBeGreaterThan(-1);
	expect(publish.indexOf('run: npm test')).toBeLessThan(publish.indexOf('run: npm publish'));
});

test('a broken workflow (an undefined expression context, a job without steps) gets findings', async () => {
	const broken = ['on: push', 'jobs:', '  build:', '    runs-on: ubuntu-latest', '    steps:', '      - run: echo ${{ secret.NPM_TOKEN }}', '  empty:', '    runs-on: ubuntu-latest', ''].join('\n');
	const findings = await lintWorkflow(broken, 'broken.yml');
	expect(findings.map((finding) => finding.kind)).toEqual(expect.arrayContaining(['expression', 'syntax-check']));
});
