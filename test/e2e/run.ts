/**
 * `npm run test:e2e`: packs the built package, installs it into real n8n 2.41.1 the way n8n installs
 * community packages, and runs the scenarios of ./scenarios.ts, two at a time, each in fresh n8n
 * user folders. Output: test/output/e2e/<scenario>/ (logs, user folders of failed scenarios) and
 * test/output/screenshots/*.png.
 *
 * Usage: ts-node test/e2e/run.ts [numbers or words to select scenarios…] [--keep] [--parallel=N]
 *   --keep        keep the n8n user folders of passed scenarios too
 *   --parallel=N  scenarios at a time (default 2, or SERVICE_BOT_E2E_PARALLEL; lib/runner.ts)
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { N8N_VERSION, ROOT, pack, provision } from '../real-n8n/install';
import { stopAll, stopAllOnExit } from '../real-n8n/processes';
import { prepareUserFolder } from './lib/context';
import { parallelism, runScenarios, selectScenarios } from './lib/runner';
import { SCENARIOS } from './scenarios';

const OUTPUT = join(ROOT, 'test', 'output');

async function main(): Promise<number> {
	const args = process.argv.slice(2);
	const chosen = selectScenarios(SCENARIOS, args);
	const started = Date.now();
	stopAllOnExit((signal) => process.stdout.write(`\ne2e: ${signal}, stopping everything started\n`));

	const install = await provision();
	const e2eDir = join(OUTPUT, 'e2e');
	const screenshotDir = join(OUTPUT, 'screenshots');
	rmSync(e2eDir, { recursive: true, force: true });
	mkdirSync(screenshotDir, { recursive: true });
	for (const file of readdirSync(screenshotDir)) if (file.endsWith('.png')) rmSync(join(screenshotDir, file));
	const tarball = await pack(join(e2eDir, 'pack'));
	process.stdout.write(`e2e: n8n ${N8N_VERSION} from ${install.cache}; package ${tarball}\n`);
	const prepared = await prepareUserFolder(install, tarball, join(e2eDir, 'prepared'));
	process.stdout.write(`e2e: a user folder prepared for the scenarios to copy (${((Date.now() - started) / 1000).toFixed(1)} s into the run)\n`);

	const failed = await runScenarios({ label: 'e2e', chosen, install, tarball, outputDir: e2eDir, screenshotDir, keep: args.includes('--keep'), started, parallel: parallelism(args, 2), prepared });
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
