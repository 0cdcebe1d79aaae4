/** .github/scripts/check-release-tag.mjs: the publish workflow's first check, the tag against package.json's version. */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { ROOT, plantPackage, runScript } from './scripts';

let planted: string;
let manifest: string;

beforeAll(() => {
	planted = plantPackage({ 'package.json': { name: 'n8n-nodes-service-bot', version: '0.2.0' } });
	manifest = join(planted, 'package.json');
});

afterAll(() => {
	rmSync(planted, { recursive: true, force: true });
});

test('the tag v0.2.1 is refused for version 0.2.0, naming both', () => {
	const run = runScript('check-release-tag.mjs', ['v0.2.1', manifest]);
	expect(run.status).toBe(1);
	expect(run.stderr).toContain('v0.2.1');
	expect(run.stderr).toContain('0.2.0');
	expect(run.stderr).toContain('expected the tag v0.2.0');
});

test('the tag 0.2.0 (without the v) is refused for version 0.2.0', () => {
	const run = runScript('check-release-tag.mjs', ['0.2.0', manifest]);
	expect(run.status).toBe(1);
	expect(run.stderr).toContain('expected the tag v0.2.0');
});

test('the tag v0.2.0 is accepted for version 0.2.0', () => {
	const run = runScript('check-release-tag.mjs', ['v0.2.0', manifest]);
	expect(run.status).toBe(0);
	expect(run.stdout).toContain('v0.2.0 is n8n-nodes-service-bot 0.2.0');
});

test("without a package.json argument the repository's own version decides: v<version> accepted, <version> refused", () => {
	const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
	expect(runScript('check-release-tag.mjs', [`v${version}`]).status).toBe(0);
	expect(runScript('check-release-tag.mjs', [version]).status).toBe(1);
});

test('no tag at all is a usage error, not a pass', () => {
	expect(runScript('check-release-tag.mjs', []).status).toBe(2);
});
