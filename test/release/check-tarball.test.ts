/**
 * .github/scripts/check-tarball.mjs: the publish workflow's check of `npm pack --dry-run` before
 * `npm publish`. It passes on this package as built (`npm test` builds before jest) and fails on
 * planted packages that would ship a test file, a file outside dist/, a source map with the build
 * machine's paths, or no LICENSE.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { ROOT, plantPackage, runScript } from './scripts';

const planted: string[] = [];

/** A package that passes: dist/ with a node, its map (relative sources), README.md, LICENSE; `change` plants a fault. */
function plant(change: Record<string, string | object | undefined> = {}): string {
	const files: Record<string, string | object | undefined> = {
		'package.json': { name: 'planted-package', version: '1.0.0', files: ['dist'], n8n: { nodes: ['dist/nodes/A.node.js'] } },
		'README.md': '# planted\n',
		LICENSE: 'MIT\n',
		'dist/nodes/A.node.js': 'exports.A = 1;\n//# sourceMappingURL=A.node.js.map\n',
		'dist/nodes/A.node.js.map': { version: 3, file: 'A.node.js', sourceRoot: '', sources: ['../../nodes/A.node.ts'], names: [], mappings: '' },
		...change,
	};
	const dir = plantPackage(Object.fromEntries(Object.entries(files).filter((entry): entry is [string, string | object] => entry[1] !== undefined)));
	planted.push(dir);
	return dir;
}

afterAll(() => {
	for (const dir of planted) rmSync(dir, { recursive: true, force: true });
});

test('the real npm pack --dry-run of the built package passes', () => {
	expect(existsSync(join(ROOT, 'dist', 'nodes', 'ServiceBot', 'ServiceBot.node.js'))).toBe(true);
	const run = runScript('check-tarball.mjs', []);
	expect(run.stderr).toBe('');
	expect(run.status).toBe(0);
	expect(run.stdout).toMatch(/^check-tarball: n8n-nodes-service-bot-[\d.]+\.tgz: \d+ files \(\d+ source maps with relative sources\)/);
});

test('a planted package with dist/, package.json, README.md and LICENSE only passes (the check refuses faults, not everything)', () => {
	const run = runScript('check-tarball.mjs', [plant()]);
	expect(run.stderr).toBe('');
	expect(run.status).toBe(0);
});

test('a test file in dist/ fails, named', () => {
	const run = runScript('check-tarball.mjs', [plant({ 'dist/nodes/A.node.test.js': 'test("x", () => {});\n' })]);
	expect(run.status).toBe(1);
	expect(run.stderr).toContain('dist/nodes/A.node.test.js: a test file');
});

test('a test folder shipped beside dist/ fails as a test file outside dist/', () => {
	const dir = plant({
		'package.json': { name: 'planted-package', version: '1.0.0', files: ['dist', 'test'] },
		'test/a.ts': 'export {};\n',
	});
	const run = runScript('check-tarball.mjs', [dir]);
	expect(run.status).toBe(1);
	expect(run.stderr).toContain('test/a.ts: not dist/, package.json, README.md, LICENSE or CHANGELOG.md');
	expect(run.stderr).toContain('test/a.ts: a test file');
});

test('a source map whose sources are absolute paths of the build machine fails, named', () => {
	const absolute = '/home/runner/work/n8n-nodes-service-bot/nodes/A.node.ts';
	const run = runScript('check-tarball.mjs', [
		plant({ 'dist/nodes/A.node.js.map': { version: 3, file: 'A.node.js', sources: [absolute], names: [], mappings: '' } }),
	]);
	expect(run.status).toBe(1);
	expect(run.stderr).toContain(`dist/nodes/A.node.js.map: source ${JSON.stringify(absolute)} is a path of the build machine`);
});

test('a source map whose sourceRoot is a file: URL fails, named', () => {
	const run = runScript('check-tarball.mjs', [
		plant({ 'dist/nodes/A.node.js.map': { version: 3, file: 'A.node.js', sourceRoot: 'file:///build/', sources: ['nodes/A.node.ts'], names: [], mappings: '' } }),
	]);
	expect(run.status).toBe(1);
	expect(run.stderr).toContain('dist/nodes/A.node.js.map: sourceRoot "file:///build/" is a path of the build machine');
});

test('a package without LICENSE fails, and so does one missing a node its n8n section names', () => {
	const run = runScript('check-tarball.mjs', [plant({ LICENSE: undefined, 'dist/nodes/A.node.js': undefined, 'dist/nodes/A.node.js.map': undefined, 'dist/other.js': '' })]);
	expect(run.status).toBe(1);
	expect(run.stderr).toContain('LICENSE: missing');
	expect(run.stderr).toContain("dist/nodes/A.node.js: named in package.json's n8n section but not packed");
});
