/**
 * Runs scenarios, each with a fresh ScenarioContext in `<outputDir>/<number>/`, and prints a summary.
 * Shared by `npm run test:e2e` (../run.ts) and `npm run test:e2e:queue` (../queue/run.ts).
 *
 * Scenarios run `parallel` at a time (each has its own user folders, ports, emulator and processes,
 * `withOwnProcesses`), since most of a scenario's time is n8n booting on one core or waiting on
 * timers. A scenario whose checks ride on timing under load (a bound on a run, a rate, a restart in
 * the middle of a burst) says `alone`: it runs after the others, with nothing beside it.
 */
import { appendFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { ScenarioContext } from './context';
import type { N8nInstall } from '../../real-n8n/install';
import { stopOwn, withOwnProcesses } from '../../real-n8n/processes';

export interface Scenario {
	name: string;
	/** Runs with no other scenario beside it: its checks are about timing, which a neighbour's load would bend. */
	alone?: boolean;
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
 * How many scenarios run at a time: `--parallel=N`, else SERVICE_BOT_E2E_PARALLEL, else `fallback`.
 */
export function parallelism(args: string[], fallback: number): number {
	const flag = args.find((arg) => arg.startsWith('--parallel='));
	const text = flag ? flag.slice('--parallel='.length) : process.env.SERVICE_BOT_E2E_PARALLEL;
	if (text === undefined || text === '') return fallback;
	const count = Number(text);
	if (!Number.isInteger(count) || count < 1) throw new Error(`--parallel / SERVICE_BOT_E2E_PARALLEL: not a whole number ≥ 1: ${text}`);
	return count;
}

interface Result {
	index: number;
	name: string;
	ok: boolean;
	ms: number;
}

/**
 * Runs the chosen scenarios, `parallel` at a time (the `alone` ones last, one by one); returns the
 * number that failed. Clean-up (ctx.defer, then every process the scenario started) happens after
 * each scenario, passed or failed. The n8n user folders of passed scenarios are deleted unless
 * `keep`; logs stay. Side by side, a scenario's lines are printed together when it ends (and written
 * to `<its folder>/progress.log` as they come).
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
	parallel?: number;
	/** A prepared user folder each scenario's n8n starts from (ScenarioContext). */
	prepared?: string;
}): Promise<number> {
	const { label, chosen, install, tarball, outputDir, screenshotDir, keep, started, prepared } = options;
	const parallel = Math.max(1, options.parallel ?? 1);
	const results: Result[] = [];

	const runOne = async ({ index, scenario }: { index: number; scenario: Scenario }, sideBySide: boolean): Promise<void> => {
		const dir = join(outputDir, `${index}`);
		mkdirSync(dir, { recursive: true });
		const progress = join(dir, 'progress.log');
		let kept = '';
		const write = (text: string): void => {
			appendFileSync(progress, text);
			if (sideBySide) kept += text;
			else process.stdout.write(text);
		};
		const heading = `\n[${index}] ${scenario.name}\n`;
		if (sideBySide) {
			process.stdout.write(`[${index}] started (${seconds(Date.now() - started)} into the run)\n`);
			kept += heading;
		} else process.stdout.write(heading);
		const ctx = new ScenarioContext(install, tarball, dir, screenshotDir, write, prepared);
		const t0 = Date.now();
		let ok = false;
		await withOwnProcesses(async () => {
			try {
				await scenario.run(ctx);
				ok = true;
			} catch (error) {
				write(`    FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
				write(`    logs: ${dir}\n`);
			} finally {
				await ctx.cleanUp();
				await stopOwn();
			}
		});
		const ms = Date.now() - t0;
		results.push({ index, name: scenario.name, ok, ms });
		write(`[${index}] ${ok ? 'passed' : 'FAILED'} in ${seconds(ms)}\n`);
		if (sideBySide) process.stdout.write(kept);
		// The user folders (n8n's database) of passed scenarios are of no further use; logs stay.
		if (ok && !keep) {
			for (const entry of readdirSync(dir, { withFileTypes: true })) {
				if (entry.isDirectory() && entry.name.startsWith('n8n-')) rmSync(join(dir, entry.name, 'user'), { recursive: true, force: true });
			}
		}
	};

	const together = chosen.filter(({ scenario }) => parallel === 1 || scenario.alone !== true);
	const alone = chosen.filter(({ scenario }) => parallel > 1 && scenario.alone === true);
	const queue = [...together];
	const lanes = Array.from({ length: Math.min(parallel, queue.length) }, async () => {
		for (let next = queue.shift(); next; next = queue.shift()) await runOne(next, parallel > 1);
	});
	await Promise.all(lanes);
	if (alone.length > 0 && together.length > 0) process.stdout.write(`\n${label}: now the scenarios that run alone (${alone.map(({ index }) => index).join(', ')})\n`);
	for (const next of alone) await runOne(next, false);

	results.sort((a, b) => a.index - b.index);
	const passed = results.filter((result) => result.ok).length;
	const failed = results.length - passed;
	process.stdout.write(`\n${label} timings (${parallel} at a time${alone.length > 0 ? `, then ${alone.length} alone` : ''}):\n`);
	for (const result of results) {
		process.stdout.write(`  ${result.ok ? 'ok  ' : 'FAIL'} [${result.index}] ${seconds(result.ms).padStart(8)}  ${result.name}\n`);
	}
	process.stdout.write(`  total ${seconds(Date.now() - started)} (with provisioning check and packing)\n`);
	process.stdout.write(`${label} on n8n ${install.n8nVersion}: ${passed} passed, ${failed} failed\n`);
	return failed;
}
