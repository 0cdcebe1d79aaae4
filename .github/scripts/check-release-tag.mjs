#!/usr/bin/env node
// Refuses a release tag that does not name package.json's version: `v0.2.0` for version 0.2.0, nothing
// else (not `0.2.0`, not `v0.2.1`). The publish workflow runs it first, with the pushed tag's name.
//
// Usage: node .github/scripts/check-release-tag.mjs <tag> [path/to/package.json]
// Exit 0 when the tag matches, 1 when it does not, 2 on a usage error.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [tag, manifestPath = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'package.json')] = process.argv.slice(2);
if (!tag) {
	process.stderr.write('usage: check-release-tag.mjs <tag> [package.json]\n');
	process.exit(2);
}
const { name, version } = JSON.parse(readFileSync(manifestPath, 'utf8'));
if (typeof version !== 'string' || version === '') {
	process.stderr.write(`check-release-tag: ${manifestPath} has no version\n`);
	process.exit(2);
}
const expected = `v${version}`;
if (tag !== expected) {
	process.stderr.write(`check-release-tag: the tag ${tag} does not match ${name}'s version ${version} in package.json (expected the tag ${expected}); nothing is published\n`);
	process.exit(1);
}
process.stdout.write(`check-release-tag: ${tag} is ${name} ${version}\n`);
