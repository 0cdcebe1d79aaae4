/**
 * What a restart or a kill of n8n may cost a webhook trigger with Confirm Delivery "When the Run
 * Ends": a burst of messages to a
 * published workflow, n8n stopped with SIGTERM in the middle of one and killed with SIGKILL in the
 * middle of another, each time started again. The service (the emulator) keeps an update until a push
 * of it is answered 2xx and sends it again otherwise, so an update is lost exactly when its push was
 * answered 2xx and its execution never ran to its reply. Each reply names its execution, and each
 * execution's start names the n8n process that ran it: a message may be answered twice only by two
 * processes (the second did not know the first had run it), never twice by one.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';

import type { ScenarioContext } from './lib/context';
import type { EmulatorProcess } from '../real-n8n/emulator-process';
import type { Json, N8n } from '../real-n8n/n8n';
import { waitFor } from '../real-n8n/processes';
import type { Scenario } from './lib/runner';
import { inSequence, sendMessage, webhookTrigger } from './lib/workflow';

const TRIGGER_NAME = 'Bot Trigger';
/** Messages per phase sent while n8n runs, then more while it stops or is down. */
const BURST = 30;
const WHILE_STOPPING = 10;
/** Each reply takes this long at the service, so executions are running when n8n is stopped. */
const REPLY_DELAY_MS = 800;
/** The bound (nodes/ServiceBotTrigger/webhook/answer.ts): a push still running this long is answered anyway. */
const BOUND_MS = 7_000;
/**
 * Pushes at once. With the service's 40, a burst of 30 ran 30 executions at once and their pushes
 * waited 3.4–4.1 s (p50) for their runs' ends on a loaded 2-core machine, close to the bound: a run
 * that outlives the bound is the one loss the option allows, and CI saw one. Ten keep runs short
 * and still leave several running at each signal.
 */
const MAX_CONNECTIONS = 10;

/** The lifetime of one n8n process: from before its start to its exit. */
interface Lifetime {
	name: string;
	from: number;
	to: number;
}

/** Trigger (messages) → Send Message `echo <text> #<execution id>` back to the chat. */
function echoWorkflow(credentialId: string): Json {
	return {
		name: 'Echo across restarts',
		settings: { executionOrder: 'v1' },
		nodes: [
			webhookTrigger({ id: randomUUID(), name: TRIGGER_NAME, position: [0, 0], credentialId, webhookId: randomUUID(), typeVersion: 3, updates: ['message'], options: { maxConnections: MAX_CONNECTIONS } }),
			sendMessage({ id: randomUUID(), name: 'Echo', position: [300, 0], credentialId, chatId: '={{ $json.chat_id }}', text: '=echo {{ $json.chatInput }} #{{ $execution.id }}' }),
		],
		connections: inSequence(TRIGGER_NAME, 'Echo'),
	};
}

/** The bot's echoes in the demo chat: text echoed → the execution ids that sent it, in order. */
async function echoes(emulator: EmulatorProcess): Promise<Map<string, string[]>> {
	const byText = new Map<string, string[]>();
	for (const message of await emulator.history()) {
		const match = message.from?.is_bot === true ? /^echo (.+) #(\d+)$/.exec(message.text ?? '') : null;
		if (!match) continue;
		byText.set(match[1], [...(byText.get(match[1]) ?? []), match[2]]);
	}
	return byText;
}

/** Every reply the service takes from now on is answered `delayMs` late (and then executed). */
async function slowReplies(emulator: EmulatorProcess, delayMs: number, count: number): Promise<void> {
	await fetch(`${emulator.baseUrl}/_emulator/faults`, { method: 'DELETE' });
	const response = await fetch(`${emulator.baseUrl}/_emulator/faults`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ kind: 'delay', method: 'sendMessage', delayMs, count }),
	});
	assert.ok(response.ok, `the delay fault: ${response.status}`);
}

/** n8n started, once more when its first start after a kill fails in its recovery (a known n8n 2.41 failure). */
async function startAgain(ctx: ScenarioContext, n8n: N8n): Promise<void> {
	try {
		await n8n.start();
	} catch (error) {
		ctx.log(`n8n's start failed once (${String(error).split('\n')[0].slice(0, 200)}); starting it again`);
		await n8n.start();
	}
	await n8n.login();
}

