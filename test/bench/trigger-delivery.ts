/**
 * `npm run bench:trigger`: polling vs webhook delivery of the Service Bot triggers
 * (test/bench/README.md). The emulator runs in its own process; the triggers run in this one through the
 * harness (n8n-core's real TriggerContext / WebhookContext, a real HTTP server for pushes).
 *
 * - Latency: from the moment an update is handed to the emulator (control API) to the moment the
 *   trigger starts the execution (the webhook trigger's webhook() returned workflow data; the polling
 *   trigger called emit). One update at a time, `--updates` of them (default 500) after a warm-up,
 *   polling and webhook in the same run.
 * - Throughput: `--burst` updates (default 5,000) queued at the service while no trigger is active,
 *   then the trigger is activated and the time until it has taken all of them is measured: polling
 *   (100 per getUpdates) vs webhook (the service pushing with max_connections 40). No workflow runs
 *   after the trigger here, so both numbers are the delivery's own cost, not n8n's execution's.
 *
 * Numbers only, no assertions. Prints a table; writes test/output/bench/trigger-delivery.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { ServiceBotPollingTrigger } from '../../nodes/ServiceBotPollingTrigger/ServiceBotPollingTrigger.node';
import { ServiceBotTrigger } from '../../nodes/ServiceBotTrigger/ServiceBotTrigger.node';
import { createTriggerHarness, freePort, startWebhookServer, type TriggerHarness } from '../harness';
import { ROOT, spawnEmulator, type EmulatorProcess } from './emulator-process';
import { fixed, table } from './stats';

interface Args {
	updates: number;
	warmup: number;
	burst: number;
}

function parseArgs(argv: string[]): Args {
	const args: Args = { updates: 500, warmup: 50, burst: 5000 };
	for (let index = 0; index < argv.length; index++) {
		const flag = argv[index];
		const value = Number(argv[++index]);
		if (!Number.isInteger(value) || value < 1) throw new Error(`${flag} needs a positive integer`);
		if (flag === '--updates') args.updates = value;
		else if (flag === '--warmup') args.warmup = value;
		else if (flag === '--burst') args.burst = value;
		else throw new Error(`unknown argument ${flag}`);
	}
	return args;
}

function log(text: string): void {
	process.stderr.write(`bench:trigger: ${text}\n`);
}

interface Latency {
	median: number;
	p99: number;
	mean: number;
	min: number;
	max: number;
}

function latency(samples: number[]): Latency {
	const sorted = [...samples].sort((a, b) => a - b);
	const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
	return {
		median: at(0.5),
		p99: at(0.99),
		mean: samples.reduce((sum, value) => sum + value, 0) / samples.length,
		min: sorted[0],
		max: sorted[sorted.length - 1],
	};
}

/** Counts execution starts and lets the bench wait for the n-th. */
class Starts {
	count = 0;
	private waiters: Array<{ n: number; resolve: () => void }> = [];

	started(): void {
		this.count++;
		this.waiters = this.waiters.filter((waiter) => {
			if (this.count < waiter.n) return true;
			waiter.resolve();
			return false;
		});
	}

	async reach(n: number): Promise<void> {
		if (this.count >= n) return;
		await new Promise<void>((resolve) => this.waiters.push({ n, resolve }));
	}
}

interface Delivery {
	starts: Starts;
	stop(): Promise<void>;
}

function harnessFor(emulator: EmulatorProcess, kind: 'webhook' | 'polling', webhookBaseUrl: string): TriggerHarness {
	return createTriggerHarness({
		nodeType: kind === 'webhook' ? new ServiceBotTrigger() : new ServiceBotPollingTrigger(),
		parameters: { updates: ['*'], options: {} },
		credentials: { accessToken: emulator.token, baseUrl: emulator.baseUrl },
		webhookBaseUrl,
	});
}

/** Activates a trigger of that kind; every execution start is counted. */
async function activate(emulator: EmulatorProcess, kind: 'webhook' | 'polling'): Promise<Delivery> {
	const starts = new Starts();
	const harness = harnessFor(emulator, kind, `http://127.0.0.1:${await freePort()}/`);
	if (kind === 'polling') {
		const running = await harness.startTrigger({ onEmit: () => starts.started() });
		return { starts, stop: async () => await running.close() };
	}
	const counted: TriggerHarness = {
		...harness,
		receive: async (request) => {
			const receipt = await harness.receive(request);
			if (receipt.workflowData) starts.started();
			return receipt;
		},
	};
	const server = await startWebhookServer(counted);
	await harness.activate();
	return {
		starts,
		stop: async () => {
			await harness.delete();
			await server.close();
		},
	};
}

