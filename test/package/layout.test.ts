/**
 * The layout of test/ that test/README.md describes, kept true: a test file of test/nodes/ or
 * test/credentials/ names the file of nodes/ or credentials/ whose code it checks (`<file>.test.ts` or
 * `<file>.<topic>.test.ts`, in the same folder; `<folder>.test.ts` for a folder's code as a whole), and the examples of `npm run dev` (test/dev/) stand
 * below the e2e tests that run them: neither they nor real-n8n/, which both use, import from test/e2e/.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** The files under a folder of the repository, as repository paths. */
function filesUnder(folder: string): string[] {
	return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
		.filter((entry) => entry.isFile())
		.map((entry) => posix.join(relative(ROOT, entry.parentPath).split('\\').join('/'), entry.name));
}

/**
 * The code a test file names: its folder under test/, and the longest name before `.test.ts` that is a
 * file there (`<name>.ts`) or a folder whose code it checks as a whole (`<name>/`).
 */
function codeOf(testFile: string): string | undefined {
	const match = /^test\/(.+)\/([^/]+)\.test\.ts$/.exec(testFile);
	if (!match) return undefined;
	const [, folder, name] = match;
	const parts = name.split('.');
	for (let count = parts.length; count > 0; count--) {
		const candidate = `${folder}/${parts.slice(0, count).join('.')}`;
		if (existsSync(join(ROOT, `${candidate}.ts`))) return `${candidate}.ts`;
		if (existsSync(join(ROOT, candidate)) && statSync(join(ROOT, candidate)).isDirectory()) return `${candidate}/`;
	}
	return undefined;
}

/** The repository paths a file imports by a relative path (import … from, import '…', import(), require()). */
function relativeImportsOf(file: string): string[] {
	const text = readFileSync(join(ROOT, file), 'utf8');
	const specifiers = [...text.matchAll(/(?:from\s+|import\s+|import\(\s*|require\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)].map((match) => match[1]);
	return specifiers.map((specifier) => relative(ROOT, resolve(ROOT, dirname(file), specifier)).split('\\').join('/'));
}

test('every file of test/nodes/ and test/credentials/ is a test named after the code file (or folder) it checks', () => {
	const files = [...filesUnder('test/nodes'), ...filesUnder('test/credentials')];
	expect(files.length).toBeGreaterThan(30);
	expect(files.filter((file) => codeOf(file) === undefined)).toEqual([]);
});

test('test/dev/ (the examples) and test/real-n8n/ import nothing from test/e2e/, and real-n8n/ nothing from test/dev/', () => {
	const dev = filesUnder('test/dev').filter((file) => file.endsWith('.ts'));
	const realN8n = filesUnder('test/real-n8n').filter((file) => file.endsWith('.ts'));
	expect(dev.length).toBeGreaterThan(1);
	expect(realN8n.length).toBeGreaterThan(3);
	const upward = [...dev, ...realN8n].flatMap((file) =>
		relativeImportsOf(file)
			.filter((target) => target.startsWith('test/e2e/') || (file.startsWith('test/real-n8n/') && target.startsWith('test/dev/')))
			.map((target) => `${file} → ${target}`),
	);
	expect(upward).toEqual([]);
	// The check reads imports: e2e's own import of the examples is one it sees.
	expect(relativeImportsOf('test/e2e/lib/context.ts')).toContain('test/dev/demo');
});