/** Each text sent → the update the service made of it (to find its pushes when it goes missing). */
const updateIdOf = new Map<string, number>();

async function sendAll(emulator: EmulatorProcess, texts: string[], gapMs = 0): Promise<void> {
	for (const text of texts) {
		const update = await emulator.userSends(text);
		if (typeof update.update_id === 'number') updateIdOf.set(text, update.update_id);
		if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
	}
}

/** Each text of `texts` not echoed, with every push of its update (sent→answered, what failed), in seconds from `since`. */
async function missingReport(emulator: EmulatorProcess, texts: string[], since: number): Promise<string> {
	const echoed = await echoes(emulator);
	const pushes = await emulator.pushes();
	const pending = new Set((await emulator.pendingUpdates()).map((update) => update.update_id));
	const at = (ms: number): string => `${((ms - since) / 1000).toFixed(1)} s`;
	const missing = texts.filter((text) => !echoed.has(text)).map((text) => {
		const id = updateIdOf.get(text);
		const attempts = pushes.filter((push) => push.updateId === id).map((push) => `${at(push.at)}→${at(push.answeredAt)} ${push.error ?? '2xx'}`);
		return `${text} (update ${id}${pending.has(id) ? ', still held by the service' : ''}): ${attempts.join('; ') || 'never pushed'}`;
	});
	return `missing ${missing.length}:\n  ${missing.join('\n  ')}`;
}

/** Waits until `count` of `texts` are echoed; when it gives up, the error names the missing ones and their pushes. */
async function untilEchoed(emulator: EmulatorProcess, texts: string[], count: number, limitMs: number, since = Date.now()): Promise<void> {
	try {
		await waitFor(`${count} of ${texts.length} messages echoed`, async () => {
			const echoed = await echoes(emulator);
			return texts.filter((text) => echoed.has(text)).length >= count;
		}, { limitMs, intervalMs: 100 });
	} catch (error) {
		throw new Error(`${String(error).replace(/^Error: /, '')}; ${await missingReport(emulator, texts, since)}`);
	}
}

/**
 * Waits until every text is echoed, or the service holds none of them any more and no echo came for
 * `quietMs` (what is missing then was lost: the assertions say which kind).
 */
async function untilSettled(emulator: EmulatorProcess, texts: string[], quietMs: number, limitMs: number): Promise<void> {
	let lastCount = -1;
	let lastChange = Date.now();
	await waitFor(`every message echoed or the service holding none for ${quietMs / 1000} s`, async () => {
		const echoed = await echoes(emulator);
		const count = texts.filter((text) => echoed.has(text)).length;
		if (count === texts.length) return true;
		if (count !== lastCount) {
			lastCount = count;
			lastChange = Date.now();
			return false;
		}
		return Date.now() - lastChange >= quietMs && (await emulator.pendingUpdates()).length === 0;
	}, { limitMs, intervalMs: 200 });
}