async function measureLatency(emulator: EmulatorProcess, kind: 'webhook' | 'polling', args: Args): Promise<Latency> {
	await emulator.control('POST', '/reset');
	const { demo } = emulator;
	const delivery = await activate(emulator, kind);
	const samples: number[] = [];
	try {
		for (let index = 1; index <= args.warmup + args.updates; index++) {
			const t0 = performance.now();
			await emulator.control('POST', '/messages', { chatId: demo.privateChatId, userId: demo.userId, text: `latency ${index}` });
			await delivery.starts.reach(index);
			if (index > args.warmup) samples.push(performance.now() - t0);
		}
	} finally {
		await delivery.stop();
	}
	return latency(samples);
}

async function measureBurst(emulator: EmulatorProcess, kind: 'webhook' | 'polling', burst: number): Promise<{ ms: number; perSecond: number }> {
	await emulator.control('POST', '/reset');
	const { demo } = emulator;
	// Queued while no trigger is active (the service keeps them).
	for (let sent = 0; sent < burst; sent += 100) {
		await Promise.all(
			Array.from({ length: Math.min(100, burst - sent) }, async (_, index) =>
				await emulator.control('POST', '/messages', { chatId: demo.privateChatId, userId: demo.userId, text: `burst ${sent + index}` }),
			),
		);
	}
	const t0 = performance.now();
	const delivery = await activate(emulator, kind);
	try {
		await delivery.starts.reach(burst);
	} finally {
		await delivery.stop();
	}
	const ms = performance.now() - t0;
	return { ms, perSecond: (burst / ms) * 1000 };
}

async function main(): Promise<void> {
	const args = parseArgs(process.argv.slice(2));
	const emulator = await spawnEmulator();
	try {
		log(`latency: ${args.updates} updates one at a time (after ${args.warmup} warm-up), webhook then polling`);
		const webhookLatency = await measureLatency(emulator, 'webhook', args);
		const pollingLatency = await measureLatency(emulator, 'polling', args);
		log(`throughput: a burst of ${args.burst} queued updates, webhook then polling`);
		const webhookBurst = await measureBurst(emulator, 'webhook', args.burst);
		const pollingBurst = await measureBurst(emulator, 'polling', args.burst);

		const ms = (value: number): string => `${fixed(value, 2)} ms`;
		const out = [
			`Trigger delivery, emulator in its own process, loopback (${new Date().toISOString()})`,
			'',
			table(
				['Delivery', 'latency median', 'p99', 'mean', 'min–max', `burst of ${args.burst}`, 'updates/s'],
				[
					['webhook (max_connections 40)', webhookLatency, webhookBurst] as const,
					['polling (limit 100, long poll 45 s)', pollingLatency, pollingBurst] as const,
				].map(([name, lat, burst]) => [
					name,
					ms(lat.median),
					ms(lat.p99),
					ms(lat.mean),
					`${fixed(lat.min, 2)}–${fixed(lat.max, 2)}`,
					`${fixed(burst.ms / 1000, 2)} s`,
					fixed(burst.perSecond, 0),
				]),
			),
			'',
			`polling/webhook: median latency ${fixed(pollingLatency.median / webhookLatency.median, 2)}× (goal ≤ 2× and < 50 ms), burst throughput ${fixed(pollingBurst.perSecond / webhookBurst.perSecond, 2)}×`,
		].join('\n');
		process.stdout.write(`${out}\n`);
		const dir = join(ROOT, 'test', 'output', 'bench');
		mkdirSync(dir, { recursive: true });
		writeFileSync(
			join(dir, 'trigger-delivery.json'),
			JSON.stringify({ args, webhook: { latency: webhookLatency, burst: webhookBurst }, polling: { latency: pollingLatency, burst: pollingBurst } }, null, 2),
		);
	} finally {
		await emulator.close();
	}
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		process.stderr.write(`bench:trigger: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
		process.exit(1);
	},
);
