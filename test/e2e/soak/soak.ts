/**
 * One soak run: three workflows on one bot in real n8n (trigger → Send Message `<workflow name>: <text>`
 * to the chat the update came from, both fields expressions on the trigger's data), the emulator failing a
 * share of its answers (test/emulator/chaos.ts) and re-sending pushes n8n did not take, users sending
 * messages at a steady rate, and n8n's processes stopped with SIGTERM every few seconds (and SIGKILLed) and
 * started again. What it runs against (one n8n in regular mode, or a queue-mode cluster) and how a process is
 * restarted are the targets' (./target.ts, ./queue.ts); what it recorded becomes the figures of ./figures.ts.
 *
 * One file (about 345 lines) on purpose: the sending, the restarts and the waits for replies are one
 * timeline (each part of the messages waits for its restart, a kill waits for its burst's replies), which
 * reads best in one function.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { DEMO_CREDENTIAL_NAME } from '../../dev/demo';
import { EmulatorProcess } from '../../real-n8n/emulator-process';
import type { ChaosView, WebhookView } from '../../real-n8n/emulator-process';
import type { N8nInstall } from '../../real-n8n/install';
import type { Json } from '../../real-n8n/n8n';
import { sleep, waitFor } from '../../real-n8n/processes';
import { inSequence, pollingTrigger, sendMessage, webhookTrigger } from '../lib/workflow';
import { computeFigures } from './figures';
import type { Figures, Reply, SentUpdate } from './figures';
import { QueueTarget } from './queue';
import { RegularTarget } from './target';
import type { RestartRecord, SoakMode, SoakTarget } from './target';

export type TriggerKind = 'webhook' | 'polling';

/** The webhook trigger's Confirm Delivery (its option values; `whenStarted` is its default). */
export type ConfirmDelivery = 'whenStarted' | 'afterRun';

export interface SoakOptions {
	trigger: TriggerKind;
	/** regular: one n8n process; queue: main, 2 workers, 1 webhook process on Postgres and Redis (./queue.ts) */
	mode: SoakMode;
	/** the webhook trigger's Confirm Delivery */
	confirmDelivery: ConfirmDelivery;
	/** updates users send in all (the burst's included) */
	updates: number;
	/** updates per second in the steady part */
	rate: number;
	/** updates sent at once first, before any restart, to measure the shared bot's throughput */
	burst: number;
	/** seconds between restarts of n8n during the steady part (0: none) */
	restartEvery: number;
	/** the second restart (the only one, if there is one) is a SIGKILL instead of a SIGTERM */
	killOnce: boolean;
	/** share of the service's answers that fail (0–1) */
	chaosRate: number;
	seed: number;
	/** the webhook triggers' Max Connections (how many pushes the service sends at once) */
	maxConnections: number;
	/** chats the messages come from, round-robin */
	chats: number;
	/** after the last update, how long without a new reply ends the wait for the rest */
	drainQuietMs: number;
	settleMs: number;
	delayLimitMs: number;
	/** polling: the wait after publishing before the first message (the triggers join the bot's feed) */
	joinWaitMs: number;
	dir: string;
	install: N8nInstall;
	tarball: string;
	log: (message: string) => void;
}

export interface SoakResult {
	options: Omit<SoakOptions, 'install' | 'tarball' | 'log'>;
	figures: Figures;
	/** the burst: updates / seconds from its first message to its last reply */
	throughput: { updates: number; seconds: number; updatesPerSecond: number; repliesPerSecond: number; complete: boolean } | null;
	restarts: RestartRecord[];
	chaos: ChaosView;
	/** n8n's log lines that matter here, counted over every process */
	n8nLog: Record<string, number>;
	seconds: number;
	/** the machine's load average (1 min) at the start and the end */
	load: [number, number];
	/** the highest load average (1 min) seen while it ran, read every second */
	loadMax: number;
}

export const WORKFLOWS = ['Soak A', 'Soak B', 'Soak C'] as const;
const TRIGGER_NAME = 'Bot Trigger';
/** A reply: `<workflow>: <text> #<execution id>` (the execution tells which n8n process received the update). */
const REPLY = /^(Soak [ABC]): (soak-\d+) #(\d+)$/;

