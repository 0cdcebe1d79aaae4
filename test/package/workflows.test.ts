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

test('the CI workflow runs every command .ci/run runs (its jobs in parallel), each set-up order included', () => {
	const ci = readFileSync(join(WORKFLOWS_DIR, 'ci.yml'), 'utf8');
	const local = readFileSync(join(WORKFLOWS_DIR, '..', '..', '.ci', 'run'), 'utf8');
	// The commands of .ci/run: its npm commands and the check of `npm run dev`, each at the start of a
	// line or of a step of a subshell (`(a && b) >log &`); not in comments or printed messages.
	const commandLines = local.split('\n').filter((line) => !/^\s*(#|echo |step )/.test(line));
	const commands = commandLines.flatMap((line) =>
		[...line.matchAll(/(?:^|\(|&&)\s*(npm (?:test|run [\w:]+(?: -- [^)>&]*)?)|bash \.ci\/check-dev\.sh)/g)].map((match) => match[1].trim()),
	);
	expect(commands).toEqual(expect.arrayContaining(['npm test', 'npm run test:e2e', 'npm run test:e2e:oldest', 'npm run test:e2e:queue']));
	expect(commands.find((command) => command.startsWith('npm run soak'))).toBeDefined();
	for (const command of new Set(commands)) expect({ command, inWorkflow: ci.includes(command) }).toEqual({ command, inWorkflow: true });
	// Both orders of the README's two set-up commands.
	expect(ci).toContain('bash .ci/check-dev.sh && npm test');
	expect(ci).toContain('npm test && bash .ci/check-dev.sh');
});
