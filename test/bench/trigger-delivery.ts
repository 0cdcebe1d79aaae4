/**
 * `npm run bench:trigger`: polling vs webhook delivery of the Service Bot triggers
 * (test/bench/README.md). The emulator runs in its own process; the triggers run in this one through the
 * harness (n8n-core's real TriggerContext / WebhookContext, a real HTTP server for pushes).
 *
 * - Latency: from the moment an update is handed to the emulator (control API) to the moment the
 *   trigger starts the execution (the webhook trigger's webhook() returned workflow data; the polling
 *   trigger called emit). One update at a time, `--updates` of them (default 500) after a warm-up,
 *   polling and webhook in the same run.
 * - Several workflows on one bot: the latency with 3 webhook triggers on the bot, of the one the
 *   service pushes to (the receiver) and of one it forwards to; and the throughput of a burst sent
 *   while 1, then 3, workflows listen, until every workflow took every update.
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
	/** The triggers' node version (`--trigger-version`; default the newest): an older one to compare with a commit before it. */
	triggerVersion?: number;
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
		else if (flag === '--trigger-version') args.triggerVersion = value;
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
	/** Execution starts of each workflow listening (the first receives the service's pushes). */
	starts: Starts[];
	stop(): Promise<void>;
}

/** The triggers' node version for this run (`--trigger-version`), the newest when not given. */
let triggerVersion: number | undefined;

function harnessFor(emulator: EmulatorProcess, kind: 'webhook' | 'polling', webhookBaseUrl: string): TriggerHarness {
	return createTriggerHarness({
		nodeType: kind === 'webhook' ? new ServiceBotTrigger() : new ServiceBotPollingTrigger(),
		parameters: { updates: ['*'], options: {} },
		credentials: { accessToken: emulator.token, baseUrl: emulator.baseUrl },
		webhookBaseUrl,
		typeVersion: triggerVersion,
	});
}

/**
 * Activates `workflows` triggers of that kind on the bot (several: webhook only, on one n8n's port);
 * every execution start is counted per workflow.
 */
async function activate(emulator: EmulatorProcess, kind: 'webhook' | 'polling', workflows = 1): Promise<Delivery> {
	const base = `http://127.0.0.1:${await freePort()}/`;
	if (kind === 'polling') {
		const starts = new Starts();
		const running = await harnessFor(emulator, kind, base).startTrigger({ onEmit: () => starts.started() });
		return { starts: [starts], stop: async () => await running.close() };
	}
	const harnesses = Array.from({ length: workflows }, () => harnessFor(emulator, kind, base));
	const starts = harnesses.map(() => new Starts());
	const counted = harnesses.map(
		(harness, index): TriggerHarness => ({
			...harness,
			receive: async (request) => {
				const receipt = await harness.receive(request);
				if (receipt.workflowData) starts[index].started();
				return receipt;
			},
		}),
	);
	const server = await startWebhookServer(counted);
	for (const harness of harnesses) await harness.activate();
	return {
		starts,
		stop: async () => {
			for (const harness of [...harnesses].reverse()) await harness.delete();
			await server.close();
		},
	};
}

/** Latency of each listening workflow (the receiver first). */
async function measureLatency(emulator: EmulatorProcess, kind: 'webhook' | 'polling', args: Args, workflows = 1): Promise<Latency[]> {
	await emulator.control('POST', '/reset');
	const { demo } = emulator;
	const delivery = await activate(emulator, kind, workflows);
	const samples: number[][] = delivery.starts.map(() => []);
	try {
		for (let index = 1; index <= args.warmup + args.updates; index++) {
			const t0 = performance.now();
			await emulator.control('POST', '/messages', { chatId: demo.privateChatId, userId: demo.userId, text: `latency ${index}` });
			await Promise.all(
				delivery.starts.map(async (starts, workflow) => {
					await starts.reach(index);
					if (index > args.warmup) samples[workflow].push(performance.now() - t0);
				}),
			);
		}
	} finally {
		await delivery.stop();
	}
	return samples.map(latency);
}

async function queueBurst(emulator: EmulatorProcess, burst: number): Promise<void> {
	const { demo } = emulator;
	for (let sent = 0; sent < burst; sent += 100) {
		await Promise.all(
			Array.from({ length: Math.min(100, burst - sent) }, async (_, index) =>
				await emulator.control('POST', '/messages', { chatId: demo.privateChatId, userId: demo.userId, text: `burst ${sent + index}` }),
			),
		);
	}
}