/** Trigger (version 2: `chat_id` and `text` on the item) → Send Message `<workflow name>: <text> #<execution id>` to the chat it came from. */
function soakWorkflow(name: string, trigger: TriggerKind, credentialId: string, maxConnections: number, confirmDelivery: ConfirmDelivery): Json {
	// The option's default is not written into the workflow, as the editor leaves it out.
	const confirm = confirmDelivery === 'whenStarted' ? {} : { confirmDelivery };
	const placed = { id: randomUUID(), name: TRIGGER_NAME, position: [0, 0] as [number, number], credentialId, typeVersion: 2 as const, updates: ['message'] };
	return {
		name,
		settings: { executionOrder: 'v1' },
		nodes: [
			trigger === 'webhook' ? webhookTrigger({ ...placed, webhookId: randomUUID(), options: { maxConnections, ...confirm } }) : pollingTrigger(placed),
			sendMessage({ id: randomUUID(), name: 'Reply', position: [300, 0], credentialId, chatId: '={{ $json.chat_id }}', text: '={{ $workflow.name }}: {{ $json.text }} #{{ $execution.id }}' }),
		],
		connections: inSequence(TRIGGER_NAME, 'Reply'),
	};
}

/** How many workflows the bot's webhook names (its listener list, or one). */
function listenerCount(hook: WebhookView | null): number {
	if (!hook || !hook.url) return 0;
	const list = new URL(hook.url).searchParams.get('service-bot-listeners');
	return list === null ? 1 : list.split(',').length;
}

function loadAverage(): number {
	return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
}

/** n8n log lines counted in the result: what n8n says about shutdowns and executions it gave up. */
const LOG_MARKERS: Record<string, RegExp> = {
	'shutdown timed out': /Shutdown timed out/,
	'unfinished executions found at start': /Found unfinished executions/,
	'executions marked crashed': /[Mm]arked executions as .?crashed/,
	'duplicate deduplication key': /duplicate deduplication key/,
	'problem with execution': /Problem with execution/,
};

