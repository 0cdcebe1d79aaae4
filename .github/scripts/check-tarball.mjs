#!/usr/bin/env node
// Checks what `npm publish` would ship, from `npm pack --dry-run --json` of the built package:
//   - only dist/…, package.json, README.md, LICENSE (and CHANGELOG.md, should npm ever include it);
//     package.json, README.md, LICENSE and every node and credential package.json names for n8n present;
//   - no test files (a test/, tests/, __tests__/ or __mocks__ folder, *.test.* or *.spec.*);
//   - no source map pointing at the build machine: a packed .map's "sources" and "sourceRoot" are
//     relative and do not hold the package's folder or the home folder, and no .js points at its map
//     by an absolute path.
// The publish workflow runs it after `npm test` (which builds dist/) and before `npm publish`.
//
// Usage: node .github/scripts/check-tarball.mjs [package folder, default: this repository]
// Exit 0 when the tarball passes, 1 with every problem listed when it does not.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..'));

const ALLOWED_TOP_LEVEL = new Set(['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md']);
const REQUIRED = ['package.json', 'README.md', 'LICENSE'];
const TEST_FILE = /(^|\/)(test|tests|__tests__|__mocks__)\/|\.(test|spec)\.[cm]?[jt]sx?(\.map)?$/;

/** A path written on the build machine: absolute (POSIX, Windows, file: URL) or naming its folders. */
function machinePath(path) {
	if (typeof path !== 'string') return false;
	if (/^(\/|\\|[A-Za-z]:[\\/]|file:)/.test(path)) return true;
	return [dir, homedir()].some((local) => local.length > 1 && path.includes(local));
}

const packed = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
const files = packed[0].files.map((file) => file.path);
const problems = [];

for (const file of files) {
	if (!ALLOWED_TOP_LEVEL.has(file) && !file.startsWith('dist/')) problems.push(`${file}: not dist/, package.json, README.md, LICENSE or CHANGELOG.md`);
	if (TEST_FILE.test(file)) problems.push(`${file}: a test file`);
}
for (const file of REQUIRED) if (!files.includes(file)) problems.push(`${file}: missing`);

const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
for (const entry of [...(manifest.n8n?.nodes ?? []), ...(manifest.n8n?.credentials ?? [])]) {
	if (!files.includes(entry)) problems.push(`${entry}: named in package.json's n8n section but not packed`);
}

let maps = 0;
for (const file of files.filter((path) => path.endsWith('.map'))) {
	maps += 1;
	let map;
	try {
		map = JSON.parse(readFileSync(join(dir, file), 'utf8'));
	} catch (error) {
		problems.push(`${file}: not a source map (${error instanceof Error ? error.message : String(error)})`);
		continue;
	}
	if (machinePath(map.sourceRoot)) problems.push(`${file}: sourceRoot ${JSON.stringify(map.sourceRoot)} is a path of the build machine`);
	for (const source of map.sources ?? []) {
		if (machinePath(source)) problems.push(`${file}: source ${JSON.stringify(source)} is a path of the build machine`);
	}
}
for (const file of files.filter((path) => /\.[cm]?js$/.test(path))) {
	const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(join(dir, file), 'utf8'))?.[1];
	if (url && machinePath(url)) problems.push(`${file}: sourceMappingURL ${url} is a path of the build machine`);
}

if (problems.length > 0) {
	process.stderr.write(`check-tarball: ${packed[0].filename} would ship what it must not:\n${problems.map((problem) => `  ${problem}`).join('\n')}\n`);
	process.exit(1);
}
process.stdout.write(`check-tarball: ${packed[0].filename}: ${files.length} files (${maps} source maps with relative sources), only dist/, package.json, README.md, LICENSE\n`);