/** Time until the trigger has started an execution for each of `burst` updates queued while no trigger was active. */
async function measureBurst(emulator: EmulatorProcess, kind: 'webhook' | 'polling', burst: number): Promise<{ ms: number; perSecond: number }> {
	await emulator.control('POST', '/reset');
	// Queued while no trigger is active (the service keeps them).
	await queueBurst(emulator, burst);
	const t0 = performance.now();
	const delivery = await activate(emulator, kind);
	try {
		await delivery.starts[0].reach(burst);
	} finally {
		await delivery.stop();
	}
	const ms = performance.now() - t0;
	return { ms, perSecond: (burst / ms) * 1000 };
}

/**
 * With `workflows` webhook triggers already listening: time from the first of `burst` updates handed
 * to the service until every workflow has started an execution for each (updates that arrive while
 * a workflow is not yet listening are not forwarded to it, so the listeners come first here).
 */
async function measureLiveBurst(emulator: EmulatorProcess, workflows: number, burst: number): Promise<{ ms: number; perSecond: number }> {
	await emulator.control('POST', '/reset');
	const delivery = await activate(emulator, 'webhook', workflows);
	const t0 = performance.now();
	try {
		await queueBurst(emulator, burst);
		await Promise.all(delivery.starts.map(async (starts) => await starts.reach(burst)));
	} finally {
		await delivery.stop();
	}
	const ms = performance.now() - t0;
	return { ms, perSecond: (burst / ms) * 1000 };
}

async function main(): Promise<void> {
	const args = parseArgs(process.argv.slice(2));
	triggerVersion = args.triggerVersion;
	const emulator = await spawnEmulator();
	try {
		log(`latency: ${args.updates} updates one at a time (after ${args.warmup} warm-up), webhook, 3 webhook workflows on one bot, then polling`);
		const [webhookLatency] = await measureLatency(emulator, 'webhook', args);
		const [receiverLatency, forwardedLatency] = await measureLatency(emulator, 'webhook', args, 3);
		const [pollingLatency] = await measureLatency(emulator, 'polling', args);
		log(`throughput: a burst of ${args.burst} queued updates, webhook, 3 webhook workflows, then polling`);
		const webhookBurst = await measureBurst(emulator, 'webhook', args.burst);
		const pollingBurst = await measureBurst(emulator, 'polling', args.burst);
		log(`throughput with listeners already active: ${args.burst} updates to 1, then 3 webhook workflows on one bot`);
		const aloneLive = await measureLiveBurst(emulator, 1, args.burst);
		const sharedLive = await measureLiveBurst(emulator, 3, args.burst);

		const ms = (value: number): string => `${fixed(value, 2)} ms`;
		const out = [
			`Trigger delivery, emulator in its own process, loopback (${new Date().toISOString()})`,
			'',
			table(
				['Delivery', 'latency median', 'p99', 'mean', 'min–max', `burst of ${args.burst}`, 'updates/s'],
				[
					['webhook (max_connections 40)', webhookLatency, webhookBurst] as const,
					['webhook, 3 workflows on one bot: the receiver', receiverLatency, undefined] as const,
					['webhook, 3 workflows on one bot: a forwarded one', forwardedLatency, undefined] as const,
					['polling (limit 100, long poll 45 s)', pollingLatency, pollingBurst] as const,
				].map(([name, lat, burst]) => [
					name,
					ms(lat.median),
					ms(lat.p99),
					ms(lat.mean),
					`${fixed(lat.min, 2)}–${fixed(lat.max, 2)}`,
					burst ? `${fixed(burst.ms / 1000, 2)} s` : '(below)',
					burst ? fixed(burst.perSecond, 0) : '',
				]),
			),
			'',
			`polling/webhook: median latency ${fixed(pollingLatency.median / webhookLatency.median, 2)}× (goal ≤ 2× and < 50 ms), burst throughput ${fixed(pollingBurst.perSecond / webhookBurst.perSecond, 2)}×`,
			`listeners already active, ${args.burst} updates: 1 workflow ${fixed(aloneLive.perSecond, 0)} updates/s (${fixed(aloneLive.ms / 1000, 2)} s), 3 workflows ${fixed(sharedLive.perSecond, 0)} updates/s (${fixed(sharedLive.ms / 1000, 2)} s, every workflow took every update): ${fixed(sharedLive.perSecond / aloneLive.perSecond, 2)}×`,
			`a forwarded workflow's median latency: ${fixed(forwardedLatency.median / receiverLatency.median, 2)}× the receiver's`,
		].join('\n');
		process.stdout.write(`${out}\n`);
		const dir = join(ROOT, 'test', 'output', 'bench');
		mkdirSync(dir, { recursive: true });
		writeFileSync(
			join(dir, 'trigger-delivery.json'),
			JSON.stringify(
				{
					args,
					webhook: { latency: webhookLatency, burst: webhookBurst },
					sharedBot: { receiverLatency, forwardedLatency, aloneLive, sharedLive },
					polling: { latency: pollingLatency, burst: pollingBurst },
				},
				null,
				2,
			),
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