function countLogMarkers(dirs: string[]): Record<string, number> {
	const counts: Record<string, number> = Object.fromEntries(Object.keys(LOG_MARKERS).map((name) => [name, 0]));
	for (const dir of dirs) {
		for (const file of readdirSync(dir)) {
			if (!file.endsWith('.log')) continue;
			for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
				for (const [name, pattern] of Object.entries(LOG_MARKERS)) if (pattern.test(line)) counts[name] += 1;
			}
		}
	}
	return counts;
}

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
	const { log } = options;
	const started = Date.now();
	const load0 = loadAverage();
	let loadMax = load0;
	const loadWatch = setInterval(() => {
		loadMax = Math.max(loadMax, loadAverage());
	}, 1000);
	const emulator = await EmulatorProcess.start({
		logFile: join(options.dir, 'emulator.log'),
		// Telegram re-sends with growing waits; capped at 4 s here so a restart's backlog is not also a backoff.
		retryBaseMs: 250,
		args: ['--webhook-retry-max-ms', '4000'],
	});
	const target: SoakTarget = options.mode === 'queue' ? new QueueTarget(options.dir, options.install, options.tarball, options.trigger === 'webhook' ? 'webhook-1' : 'main') : new RegularTarget(options.dir, options.install, options.tarball);
	const { processes } = target;
	try {
		// The chats the users write from: the demo private chat and more, one user each.
		const chats: Array<{ chatId: string; userId: string }> = [{ chatId: emulator.demo.privateChatId, userId: emulator.demo.userId }];
		for (let i = 1; i < options.chats; i++) {
			const { userId } = await emulator.addUser(`Soak user ${i}`);
			chats.push({ chatId: (await emulator.addPrivateChat(userId)).chatId, userId });
		}

		await target.start(emulator.baseUrl);
		log(`n8n (${options.mode} mode) ready in ${((processes[0].readyAt - processes[0].startedAt) / 1000).toFixed(1)} s; emulator at ${emulator.baseUrl}`);
		const api = target.api();
		const credential = await api.request('POST', '/rest/credentials', {
			name: DEMO_CREDENTIAL_NAME,
			type: 'serviceBotApi',
			data: { accessToken: emulator.demo.token, baseUrl: target.serviceBaseUrl(emulator.baseUrl) },
		});
		for (const [index, name] of WORKFLOWS.entries()) {
			const created = await api.createWorkflow(soakWorkflow(name, options.trigger, String(credential.id), options.maxConnections, options.confirmDelivery));
			await api.activate(String(created.id));
			if (options.trigger === 'webhook') {
				await waitFor(`"${name}" to join the bot's webhook`, async () => listenerCount(await emulator.webhook()) === index + 1, { limitMs: 60_000 });
			}
		}
		// n8n answers the publish before a polling trigger has joined the bot's feed: messages sent at once after
		// it are not that workflow's (measured apart: README). The soak measures restarts, so it lets them join.
		if (options.trigger === 'polling') await sleep(options.joinWaitMs);
		log(`three ${options.trigger} workflows published on one bot${options.trigger === 'webhook' ? ` (max_connections ${(await emulator.webhook())?.maxConnections ?? '?'})` : ''}`);
		if (options.chaosRate > 0) await emulator.setChaos(options.chaosRate, options.seed);
		log(`chaos: ${Math.round(options.chaosRate * 100)}% of the service's answers fail (seed ${options.seed})`);

		const sent: SentUpdate[] = [];
		let counter = 0;
		const send = async (): Promise<void> => {
			counter += 1;
			const text = `soak-${counter}`;
			const chat = chats[counter % chats.length];
			const sentAt = Date.now();
			const update = await emulator.userSends(text, chat.chatId, chat.userId);
			sent.push({ text, sentAt, updateId: Number(update.update_id) });
		};
		const replies = async (): Promise<Array<Reply & { executionId: string; wholeText: string }>> => {
			const out: Array<Reply & { executionId: string; wholeText: string }> = [];
			// A sendMessage the service executed: answered 200, or (status 0) executed after a slow answer n8n stopped waiting for.
			for (const call of await emulator.calls('sendMessage')) {
				const sentText = String(call.body.text ?? '');
				const match = REPLY.exec(sentText);
				if (match && (call.status === 200 || call.status === 0)) out.push({ workflow: match[1], text: match[2], at: Number(call.at), executionId: match[3], wholeText: sentText });
			}
			return out;
		};
		/** The replies, each with when n8n created its execution (figures.ts places a reply by it). */
		const placedReplies = async (): Promise<Reply[]> => {
			const all = await replies();
			// n8n was restarted since the set-up: its REST API wants a new session.
			const api = target.api();
			await api.login();
			const times = await api.executionTimes(all.map((reply) => reply.executionId));
			return all.map(({ wholeText, ...reply }) => {
				const createdAt = times.get(reply.executionId)?.createdAt;
				const placed: Reply = { ...reply, createdAt: createdAt !== undefined && Number.isFinite(createdAt) ? createdAt : undefined, ranBy: target.runnerOf(wholeText) };
				const receiver = target.receiverOf(placed);
				return receiver === undefined ? placed : { ...placed, process: receiver };
			});
		};
		const pairsAnswered = (list: Reply[], texts: Set<string>): number => new Set(list.filter((r) => texts.has(r.text)).map((r) => `${r.workflow}:${r.text}`)).size;

		// 1. The burst: the shared bot's throughput, with chaos and without restarts.
		let throughput: SoakResult['throughput'] = null;
		if (options.burst > 0) {
			const from = Date.now();
			for (let i = 0; i < options.burst; i++) await send();
			const texts = new Set(sent.map((u) => u.text));
			const wanted = texts.size * WORKFLOWS.length;
			let lastAt = from;
			let answered = 0;
			let lastProgress = Date.now();
			// Until every reply is in, or none came for drainQuietMs: a reply lost here is counted as lost at the end.
			for (;;) {
				const list = (await replies()).filter((r) => texts.has(r.text));
				lastAt = Math.max(from, ...list.map((r) => r.at));
				const now = pairsAnswered(list, texts);
				if (now > answered) {
					answered = now;
					lastProgress = Date.now();
				}
				if (answered >= wanted || Date.now() - lastProgress > options.drainQuietMs) break;
				await sleep(500);
			}
			if (answered < wanted) log(`burst: only ${answered} of ${wanted} replies came (none for ${options.drainQuietMs / 1000} s); going on`);
			const seconds = (lastAt - from) / 1000;
			throughput = { updates: options.burst, seconds, updatesPerSecond: options.burst / seconds, repliesPerSecond: answered / seconds, complete: answered >= wanted };
			log(`burst: ${options.burst} updates → ${answered} of ${wanted} replies in ${seconds.toFixed(1)} s (${throughput.updatesPerSecond.toFixed(2)} updates/s)`);
		}

		// 2. The steady part: messages at `rate` per second while n8n is restarted every `restartEvery` seconds.
		const restarts: SoakResult['restarts'] = [];
		const steadyStart = Date.now();
		const remaining = options.updates - options.burst;
		// The restarts: one per `restartEvery` seconds of nominal sending (updates / rate), at least one; with
		// --kill-once at least two, the second a SIGKILL (a SIGTERM restart comes first).
		const nominalSeconds = remaining / options.rate;
		const restartCount = options.restartEvery > 0 ? Math.max(target.minimumRestarts(options.killOnce), Math.floor(nominalSeconds / options.restartEvery)) : 0;
		// The updates go out in restartCount + 1 equal parts at `rate`; a part sent before its restart came waits for
		// that restart's signal, so every restart has updates on their way around it however long restarts take.
		// A kill the target wants mid-burst (queue mode) instead gets its part at once, and comes once a quarter
		// of that part's replies arrived (at most 20 s later), so that it hits executions running and queued.
		const signalled: Array<() => void> = [];
		const signals = Array.from({ length: restartCount }, () => new Promise<void>((resolve) => signalled.push(resolve)));
		const partDone: Array<() => void> = [];
		const partsDone = Array.from({ length: restartCount + 1 }, () => new Promise<void>((resolve) => partDone.push(resolve)));
		const sending = (async () => {
			let next = Date.now();
			for (let part = 0; part <= restartCount; part++) {
				const size = Math.floor(((part + 1) * remaining) / (restartCount + 1)) - Math.floor((part * remaining) / (restartCount + 1));
				const atOnce = part > 0 && target.killsMidBurst(part, options.killOnce);
				for (let i = 0; i < size; i++) {
					if (!atOnce && next > Date.now()) await sleep(next - Date.now());
					next = Math.max(next, Date.now() - 1000) + 1000 / options.rate;
					await send();
				}
				partDone[part]();
				if (part < restartCount) await signals[part];
			}
		})();
		for (let k = 1; k <= restartCount; k++) {
			// On schedule, but never before the last process started has been up for 10 s (a restart can take longer than the interval).
			const at = Math.max(steadyStart + k * options.restartEvery * 1000, Math.max(...processes.map((p) => p.readyAt)) + 10_000);
			if (at > Date.now()) await sleep(at - Date.now());
			signalled[k - 1]();
			if (target.killsMidBurst(k, options.killOnce)) {
				const before = sent.length;
				await partsDone[k];
				const part = new Set(sent.slice(before).map((u) => u.text));
				const quarter = Math.ceil((part.size * WORKFLOWS.length) / 4);
				const until = Date.now() + 20_000;
				while (pairsAnswered(await replies(), part) < quarter && Date.now() < until) await sleep(100);
			}
			const record = await target.restart(k, options.killOnce, started);
			restarts.push(record);
			log(`${record.by} to ${record.role} at ${(record.atSecond - (steadyStart - started) / 1000).toFixed(0)} s of the steady part: exited after ${record.exitSeconds.toFixed(1)} s, ready again ${record.downSeconds.toFixed(1)} s after the signal`);
		}
		await sending;
		// Runs a restart lost that n8n hands back late (queue mode: a worker's) are waited for, whatever the quiet says.
		const lateRunsBy = Math.max(0, ...restarts.map((record) => started + record.atSecond * 1000 + target.lateRunsWithinMs(record)));
		const lateWait = lateRunsBy > Date.now() ? ` and at least ${((lateRunsBy - Date.now()) / 1000).toFixed(0)} s, for runs n8n hands back late` : '';
		log(`all ${sent.length} updates sent; waiting for the replies (until ${options.drainQuietMs / 1000} s pass without one${lateWait})`);

		// 3. The rest of the replies: until every pair is answered, or none came for drainQuietMs.
		const texts = new Set(sent.map((u) => u.text));
		const wanted = texts.size * WORKFLOWS.length;
		let answered = 0;
		let lastProgress = Date.now();
		for (;;) {
			const now = pairsAnswered(await replies(), texts);
			if (now > answered) {
				answered = now;
				lastProgress = Date.now();
			}
			// Even with every reply in: a run handed back late may reply a second time (twice across processes).
			if ((answered >= wanted || Date.now() - lastProgress > options.drainQuietMs) && Date.now() >= lateRunsBy) break;
			await sleep(1000);
		}
		// Copies still due (re-sent pushes, updates polled again) get a last moment to run twice, if they would.
		await sleep(Math.min(10_000, options.drainQuietMs));
		const placed = await placedReplies();
		const figures = computeFigures(sent, placed, processes, { workflows: [...WORKFLOWS], settleMs: options.settleMs, delayLimitMs: options.delayLimitMs });
		const chaos = await emulator.chaos();
		// The raw records, to look into a figure afterwards (which process sent what, when each push was tried).
		writeFileSync(
			join(options.dir, 'records.json'),
			JSON.stringify({
				processes,
				sent,
				replies: placed,
				pushes: await emulator.pushes(),
				sendMessageCalls: (await emulator.calls('sendMessage')).map(({ seq, status, at, body }) => ({ seq, status, at, chat_id: body.chat_id, text: body.text })),
				...(await target.records()),
			}),
		);
		const logDirs = target.logDirs();
		await target.stop();
		const shown: SoakResult['options'] = { ...options };
		for (const key of ['install', 'tarball', 'log']) delete (shown as Record<string, unknown>)[key];
		return {
			options: shown,
			figures,
			throughput,
			restarts,
			chaos,
			n8nLog: countLogMarkers(logDirs),
			seconds: (Date.now() - started) / 1000,
			load: [load0, loadAverage()],
			loadMax,
		};
	} finally {
		clearInterval(loadWatch);
		await target.stop();
		await emulator.stop();
	}
}
