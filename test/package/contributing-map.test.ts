/**
 * The map of the code in .github/CONTRIBUTING.md ("Architecture") stays true: it names every source
 * file of nodes/ and credentials/, names no file that is not there, and every file is in one room of
 * the import plan that `npm run lint:imports` checks (.dependency-cruiser.cjs).
 *
 * A row of the map is `| \`<folder>/\` | … |` or `| \`<file>\` | … |`; each `name.ts` in backticks in
 * its description is a file of that folder (a path like `webhook/receive.ts` is relative to it).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, posix } from 'node:path';

const ROOT = join(__dirname, '..', '..');

function sourceFiles(): string[] {
	return ['nodes', 'credentials']
		.flatMap((top) => readdirSync(join(ROOT, top), { recursive: true, encoding: 'utf8' }).map((path) => posix.join(top, path.split('\\').join('/'))))
		.filter((path) => path.endsWith('.ts'))
		.sort();
}

/** The rows of the Architecture table for nodes/ and credentials/: the row's path, and the files it names. */
function mapRows(): Array<{ path: string; names: string[] }> {
	const contributing = readFileSync(join(ROOT, '.github', 'CONTRIBUTING.md'), 'utf8');
	const start = contributing.indexOf('\n## Architecture\n');
	expect(start).toBeGreaterThan(-1);
	const end = contributing.slice(start + 1).search(/\n#{2,3} /);
	const section = contributing.slice(start, end === -1 ? undefined : start + 1 + end);
	const rows = [];
	for (const line of section.split('\n')) {
		const row = /^\|\s*`([^`]+)`\s*\|(.*)\|\s*$/.exec(line);
		if (!row || !/^(nodes|credentials)\//.test(row[1])) continue;
		const path = row[1];
		const folder = path.endsWith('/') ? path.slice(0, -1) : dirname(path);
		const names = [...row[2].matchAll(/`([^`\s]+\.ts)`/g)].map((match) => posix.join(folder, match[1]));
		rows.push({ path, names: path.endsWith('/') ? names : [path, ...names] });
	}
	return rows;
}

test('the map names every .ts file of nodes/ and credentials/', () => {
	const named = new Set(mapRows().flatMap((row) => row.names));
	const files = sourceFiles();
	expect(files.length).toBeGreaterThan(50);
	expect(files.filter((file) => !named.has(file))).toEqual([]);
});

test('every file and folder the map names exists', () => {
	const rows = mapRows();
	expect(rows.filter((row) => !existsSync(join(ROOT, row.path))).map((row) => row.path)).toEqual([]);
	const missing = rows.flatMap((row) => row.names.filter((name) => !existsSync(join(ROOT, name))).map((name) => `${row.path}: ${name}`));
	expect(missing).toEqual([]);
});

test('every file is in exactly one room of the import plan (.dependency-cruiser.cjs)', () => {
	const plan = createRequire(__filename)(join(ROOT, '.dependency-cruiser.cjs')) as { forbidden: Array<{ name: string; from: { path: string } }> };
	const rooms = plan.forbidden.filter((rule) => rule.name.startsWith('upward-import: ')).map((rule) => ({ name: rule.name, path: new RegExp(rule.from.path) }));
	expect(rooms.length).toBeGreaterThan(5);
	const misplaced = sourceFiles()
		.map((file) => ({ file, in: rooms.filter((room) => room.path.test(file)).map((room) => room.name) }))
		.filter((file) => file.in.length !== 1);
	expect(misplaced).toEqual([]);
});
