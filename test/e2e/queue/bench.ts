/**
 * `npm run bench:queue`: throughput of scenario 1's echo bot in queue mode (updates answered per
 * second) with 1 or 2 workers and 1 or 2 webhook processes, and the CPU each process used meanwhile
 * (from /proc), to say what saturates. For comparison, in the same cluster and run: the same echo
 * started by (F) a minimal community trigger whose `webhook()` only returns the body
 * (test/fixtures/floor-trigger) and by (B) n8n's own Telegram Trigger pointed at the emulator, and
 * n8n's own Webhook node → No Op (no package). A measurement, never a test: nothing here fails on a number.
 *
 * One cluster (2 workers, 2 webhook processes) serves every configuration: a webhook process is
 * taken out of the load balancer's rotation, a worker is stopped (a running worker would take jobs).
 */
import { mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';

import { table as markdownTable } from '../../bench/stats';
import { ScenarioContext } from '../lib/context';
import type { N8nInstall } from '../../real-n8n/install';
import { stopAll } from '../../real-n8n/processes';
import { inSequence, webhookStart } from '../lib/workflow';
import { ROOT } from '../../real-n8n/install';
import type { N8n } from '../../real-n8n/n8n';
import { callProductionWebhook, createChats, createWorkflow, echoBot, echoBotInCluster, finishedExecutions, sendMessages, waitForCalls } from './bot';
import { QueueCluster, WORKER_CONCURRENCY } from './cluster';
import { coresUsed, sampleCpu } from './cpu';
import { compareProfiles } from './profile';
import type { ProfiledPhase } from './profile';

const BASELINE_PATH = 'baseline-no-op';
const FLOOR_WEBHOOK_ID = '6b1e2d3f-0000-4000-8000-0000000000f1';
const TELEGRAM_WEBHOOK_ID = '6b1e2d3f-0000-4000-8000-0000000000b1';

/**
 * The echo bot with another trigger in front: its Switch and Echo read the update itself (the other
 * triggers add no handy fields), so the work after the trigger is the echo bot's.
 */
function echoBehind(bot: Record<string, unknown>, trigger: Record<string, unknown>): Record<string, unknown> {
	const nodes = (bot.nodes as Array<Record<string, unknown>>).map((node) => {
		if (node.name === 'Service Bot Trigger') return { ...trigger, name: 'Service Bot Trigger', position: node.position };
		const text = JSON.stringify(node)
			.split('{{ $json.update_type }}').join("{{ $json.message ? 'message' : 'callback_query' }}")
			.split('{{ $json.chat_id }}').join('{{ $json.message.chat.id }}')
			.split('{{ $json.text }}').join('{{ $json.message.text }}');
		return JSON.parse(text) as Record<string, unknown>;
	});
	return { ...bot, name: `${String(bot.name)} (${String(trigger.type)})`, nodes };
}

/** n8n's Telegram credential at the emulator (the Telegram Trigger takes a base URL). */
async function telegramCredential(main: N8n, baseUrl: string, token: string): Promise<string> {
	const saved = await main.request('POST', '/rest/credentials', { name: 'Telegram (emulator)', type: 'telegramApi', data: { accessToken: token, baseUrl } });
	return String(saved.id);
}

interface Measurement {
	workload: string;
	workers: number;
	webhooks: number;
	updates: number;
	seconds: number;
	updatesPerSecond: number;
	/** CPU milliseconds per update of everything the set-up runs (n8n, Postgres, Redis, emulator, load balancer). */
	cpuMsPerUpdate: number;
	/** Cores used per process tree (1 = one core busy all the time). */
	cores: Record<string, number>;
}

const CONFIGURATIONS: Array<{ workers: number; webhooks: number }> = [
	{ workers: 2, webhooks: 2 },
	{ workers: 2, webhooks: 1 },
	{ workers: 1, webhooks: 1 },
	{ workers: 1, webhooks: 2 },
];

const COLUMNS = ['main', 'worker-1', 'worker-2', 'webhook-1', 'webhook-2', 'postgres', 'redis', 'emulator', 'load balancer + load generator', 'not ours', 'machine'];

/** CPU milliseconds per update of each kind of process (workers and webhook processes summed). */
function perKindTable(measurements: Measurement[]): string {
	const kinds: Array<[string, string[]]> = [
		['webhook processes', ['webhook-1', 'webhook-2']],
		['workers', ['worker-1', 'worker-2']],
		['main', ['main']],
		['postgres', ['postgres']],
	];
	const header = ['workload', 'workers', 'webhook processes', 'updates/s', ...kinds.map(([kind]) => `${kind} (CPU ms per update)`)];
	const rows = measurements.map((m) => [
		m.workload,
		String(m.workers),
		String(m.webhooks),
		m.updatesPerSecond.toFixed(1),
		...kinds.map(([, columns]) => ((columns.reduce((sum, column) => sum + (m.cores[column] ?? 0), 0) * m.seconds * 1000) / m.updates).toFixed(1)),
	]);
	return markdownTable(header, rows);
}

function table(measurements: Measurement[]): string {
	const header = ['workload', 'workers', 'webhook processes', 'updates/s', 'CPU ms per update', ...COLUMNS.map((column) => `${column} (cores)`)];
	const rows = measurements.map((m) => [
		m.workload,
		String(m.workers),
		String(m.webhooks),
		m.updatesPerSecond.toFixed(1),
		m.cpuMsPerUpdate.toFixed(0),
		...COLUMNS.map((column) => (m.cores[column] === undefined ? '–' : m.cores[column].toFixed(2))),
	]);
	return markdownTable(header, rows);
}

/** Webhook (POST, answered on receipt) → No Op: n8n's own cost of one webhook call and one execution. */
function baselineWorkflow(): Record<string, unknown> {
	return {
		name: 'Baseline: Webhook → No Op',
		settings: { executionOrder: 'v1' },
		nodes: [
			webhookStart({
				id: '6b1e2d3f-0000-4000-8000-000000000001',
				name: 'Webhook',
				position: [0, 0],
				webhookId: '6b1e2d3f-0000-4000-8000-0000000000ff',
				path: BASELINE_PATH,
			}),
			{ id: '6b1e2d3f-0000-4000-8000-000000000002', name: 'No Op', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [220, 0], parameters: {} },
		],
		connections: inSequence('Webhook', 'No Op'),
	};
}

/** POSTs `count` requests to `url`, at most `concurrency` at once; fails on any non-2xx answer. */
async function postMany(url: string, count: number, concurrency: number): Promise<void> {
	let next = 0;
	const lane = async (): Promise<void> => {
		while (next < count) {
			const index = next;
			next += 1;
			const response = await fetch(url, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ update_id: index + 1, message: { message_id: index + 1, text: `baseline ${index}` } }),
			});
			await response.arrayBuffer();
			if (!response.ok) throw new Error(`${url} answered ${response.status}`);
		}
	};
	await Promise.all(Array.from({ length: concurrency }, lane));
}

