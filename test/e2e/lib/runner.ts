/**
 * Runs scenarios one after another, each with a fresh ScenarioContext in `<outputDir>/<number>/`,
 * and prints a summary. Shared by `npm run test:e2e` (../run.ts) and `npm run test:e2e:queue`
 * (../queue/run.ts).
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { ScenarioContext } from './context';
import type { N8nInstall } from '../../real-n8n/install';
import { stopAll } from '../../real-n8n/processes';

export interface Scenario {
	name: string;
	run(ctx: ScenarioContext): Promise<void>;
}

function seconds(ms: number): string {
	return `${(ms / 1000).toFixed(1)} s`;
}

/** The scenarios whose number is, or whose name contains, one of the non-option arguments (all when there are none). */
export function selectScenarios(scenarios: Scenario[], args: string[]): Array<{ index: number; scenario: Scenario }> {
	const filters = args.filter((arg) => !arg.startsWith('--'));
	const chosen = scenarios
		.map((scenario, index) => ({ index: index + 1, scenario }))
		.filter(
			({ index, scenario }) =>
				filters.length === 0 ||
				filters.some((filter) => (/^\d+$/.test(filter) ? filter === String(index) : scenario.name.toLowerCase().includes(filter.toLowerCase()))),
		);
	if (chosen.length === 0) throw new Error(`no scenario matches ${args.join(' ')}`);
	return chosen;
}

/**
 * Runs the chosen scenarios; returns the number that failed. Clean-up (ctx.defer, then every
 * process still running) happens after each scenario, passed or failed. The n8n user folders of
 * passed scenarios are deleted unless `keep`; logs stay.
 */
export async function runScenarios(options: {
	label: string;
	chosen: Array<{ index: number; scenario: Scenario }>;
	install: N8nInstall;
	tarball: string;
	outputDir: string;
	screenshotDir: string;
	keep: boolean;
	started: number;
}): Promise<number> {
	const { label, chosen, install, tarball, outputDir, screenshotDir, keep, started } = options;
	const results: Array<{ index: number; name: string; ok: boolean; ms: number }> = [];
	for (const { index, scenario } of chosen) {
		const dir = join(outputDir, `${index}`);
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
	process.stdout.write(`\n${label} timings:\n`);
	for (const result of results) {
		process.stdout.write(`  ${result.ok ? 'ok  ' : 'FAIL'} [${result.index}] ${seconds(result.ms).padStart(8)}  ${result.name}\n`);
	}
	process.stdout.write(`  total ${seconds(Date.now() - started)} (with provisioning check and packing)\n`);
	process.stdout.write(`${label} on n8n ${install.n8nVersion}: ${passed} passed, ${failed} failed\n`);
	return failed;
}
