/**
 * `npm run test:e2e`: packs the built package, installs it into real n8n 2.41.1 the way n8n installs
 * community packages, and runs the scenarios of ./scenarios.ts one after another, each in fresh n8n
 * user folders. Output: test/output/e2e/<scenario>/ (logs, user folders of failed scenarios) and
 * test/output/screenshots/*.png.
 *
 * Usage: ts-node test/e2e/run.ts [numbers or words to select scenarios…] [--keep]
 *   --keep  keep the n8n user folders of passed scenarios too
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { ScenarioContext } from './lib/context';
import { ROOT, pack, provision } from './lib/install';
import { stopAll, stopAllOnExit } from './lib/processes';
import { SCENARIOS } from './scenarios';

const OUTPUT = join(ROOT, 'test', 'output');

function seconds(ms: number): string {
	return `${(ms / 1000).toFixed(1)} s`;
}

function selected(args: string[]): Array<{ index: number; scenario: (typeof SCENARIOS)[number] }> {
	const filters = args.filter((arg) => !arg.startsWith('--'));
	return SCENARIOS.map((scenario, index) => ({ index: index + 1, scenario })).filter(
		({ index, scenario }) =>
			filters.length === 0 || filters.some((filter) => filter === String(index) || scenario.name.toLowerCase().includes(filter.toLowerCase())),
	);
}

async function main(): Promise<number> {
	const args = process.argv.slice(2);
	const keep = args.includes('--keep');
	const chosen = selected(args);
	if (chosen.length === 0) throw new Error(`no scenario matches ${args.join(' ')}`);
	const started = Date.now();
	stopAllOnExit((signal) => process.stdout.write(`\ne2e: ${signal}, stopping everything started\n`));

	const install = await provision();
	const e2eDir = join(OUTPUT, 'e2e');
	const screenshotDir = join(OUTPUT, 'screenshots');
	rmSync(e2eDir, { recursive: true, force: true });
	mkdirSync(screenshotDir, { recursive: true });
	for (const file of readdirSync(screenshotDir)) if (file.endsWith('.png')) rmSync(join(screenshotDir, file));
	const tarball = await pack(join(e2eDir, 'pack'));
	process.stdout.write(`e2e: n8n 2.41.1 from ${install.cache}; package ${tarball}\n`);

	const results: Array<{ index: number; name: string; ok: boolean; ms: number }> = [];
	for (const { index, scenario } of chosen) {
		const dir = join(e2eDir, `${index}`);
		process.stdout.write(`\n[${index}] ${scenario.name}\n`);
		const ctx = new ScenarioContext(install, tarball, dir, screenshotDir);
		const t0 = Date.now();
		let ok = false;
		try {
			await scenario.run(ctx);
			ok = true;
		} catch (error) {
			process.stdout.write(`    FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
			process.stdout.write(`    logs: ${dir}\n`);
		} finally {
			await ctx.cleanUp();
			await stopAll();
		}
		const ms = Date.now() - t0;
		results.push({ index, name: scenario.name, ok, ms });
		process.stdout.write(`[${index}] ${ok ? 'passed' : 'FAILED'} in ${seconds(ms)}\n`);
		// The user folders (n8n's database) of passed scenarios are of no further use; logs stay.
		if (ok && !keep) {
			for (const entry of readdirSync(dir, { withFileTypes: true })) {
				if (entry.isDirectory() && entry.name.startsWith('n8n-')) rmSync(join(dir, entry.name, 'user'), { recursive: true, force: true });
			}
		}
	}

	const passed = results.filter((result) => result.ok).length;
	const failed = results.length - passed;
	process.stdout.write('\ne2e timings:\n');
	for (const result of results) {
		process.stdout.write(`  ${result.ok ? 'ok  ' : 'FAIL'} [${result.index}] ${seconds(result.ms).padStart(8)}  ${result.name}\n`);
	}
	process.stdout.write(`  total ${seconds(Date.now() - started)} (with provisioning check and packing)\n`);
	process.stdout.write(`e2e: ${passed} passed, ${failed} failed\n`);
	return failed === 0 ? 0 : 1;
}

main().then(
	(code) => process.exit(code),
	async (error: unknown) => {
		process.stdout.write(`e2e: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
		await stopAll();
		process.exit(1);
	},
);
