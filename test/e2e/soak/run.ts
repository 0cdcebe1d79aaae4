/**
 * `npm run soak`: the chaos soak (README.md here). Packs the built package, runs ./soak.ts once per trigger
 * in real n8n (regular mode, or a queue-mode cluster), prints the figures, writes them to
 * test/output/soak/<trigger>-<mode>[-<confirm delivery>]/,
 * and fails unless what users are promised held: no reply lost, none twice within one n8n process, no
 * update delayed more than 10 s by another workflow outside restart windows.
 *
 * Usage: ts-node test/e2e/soak/run.ts [--trigger webhook|polling|both] [--mode regular|queue]
 *   [--confirm-delivery whenStarted|afterRun] [--updates N]
 *   [--rate R] [--burst N] [--restart-every S] [--kill-once] [--chaos R] [--seed N] [--max-connections N]
 *   [--chats N] [--drain S] [--join-wait S]
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';

import { N8N_VERSION, ROOT, pack, provision } from '../../real-n8n/install';
import { stopAll, stopAllOnExit } from '../../real-n8n/processes';
import { runSoak } from './soak';
import type { ConfirmDelivery, SoakResult, TriggerKind } from './soak';
import type { SoakMode } from './target';

const OUTPUT = join(ROOT, 'test', 'output', 'soak');

interface Args {
	triggers: TriggerKind[];
	mode: SoakMode;
	/** undefined: the mode's (regular: afterRun, measured there; queue: the option's default, see README) */
	confirmDelivery: ConfirmDelivery | undefined;
	updates: number;
	rate: number;
	burst: number | undefined;
	restartEvery: number;
	killOnce: boolean;
	chaos: number;
	seed: number;
	maxConnections: number;
	chats: number;
	drainSeconds: number;
	joinWaitSeconds: number;
}

function parseArgs(argv: string[]): Args {
	const args: Args = { triggers: ['webhook', 'polling'], mode: 'regular', confirmDelivery: undefined, updates: 150, rate: 2, burst: undefined, restartEvery: 120, killOnce: false, chaos: 0.1, seed: 1, maxConnections: 1, chats: 5, drainSeconds: 60, joinWaitSeconds: 5 };
	for (let i = 0; i < argv.length; i++) {
		const [flag, inline] = argv[i].includes('=') ? [argv[i].slice(0, argv[i].indexOf('=')), argv[i].slice(argv[i].indexOf('=') + 1)] : [argv[i], undefined];
		const value = (): string => {
			const v = inline ?? argv[++i];
			if (v === undefined) throw new Error(`${flag} needs a value`);
			return v;
		};
		const number = (min: number, max = Number.POSITIVE_INFINITY): number => {
			const n = Number(value());
			if (!(n >= min && n <= max)) throw new Error(`${flag} needs a number from ${min}${max < Number.POSITIVE_INFINITY ? ` to ${max}` : ''}`);
			return n;
		};
		switch (flag) {
			case '--trigger': {
				const v = value();
				if (v === 'both') args.triggers = ['webhook', 'polling'];
				else if (v === 'webhook' || v === 'polling') args.triggers = [v];
				else throw new Error('--trigger is webhook, polling or both');
				break;
			}
			case '--mode': {
				const v = value();
				if (v !== 'regular' && v !== 'queue') throw new Error('--mode is regular or queue');
				args.mode = v;
				break;
			}
			case '--confirm-delivery': {
				const v = value();
				if (v !== 'whenStarted' && v !== 'afterRun') throw new Error('--confirm-delivery is whenStarted or afterRun (the option\'s values)');
				args.confirmDelivery = v;
				break;
			}
			case '--updates':
				args.updates = Math.round(number(1));
				break;
			case '--rate':
				args.rate = number(0.01);
				break;
			case '--burst':
				args.burst = Math.round(number(0));
				break;
			case '--restart-every':
				args.restartEvery = number(0);
				break;
			case '--kill-once':
				args.killOnce = true;
				break;
			case '--chaos':
				args.chaos = number(0, 1);
				break;
			case '--seed':
				args.seed = Math.round(number(0));
				break;
			case '--max-connections':
				args.maxConnections = Math.round(number(1, 100));
				break;
			case '--chats':
				args.chats = Math.round(number(1));
				break;
			case '--join-wait':
				args.joinWaitSeconds = number(0);
				break;
			case '--drain':
				args.drainSeconds = number(1);
				break;
			default:
				throw new Error(`unknown argument ${argv[i]} (usage at the top of test/e2e/soak/run.ts)`);
		}
	}
	return args;
}

const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