const restartsAndKills: Scenario = {
	// Whether a run outlives the 7 s bound at a signal depends on the machine's load.
	alone: true,
	name: 'webhook trigger across a SIGTERM and a SIGKILL in the middle of bursts (version 3, Confirm Delivery at its default): none lost but a run that outlived the 7 s bound, none twice by one n8n process; a push still running at the 7 s bound is answered without an error in n8n\'s log',
	async run(ctx: ScenarioContext) {
		const emulator = await ctx.emulator();
		const n8n = await ctx.n8n();
		const lifetimes: Lifetime[] = [];
		let from = Date.now();
		const t0 = from;
		const sinceStart = (ms = Date.now()): string => `${((ms - t0) / 1000).toFixed(1)} s`;
		await n8n.start();
		await n8n.setupOwner();
		const credentialId = await ctx.createCredential(n8n, emulator);
		const created = await n8n.createWorkflow(echoWorkflow(credentialId));
		const workflowId = String(created.id);
		await n8n.activate(workflowId);
		await waitFor('the bot\'s webhook', async () => ((await emulator.webhook()) ? true : undefined), { limitMs: 60_000 });
		ctx.log('echo workflow published; the bot\'s webhook is set');

		// The bound, in real n8n: a reply that takes 9 s. The push is answered at 7 s while the execution runs.
		await slowReplies(emulator, 9_000, 1);
		const longSent = Date.now();
		await emulator.userSends('long');
		const answeredAfter = await waitFor('the long push to be answered', async () => ((await emulator.pendingUpdates()).length === 0 ? Date.now() - longSent : undefined), { limitMs: 30_000, intervalMs: 100 });
		assert.equal((await echoes(emulator)).has('long'), false, 'the push was answered before the execution ran to its reply');
		assert.ok(answeredAfter >= BOUND_MS - 500, `answered at the bound, not before: after ${answeredAfter} ms`);
		await untilEchoed(emulator, ['long'], 1, 30_000);
		await new Promise((resolve) => setTimeout(resolve, 500));
		assert.doesNotMatch(n8n.serverOutput(), /Error in handling webhook request|Cannot set headers/, 'n8n logged an error for the push answered at the bound');
		ctx.log(`a 9 s execution: its push answered after ${answeredAfter} ms (the bound), the reply came after; n8n logged no error for its own later answer`);

		await slowReplies(emulator, REPLY_DELAY_MS, 100_000);
		const phase = (letter: string, from: number, count: number): string[] => Array.from({ length: count }, (_, index) => `${letter}${from + index}`);

		// SIGTERM in the middle of a burst; messages keep coming while n8n shuts down.
		const first = phase('a', 1, BURST);
		const duringStop = phase('a', BURST + 1, WHILE_STOPPING);
		await sendAll(emulator, first);
		await untilEchoed(emulator, first, 5, 60_000);
		const pid = n8n.serverPid();
		assert.ok(pid, 'n8n runs');
		process.kill(-pid, 'SIGTERM');
		const stoppedAt = Date.now();
		ctx.log(`SIGTERM at ${sinceStart(stoppedAt)}`);
		await sendAll(emulator, duringStop, 100);
		// n8n 2.41.1 does not close its server when it shuts down: a new connection is still served.
		const stillServing = await fetch(`${n8n.baseUrl}/healthz`).then((response) => response.status, (error: unknown) => `refused (${String(error)})`);
		await n8n.exited();
		lifetimes.push({ name: 'first', from, to: Date.now() });
		const firstOutput = n8n.serverOutput();
		const timedOut = /Shutdown timed out/.test(firstOutput);
		const echoedByFirst = [...(await echoes(emulator)).keys()].filter((text) => text.startsWith('a')).length;
		// n8n 2.41.1 keeps serving pushes while it shuts down (answer.ts): each is answered once it has run.
		ctx.log(`SIGTERM with ${BURST} messages sent and some echoed; ${WHILE_STOPPING} more sent while it stopped; n8n exited after ${((Date.now() - stoppedAt) / 1000).toFixed(1)} s${timedOut ? ' (its shutdown timed out)' : ''}, ${echoedByFirst} of ${BURST + WHILE_STOPPING} echoed by then; a new connection to n8n ${WHILE_STOPPING / 10} s into its shutdown: ${stillServing}`);

		// Started again; SIGKILL in the middle of the next burst; more messages while it is down.
		from = Date.now();
		await startAgain(ctx, n8n);
		const second = phase('b', 1, BURST);
		const whileDown = phase('b', BURST + 1, WHILE_STOPPING);
		await sendAll(emulator, second);
		await untilEchoed(emulator, second, 5, 60_000);
		await n8n.kill();
		lifetimes.push({ name: 'second', from, to: Date.now() });
		await sendAll(emulator, whileDown);
		ctx.log(`started again at ${sinceStart(from)}; SIGKILL at ${sinceStart(lifetimes[1].to)} with ${BURST} more messages sent and some echoed; ${WHILE_STOPPING} sent while n8n was down`);

		from = Date.now();
		await startAgain(ctx, n8n);
		ctx.log(`started again at ${sinceStart(from)}, up at ${sinceStart()}`);
		const all = [...first, ...duringStop, ...second, ...whileDown];
		try {
			await untilSettled(emulator, all, 15_000, 240_000);
		} catch (error) {
			// What the third n8n said, for a failure seen only in CI.
			throw new Error(`${String(error).replace(/^Error: /, '')}; ${await missingReport(emulator, all, t0)}\npushes failed by reason: ${JSON.stringify((await emulator.chaos()).pushes.failed)}\nn8n's last lines:\n${n8n.serverOutput().split('\n').slice(-40).join('\n')}`);
		}
		await emulator.idle();
		lifetimes.push({ name: 'third', from, to: Date.now() });
		assert.deepEqual(await emulator.pendingUpdates(), [], 'the service holds nothing back');

		// Which process received each execution's update: by when the execution was created. Not by its
		// start: n8n 2.41 runs, at its next start, an execution the killed process had created and not yet
		// started (`EnqueuedExecutionRecoveryService`), while the service, never answered, sends that update
		// again; both then start in the third process, but the first was the second process's.
		const echoed = await echoes(emulator);
		const executions = await n8n.executionTimes([...echoed.values()].flat());
		const processOf = (id: string): string => {
			const execution = executions.get(id);
			const placed = lifetimes.find((lifetime) => execution !== undefined && execution.createdAt >= lifetime.from - 1000 && execution.createdAt <= lifetime.to + 1000)?.name;
			if (placed) return placed;
			const seen = execution === undefined ? 'not found' : `created ${Number.isNaN(execution.createdAt) ? 'at no time' : new Date(execution.createdAt).toISOString()}`;
			return `unknown (execution ${id}, ${seen}; processes ${lifetimes.map((lifetime) => `${lifetime.name} ${new Date(lifetime.from).toISOString()}–${new Date(lifetime.to).toISOString()}`).join(', ')})`;
		};
		// A run that outlived the bound had its push answered before it ended: the one loss the option
		// allows (answer.ts). Such a loss is named apart, so any other fails the scenario.
		const pushes = await emulator.pushes();
		const answeredAtBound = (text: string): boolean => pushes.some((push) => push.updateId === updateIdOf.get(text) && push.error === null && push.answeredAt - push.at >= BOUND_MS - 100);
		const missing = all.filter((text) => !echoed.has(text));
		const lostAfterBound = missing.filter(answeredAtBound);
		const lost = missing.filter((text) => !answeredAtBound(text));
		const twiceByOne: string[] = [];
		const twiceAcross: string[] = [];
		const unplaced: string[] = [];
		for (const text of all) {
			const byProcess = (echoed.get(text) ?? []).map(processOf);
			// A reply whose execution n8n does not list, or that was created outside every process's lifetime,
			// cannot be told apart: counted as such, never as "two processes".
			if (byProcess.some((name) => name.startsWith('unknown'))) unplaced.push(`${text}: ${byProcess.join(', ')}`);
			if (new Set(byProcess).size !== byProcess.length) twiceByOne.push(`${text}: ${byProcess.join(', ')}`);
			else if (byProcess.length > 1) twiceAcross.push(`${text}: ${byProcess.join(', ')}`);
		}
		const listed = await n8n.executions(workflowId, 100);
		const crashed = listed.filter((execution) => execution.status === 'crashed').length;
		const held = pushes.filter((push) => push.error === null).map((push) => push.answeredAt - push.at).sort((a, b) => a - b);
		ctx.log(`pushes failed by reason: ${JSON.stringify((await emulator.chaos()).pushes.failed)}; answered 2xx after p50 ${held[Math.floor(held.length / 2)]} ms, max ${held.at(-1)} ms, ${held.filter((ms) => ms >= BOUND_MS - 100).length} at the bound`);
		ctx.log(
			`${all.length} messages: ${lost.length} lost, ${lostAfterBound.length} lost after their push was answered at the bound (${lostAfterBound.join(', ') || 'none'}), ${twiceByOne.length} answered twice by one process, ${twiceAcross.length} answered by two processes (${twiceAcross.join('; ') || 'none'}); ${listed.length} executions (newest 100 listed), ${crashed} of them marked crashed`,
		);
		assert.deepEqual(lost, [], `no message lost (${lost.length ? await missingReport(emulator, lost, t0) : ''})`);
		assert.deepEqual(twiceByOne, [], 'no message answered twice by one n8n process');
		assert.deepEqual(unplaced, [], 'every reply was sent by an execution of a known n8n process');
	},
};

export const RESTART_SCENARIOS: Scenario[] = [restartsAndKills];
