/**
 * The import plan check (`npm run lint:imports`, dependency-cruiser with .dependency-cruiser.cjs) is
 * seen refusing what it exists to refuse: a copy of nodes/ and credentials/ with an import circle and
 * an upward import planted fails with exactly those two, by rule.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

let copy: string;

beforeAll(() => {
	copy = mkdtempSync(join(tmpdir(), 'service-bot-imports-'));
	for (const entry of ['nodes', 'credentials', 'tsconfig.json', '.dependency-cruiser.cjs']) cpSync(join(ROOT, entry), join(copy, entry), { recursive: true });
	symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
});

afterAll(() => {
	rmSync(copy, { recursive: true, force: true });
});

test('a planted import circle and a planted upward import each fail the check (its exit status, as npm test sees it), and nothing else does', () => {
	// upload.ts ← client.ts already; this closes the circle.
	appendFileSync(join(copy, 'nodes', 'shared', 'transport', 'upload.ts'), "import './client';\n");
	// parameters stand below resources (resources/method.ts imports parameters/param.ts).
	appendFileSync(join(copy, 'nodes', 'ServiceBot', 'parameters', 'text.ts'), "import '../resources/method';\n");
	const run = spawnSync(join(ROOT, 'node_modules', '.bin', 'depcruise'), ['--config', '.dependency-cruiser.cjs', '--output-type', 'err', 'nodes', 'credentials'], {
		cwd: copy,
		encoding: 'utf8',
	});
	expect(run.stdout).toContain('error no-circular: nodes/shared/transport/client.ts → \n      nodes/shared/transport/upload.ts →\n      nodes/shared/transport/client.ts');
	expect(run.stdout).toContain('error upward-import: parameters: nodes/ServiceBot/parameters/text.ts → nodes/ServiceBot/resources/method.ts');
	expect(run.stdout).toContain('x 2 dependency violations (2 errors, 0 warnings)');
	expect(run.status).toBe(2);
}, 60_000);