function report(result: SoakResult): string[] {
	const { figures: f, throughput, restarts, chaos, n8nLog, options } = result;
	const lines = [
		`soak ${options.trigger}, ${options.mode} mode${options.mode === 'queue' ? ' (main, 2 workers, 1 webhook process)' : ''}, n8n ${N8N_VERSION}: ${f.updates} updates × 3 workflows, ${options.rate}/s after a burst of ${options.burst}, restart every ${options.restartEvery} s${options.killOnce ? `, ${options.mode === 'queue' ? 'a worker and the webhook process SIGKILLed once each' : 'one SIGKILL'}` : ''}, chaos ${Math.round(options.chaosRate * 100)}%${options.trigger === 'webhook' ? `, max_connections ${options.maxConnections}, Confirm Delivery ${options.confirmDelivery}` : ''}`,
		`  updates sent                         ${f.updates} (replies expected ${f.expected}, received ${f.replies})`,
		`  replies lost                         ${f.lost}${f.lostExamples.length ? `  e.g. ${f.lostExamples.slice(0, 5).join('; ')}` : ''}`,
		`  twice within one n8n process         ${f.twiceWithinProcess}`,
		`  twice across processes               ${f.twiceAcrossProcesses}${f.twiceExamples.length ? `  e.g. ${f.twiceExamples.slice(0, 3).join('; ')}` : ''}`,
		`  latency outside restart windows      ${f.latencyMs ? `p50 ${s(f.latencyMs.p50)}, p99 ${s(f.latencyMs.p99)}, max ${s(f.latencyMs.max)}` : 'none measured'} (${f.outsideRestarts} of ${f.updates} updates outside)`,
		`  delayed > ${options.delayLimitMs / 1000} s by another workflow   ${f.delayedByAnother} (largest gap between an update's first and last reply: ${s(f.spreadMaxMs)})${f.delayedExamples.length ? `  e.g. ${f.delayedExamples.slice(0, 3).join('; ')}` : ''}`,
		`  throughput of the shared bot (burst) ${throughput ? `${throughput.updates} updates in ${throughput.seconds.toFixed(1)} s: ${throughput.updatesPerSecond.toFixed(2)} updates/s, ${throughput.repliesPerSecond.toFixed(2)} replies/s${throughput.complete ? '' : ' (replies missing: not a throughput)'}` : 'not measured'}`,
		`  restarts                             ${restarts.map((r) => `${r.by} ${r.role} at ${r.atSecond} s (exit ${r.exitSeconds.toFixed(1)} s, down ${r.downSeconds.toFixed(1)} s)`).join('; ') || 'none'}`,
		`  faults injected                      ${chaos.counts ? `${chaos.counts.tooManyRequests} × 429, ${chaos.counts.slow} slow, ${chaos.counts.badGateway} × 502, ${chaos.counts.dropped} dropped, of ${chaos.counts.calls} calls` : 'none'}`,
		`  pushes                               ${chaos.pushes.attempts} made, ${chaos.pushes.delivered} answered 2xx, failed and sent again: ${JSON.stringify(chaos.pushes.failed)}`,
		`  n8n's log                            ${Object.entries(n8nLog).map(([name, count]) => `${name}: ${count}`).join(', ')}`,
		`  run                                  ${result.seconds.toFixed(0)} s; load average ${result.load[0].toFixed(2)} → ${result.load[1].toFixed(2)} (at most ${result.loadMax.toFixed(2)}) on ${cpus().length} cores`,
	];
	if (f.unattributed > 0) lines.push(`  replies when no n8n ran             ${f.unattributed} (a clock or bookkeeping fault of the soak)`);
	return lines;
}

async function main(): Promise<number> {
	const args = parseArgs(process.argv.slice(2));
	stopAllOnExit((signal) => process.stdout.write(`\nsoak: ${signal}, stopping everything started\n`));
	const install = await provision();
	mkdirSync(OUTPUT, { recursive: true });
	const tarball = await pack(join(OUTPUT, 'pack'));
	let failed = 0;
	for (const trigger of args.triggers) {
		// Regular mode confirms after the run (what was measured there); queue mode keeps the option's default (README).
		const confirmDelivery = args.confirmDelivery ?? (args.mode === 'queue' ? 'whenStarted' : 'afterRun');
		const confirmDefault = args.mode === 'queue' ? 'whenStarted' : 'afterRun';
		const dir = join(OUTPUT, `${trigger}-${args.mode}${trigger === 'webhook' && confirmDelivery !== confirmDefault ? `-${confirmDelivery}` : ''}`);
		rmSync(dir, { recursive: true, force: true });
		mkdirSync(dir, { recursive: true });
		const startedAt = Date.now();
		const log = (message: string): void => {
			process.stdout.write(`  ${((Date.now() - startedAt) / 1000).toFixed(1).padStart(6)}s  ${message}\n`);
		};
		process.stdout.write(`soak: ${trigger} trigger, ${args.mode} mode, n8n ${N8N_VERSION} (${install.cache}); output ${dir}\n`);
		const result = await runSoak({
			trigger,
			mode: args.mode,
			confirmDelivery,
			updates: args.updates,
			rate: args.rate,
			burst: Math.min(args.updates, args.burst ?? Math.max(10, Math.round(args.updates / 5))),
			restartEvery: args.restartEvery,
			killOnce: args.killOnce,
			chaosRate: args.chaos,
			seed: args.seed,
			maxConnections: args.maxConnections,
			chats: args.chats,
			drainQuietMs: args.drainSeconds * 1000,
			settleMs: 15_000,
			delayLimitMs: 10_000,
			joinWaitMs: args.joinWaitSeconds * 1000,
			dir,
			install,
			tarball,
			log,
		});
		writeFileSync(join(dir, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
		const lines = report(result);
		const { lost, twiceWithinProcess, delayedByAnother } = result.figures;
		const broken = [
			lost > 0 ? `${lost} replies lost` : '',
			twiceWithinProcess > 0 ? `${twiceWithinProcess} replies twice within one n8n process` : '',
			delayedByAnother > 0 ? `${delayedByAnother} updates delayed > 10 s by another workflow outside restart windows` : '',
		].filter(Boolean);
		lines.push(broken.length === 0 ? '  PASSED: 0 lost, 0 twice within a process, none delayed by another workflow' : `  FAILED: ${broken.join(', ')}`);
		process.stdout.write(`${lines.join('\n')}\n`);
		writeFileSync(join(dir, 'summary.txt'), `${lines.join('\n')}\n`);
		if (broken.length > 0) failed += 1;
	}
	return failed === 0 ? 0 : 1;
}

main().then(
	(code) => process.exit(code),
	async (error: unknown) => {
		process.stdout.write(`soak: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
		await stopAll();
		process.exit(1);
	},
);