/**
 * `--profile`: only the echo bot with 2 workers and 2 webhook processes, the webhook processes under
 * V8's CPU profiler; their profiles (written when they stop) are summed up by ./profile.ts.
 */
export async function runBench(options: { install: N8nInstall; tarball: string; outputDir: string; updates: number; profile?: boolean }): Promise<void> {
	const { install, tarball, outputDir, updates, profile = false } = options;
	const profiles = join(outputDir, 'profiles');
	const ctx = new ScenarioContext(install, tarball, join(outputDir, 'cluster'), join(outputDir, 'screenshots'));
	try {
		ctx.extraPackages.push(join(ROOT, 'test', 'fixtures', 'floor-trigger'));
		const { emulator, cluster, workflowId, credentialId } = await echoBotInCluster(ctx, {
			workers: 2,
			webhooks: 2,
			telegramSecretHeader: true,
			...(profile ? { webhookEnv: { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profiles}` } } : {}),
		});
		const chats = await createChats(emulator, 20);
		const [, secondWorker] = cluster.workers;
		const measurements: Measurement[] = [];
		/** The wall-clock window of the last measured row (--profile keeps only its samples). */
		let window = { from: 0, to: 0 };

		/** Runs `work` with the given processes in use and records its rate and the CPU used meanwhile. */
		const measure = async (workload: string, workers: number, webhooks: number, work: () => Promise<number>): Promise<void> => {
			if (workers === 1 && secondWorker.serverPid() !== undefined) await secondWorker.stop();
			if (workers === 2 && secondWorker.serverPid() === undefined) await secondWorker.start();
			cluster.proxy.useWebhooks(webhooks === 1 ? [0] : [0, 1]);
			const trees = new Map<string, number>([
				['postgres', cluster.postgres.pid],
				['redis', cluster.redis.pid],
				['emulator', emulator.proc.pid],
			]);
			for (const n8n of cluster.all()) {
				const pid = n8n.serverPid();
				if (pid !== undefined) trees.set(QueueCluster.nameOf(n8n), pid);
			}
			const before = sampleCpu(trees);
			const t0 = Date.now();
			const count = await work();
			const seconds = (Date.now() - t0) / 1000;
			window = { from: t0, to: Date.now() };
			const used = coresUsed(before, sampleCpu(trees));
			const ours = used.self + [...used.groups.values()].reduce((sum, cores) => sum + cores, 0);
			const measurement: Measurement = {
				workload,
				workers,
				webhooks,
				updates: count,
				seconds,
				updatesPerSecond: count / seconds,
				cpuMsPerUpdate: (ours * seconds * 1000) / count,
				cores: {
					...Object.fromEntries(used.groups),
					'load balancer + load generator': used.self,
					// Other engineers' processes share this machine: what the machine did beyond ours.
					'not ours': Math.max(0, used.machine - ours),
					machine: used.machine,
				},
			};
			measurements.push(measurement);
			ctx.log(
				`${workload}, ${workers} worker(s), ${webhooks} webhook process(es): ${count} updates in ${seconds.toFixed(1)} s = ${measurement.updatesPerSecond.toFixed(1)} updates/s, ` +
					`${measurement.cpuMsPerUpdate.toFixed(0)} CPU ms per update; machine ${used.machine.toFixed(2)} of ${used.machineCores} cores busy`,
			);
		};

		/** Pushes about `count` messages (a whole number per chat) and waits for all their echoes. */
		const echoes = async (count: number, prefix: string): Promise<number> => {
			// Only this round's calls are recorded, so counting them stays cheap for the emulator.
			await emulator.clearCalls();
			const sent = await sendMessages(emulator, chats, Math.ceil(count / chats.length), prefix);
			await waitForCalls(emulator, 'sendMessage', sent.length);
			return sent.length;
		};
		ctx.log('warming up (100 updates, not measured)');
		await echoes(100, 'warm-up ');
		/** With --profile: stops the webhook processes (V8 writes their profiles) into `phase`, and starts them again. */
		const profiled = async (phase: string): Promise<ProfiledPhase> => {
			const dir = join(profiles, phase);
			const measured = window;
			for (const webhook of cluster.webhooks) await webhook.stop();
			const stoppedAt = Date.now();
			mkdirSync(dir, { recursive: true });
			for (const name of readdirSync(profiles).filter((file) => file.endsWith('.cpuprofile'))) renameSync(join(profiles, name), join(dir, name));
			for (const webhook of cluster.webhooks) await webhook.start();
			return { dir, ...measured, stoppedAt };
		};
		for (const { workers, webhooks } of profile ? CONFIGURATIONS.slice(0, 1) : CONFIGURATIONS) {
			await measure('echo bot', workers, webhooks, () => echoes(updates, `w${workers}h${webhooks} `));
		}
		const profileOfA = profile ? await profiled('A') : undefined;

		// F and B: the same echo behind another trigger, one bot, one trigger published at a time.
		const bot = echoBot(emulator, credentialId);
		await cluster.main.deactivate(workflowId);
		const floorId = await createWorkflow(
			cluster.main,
			echoBehind(bot, { id: '6b1e2d3f-0000-4000-8000-0000000000f2', type: 'n8n-nodes-floor-trigger.floorTrigger', typeVersion: 1, webhookId: FLOOR_WEBHOOK_ID, parameters: {} }),
		);
		await cluster.main.activate(floorId);
		// The floor trigger registers nothing with the service: the bot's webhook is set by hand.
		const setWebhook = await fetch(`${emulator.baseUrl}/bot${emulator.demo.token}/setWebhook`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ url: `${cluster.proxy.url}/webhook/${FLOOR_WEBHOOK_ID}/webhook`, max_connections: 40 }),
		});
		if (!setWebhook.ok) throw new Error(`setWebhook for the floor trigger: ${setWebhook.status} ${await setWebhook.text()}`);
		await echoes(100, 'warm-up F ');
		await measure('(F) floor trigger → echo', 2, 2, () => echoes(updates, 'F '));
		await cluster.main.deactivate(floorId);
		await fetch(`${emulator.baseUrl}/bot${emulator.demo.token}/deleteWebhook`, { method: 'POST' });
		if (profileOfA) {
			const summary = compareProfiles(profileOfA, await profiled('F'), updates);
			process.stdout.write(`\n${summary}\n`);
			writeFileSync(join(outputDir, 'profiles.md'), `${summary}\n`);
			return;
		}

		const telegramId = await telegramCredential(cluster.main, emulator.baseUrl, emulator.demo.token);
		const telegram = echoBehind(bot, {
			id: '6b1e2d3f-0000-4000-8000-0000000000b2',
			type: 'n8n-nodes-base.telegramTrigger',
			typeVersion: 1.2,
			webhookId: TELEGRAM_WEBHOOK_ID,
			parameters: { updates: ['message'], additionalFields: {} },
			credentials: { telegramApi: { id: telegramId, name: 'Telegram (emulator)' } },
		});
		const telegramWorkflowId = await createWorkflow(cluster.main, telegram);
		await cluster.main.activate(telegramWorkflowId);
		await echoes(100, 'warm-up B ');
		await measure("(B) n8n's Telegram Trigger → echo", 2, 2, () => echoes(updates, 'B '));
		await cluster.main.deactivate(telegramWorkflowId);

		const baselineId = await createWorkflow(cluster.main, baselineWorkflow());
		await cluster.main.activate(baselineId);
		const url = `${cluster.proxy.url}/webhook/${BASELINE_PATH}`;
		await callProductionWebhook(cluster, BASELINE_PATH, {});
		const executed = async (count: number): Promise<number> => {
			const before = (await cluster.executions(baselineId)).length;
			await postMany(url, count, 40);
			await finishedExecutions(cluster, baselineId, before + count);
			return count;
		};
		await executed(100);
		await measure('n8n Webhook → No Op', 2, 2, () => executed(updates));

		const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`;
		const report = [
			`Queue mode (n8n 2.41.1, worker concurrency ${WORKER_CONCURRENCY}), ${updates} updates per row. Echo bot: messages from 20 chats pushed by the emulator at max_connections 40, answered when every echo was sent.`,
			'n8n Webhook → No Op: the same number of POSTs, 40 at a time, through the same load balancer, done when every execution finished.',
			`Machine: ${machine}. Cores = CPU seconds of the process and its children per wall-clock second; "not ours" = the rest of the machine (other jobs).`,
			'',
			table(measurements),
			'',
			perKindTable(measurements),
		].join('\n');
		process.stdout.write(`\n${report}\n`);
		writeFileSync(join(outputDir, 'bench-queue.md'), `${report}\n`);
		writeFileSync(join(outputDir, 'bench-queue.json'), JSON.stringify({ machine, measurements }, null, 2));
		process.stdout.write(`\nbench-queue: written to ${join(outputDir, 'bench-queue.md')} and .json\n`);
	} finally {
		await ctx.cleanUp();
		await stopAll();
	}
}
