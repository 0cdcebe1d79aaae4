/**
 * `npm run test:e2e:queue`: the packed package in real n8n 2.41.1 in queue mode (Postgres, Redis, a
 * main, workers, webhook processes, a load balancer; see ./cluster.ts), running the scenarios of
 * ./scenarios.ts one after another, each in a fresh cluster. Output: test/output/e2e-queue/<scenario>/.
 * `npm run bench:queue` (--bench) measures the echo bot's throughput instead (./bench.ts).
 *
 * Usage: ts-node test/e2e/queue/run.ts [numbers or words to select scenarios…] [--keep]
 *        ts-node test/e2e/queue/run.ts --bench [--updates=N] [--profile]
 *        ts-node test/e2e/queue/run.ts --remove-duplicates   (scenario 2 with n8n's Remove Duplicates, measured)
 *        ts-node test/e2e/queue/run.ts --crash               (the polling trigger with the main killed mid-burst, measured)
 *        ts-node test/e2e/queue/run.ts --crash-webhook       (the webhook trigger with a webhook process killed mid-burst, measured;
 *                                                             with --crash too, both)
 *   --keep  keep the n8n user folders of passed scenarios too
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';

import { N8N_VERSION, ROOT, pack, provision } from '../../real-n8n/install';
import { stopAll, stopAllOnExit } from '../../real-n8n/processes';
import { parallelism, runScenarios, selectScenarios } from '../lib/runner';
import { runBench } from './bench';
import { DUPLICATE_WINDOW_WITH_REMOVE_DUPLICATES, POLLING_THROUGH_CRASHES, QUEUE_SCENARIOS, WEBHOOK_PROCESS_THROUGH_CRASHES } from './scenarios';

async function main(): Promise<number> {
	const args = process.argv.slice(2);
	const bench = args.includes('--bench');
	const crashes = [
		...(args.includes('--crash') ? [POLLING_THROUGH_CRASHES] : []),
		...(args.includes('--crash-webhook') ? [WEBHOOK_PROCESS_THROUGH_CRASHES] : []),
	];
	const chosen = bench
		? []
		: args.includes('--remove-duplicates')
			? [{ index: 0, scenario: DUPLICATE_WINDOW_WITH_REMOVE_DUPLICATES }]
			: crashes.length > 0
				? crashes.map((scenario, index) => ({ index, scenario }))
				: selectScenarios(QUEUE_SCENARIOS, args);
	const started = Date.now();
	stopAllOnExit((signal) => process.stdout.write(`\ne2e-queue: ${signal}, stopping everything started\n`));

	const install = await provision();
	const outputDir = join(ROOT, 'test', 'output', bench ? 'bench-queue' : 'e2e-queue');
	rmSync(outputDir, { recursive: true, force: true });
	const tarball = await pack(join(outputDir, 'pack'));
	process.stdout.write(`e2e-queue: n8n ${N8N_VERSION} from ${install.cache}; package ${tarball}\n`);
	if (bench) {
		const updates = Number(args.find((arg) => arg.startsWith('--updates='))?.split('=')[1] ?? 500);
		await runBench({ install, tarball, outputDir, updates, profile: args.includes('--profile') });
		return 0;
	}
	const failed = await runScenarios({
		label: 'e2e-queue',
		chosen,
		install,
		tarball,
		outputDir,
		screenshotDir: join(outputDir, 'screenshots'),
		keep: args.includes('--keep'),
		started,
		parallel: parallelism(args, 1),
	});
	return failed === 0 ? 0 : 1;
}

main().then(
	(code) => process.exit(code),
	async (error: unknown) => {
		process.stdout.write(`e2e-queue: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
		await stopAll();
		process.exit(1);
	},
);
