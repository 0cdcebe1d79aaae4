/**
 * The Service Bot Polling Trigger through n8n-core's real TriggerContext against the
 * emulator: order, filters, the offset across restarts and crashes, conflicts, rate limits, a refused
 * token, network faults, deactivation with an open long poll, and the editor's test.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { ServiceBotPollingTrigger } from '../../../nodes/ServiceBotPollingTrigger/ServiceBotPollingTrigger.node';
import { POLL_TIMING } from '../../../nodes/ServiceBotPollingTrigger/feed';
import type { Emulator, RecordedCall } from '../../emulator';
import type { RunningTrigger, TriggerHarness } from '../../harness';
import { findLeak } from '../../hardening/secrecy';
import { api, freshNodeType, inNewProcess, makeHarness, sendButton } from '../../harness/trigger-nodes';
import { SHORT_POLL_WAITS, fetchedUpdate, useEmulator, type LogSpy } from '../../harness/emulator-suite';
import { n8nRetries } from '../../harness/publish-errors';

let emu: Emulator;
let logs: LogSpy;
const running: RunningTrigger[] = [];
useEmulator({ running, started: (started) => (emu = started), logging: (spy) => (logs = spy), pollWaits: SHORT_POLL_WAITS });
// Waits a test sets for itself.
afterEach(() => jest.restoreAllMocks());

async function pollingHarness(parameters: INodeParameters = { updates: ['*'], options: {} }, token?: string): Promise<TriggerHarness> {
	return await makeHarness(emu, { nodeType: new ServiceBotPollingTrigger(), parameters, token });
}

async function start(harness: TriggerHarness, options?: Parameters<TriggerHarness['startTrigger']>[0]): Promise<RunningTrigger> {
	const trigger = await harness.startTrigger(options);
	running.push(trigger);
	return trigger;
}

function emittedJson(trigger: RunningTrigger): IDataObject[] {
	return trigger.emitted.map((run) => {
		expect(run[0]).toHaveLength(1);
		return run[0][0].json;
	});
}

const polls = (): RecordedCall[] => emu.callsTo('getUpdates');

/** Resolves once the trigger has a getUpdates request open at the emulator (no answer yet). */
async function waitingPoll(): Promise<RecordedCall> {
	for (;;) {
		const open = polls().find((call) => call.status === 0 && call.response === null);
		if (open) return open;
		await new Promise((resolve) => setImmediate(resolve));
	}
}

async function say(text: string, chatId = emu.demo.privateChatId, userId = emu.demo.userId): Promise<number> {
	return (await emu.userSends({ chatId, userId, text })).update_id;
}

describe('delivery', () => {
	test('messages and clicks arrive in order, one execution each, exactly as the service sent them', async () => {
		const trigger = await start(await pollingHarness());
		const messageId = await sendButton(emu, emu.demo.groupChatId, 'vote:yes');
		const updates = [
			await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'one' }),
			await emu.userClicks({ chatId: emu.demo.groupChatId, userId: emu.demo.otherUserId, messageId, data: 'vote:yes' }),
			await emu.userSends({ chatId: emu.demo.groupChatId, userId: emu.demo.userId, text: 'three' }),
		];
		await trigger.waitForEmits(3);
		expect(emittedJson(trigger)).toEqual(updates);
		// The service was asked with a long poll, the types chosen, and an offset acknowledging each batch.
		const first = polls()[0].body;
		expect(first).toMatchObject({ timeout: 45, limit: 100, allowed_updates: ['message', 'callback_query'] });
		expect(first).not.toHaveProperty('offset');
		await waitingPoll();
		expect(polls().at(-1)?.body.offset).toBe(updates[2].update_id + 1);
		expect(emu.pendingUpdates()).toEqual([]);
		expect(emu.webhookOf()).toBeNull();
	});

	test('filters and handy fields are the webhook trigger\'s: dropped updates are acknowledged, not run', async () => {
		const trigger = await start(
			await pollingHarness({ updates: ['message'], options: { chatIds: emu.demo.groupChatId, addHandyFields: true } }),
		);
		await say('private: dropped');
		await say('group: runs', emu.demo.groupChatId);
		await trigger.waitForEmits(1);
		await waitingPoll();
		expect(emittedJson(trigger)).toEqual([
			expect.objectContaining({ update_type: 'message', chat_id: emu.demo.groupChatId, user_id: emu.demo.userId, text: 'group: runs', callback_data: null }),
		]);
		// Clicks too: answers to a Send and Wait for Response are clicks.
		expect(polls()[0].body.allowed_updates).toEqual(['message', 'callback_query']);
		expect(emu.pendingUpdates()).toEqual([]);
	});
});

describe('the offset (acknowledgement) across restarts', () => {
	/** A published trigger whose n8n dies (`when`) at its first emit, of the update of `text`; stopped. */
	async function diesAtFirstEmit(when: 'before' | 'after' | 'executionOnly' | 'staticDataOnly', text: string): Promise<{ harness: TriggerHarness; dying: RunningTrigger; id: number }> {
		const harness = await pollingHarness();
		const dying = await start(harness, { dieAtEmit: { emit: 1, when } });
		const id = await say(text);
		await dying.waitForEmits(1); // resolves when n8n "died"
		await dying.close();
		return { harness, dying, id };
	}

	test('a restart (deactivate, activate: a new context on the saved static data) neither loses nor repeats updates', async () => {
		const harness = await pollingHarness();
		const first = await start(harness);
		const before = [await say('a'), await say('b')];
		await first.waitForEmits(2);
		await first.close();

		// While the trigger is off, updates queue at the service.
		const during = [await say('c'), await say('d')];
		const second = await start(harness);
		await second.waitForEmits(2);
		await waitingPoll();
		expect(emittedJson(first).map((update) => update.update_id)).toEqual(before);
		expect(emittedJson(second).map((update) => update.update_id)).toEqual(during);
		expect(polls().find((call) => call.seq > polls()[0].seq && call.body.offset === before[1] + 1)).toBeDefined();
	});

	test('n8n dying between fetch and emit: the update arrives after the restart', async () => {
		const { harness, dying, id } = await diesAtFirstEmit('before', 'fetched, never emitted');
		expect(dying.emitted).toEqual([]);
		// Fetched, but not acknowledged: the service still has it.
		expect(polls().some((call) => (call.response as { result?: unknown[] } | null)?.result?.length === 1)).toBe(true);
		expect(emu.pendingUpdates().map((update) => update.update_id)).toEqual([id]);

		const restarted = await start(await inNewProcess(emu, harness));
		await restarted.waitForEmits(1);
		expect(emittedJson(restarted).map((update) => update.update_id)).toEqual([id]);
	});

	test('n8n killed right after the execution ran, before the service was told: the restarted n8n fetches the update again and runs it once more (twice across two processes, the price of never losing a crashed one)', async () => {
		const { harness, dying, id } = await diesAtFirstEmit('after', 'emitted once');
		// The next getUpdates never happened: the service has not been told yet.
		expect(emu.pendingUpdates().map((update) => update.update_id)).toEqual([id]);

		const lastBefore = polls().at(-1)?.seq ?? 0;
		const restarted = await start(await inNewProcess(emu, harness));
		const next = await say('after the restart');
		await restarted.waitForEmits(2);
		await waitingPoll();
		// The saved offset still includes the update (n8n might have been killed before creating its execution)…
		expect(polls().filter((call) => call.seq > lastBefore)[0].body.offset).toBe(id);
		expect(emittedJson(dying).map((update) => update.update_id)).toEqual([id]);
		expect(restarted.refused).toEqual([]);
		expect(emittedJson(restarted).map((update) => update.update_id)).toEqual([id, next]);
		expect(emu.pendingUpdates()).toEqual([]);
	});

	test('an execution n8n crashed at a kill (created, never finished, its deduplication key in the database) runs again in the restarted n8n, once', async () => {
		// 'executionOnly': n8n created the execution (its key is recorded) and died before it finished: its done promise never settles.
		const { harness, dying, id } = await diesAtFirstEmit('executionOnly', 'crashed with n8n');
		expect(emittedJson(dying).map((update) => update.update_id)).toEqual([id]);
		// Not confirmed, so the service still holds it.
		expect(emu.pendingUpdates().map((update) => update.update_id)).toEqual([id]);

		const restarted = await start(await inNewProcess(emu, harness));
		const next = await say('after the restart');
		await restarted.waitForEmits(2);
		await waitingPoll();
		// n8n 2.41 refuses any key that has an execution, a crashed one included: the new process's key is another.
		expect(restarted.refused).toEqual([]);
		expect(emittedJson(restarted).map((update) => update.update_id)).toEqual([id, next]);
		expect(emu.pendingUpdates()).toEqual([]);
	});

	test('fetched again within the same n8n process (n8n activates the workflow again after an error), an update whose execution exists does not run again', async () => {
		const { harness, dying, id } = await diesAtFirstEmit('executionOnly', 'one execution only');
		expect(emittedJson(dying).map((update) => update.update_id)).toEqual([id]);
		expect(emu.pendingUpdates().map((update) => update.update_id)).toEqual([id]);

		// The same modules (this process), the same static data and executions.
		const again = await start(harness);
		const next = await say('after the new activation');
		await again.waitForEmits(1);
		await waitingPoll();
		// The process's duplicate window skips it; were it emitted, its deduplication key (this process's) would be refused.
		expect([...emittedJson(dying), ...emittedJson(again)].map((update) => update.update_id)).toEqual([id, next]);
		expect(emu.pendingUpdates()).toEqual([]);
	});

	test('n8n dying after the offset was saved but before the execution was created: the update runs after the restart', async () => {
		const { harness, dying, id } = await diesAtFirstEmit('staticDataOnly', 'saved, never run');
		expect(dying.emitted).toEqual([]);
		expect(emu.pendingUpdates().map((update) => update.update_id)).toEqual([id]);

		const restarted = await start(await inNewProcess(emu, harness));
		await restarted.waitForEmits(1);
		expect(emittedJson(restarted).map((update) => update.update_id)).toEqual([id]);
		expect(restarted.refused).toEqual([]);
	});

	/** Resolves once the emulator got a getUpdates after the one with sequence number `seq`. */
	async function pollAfter(seq: number): Promise<RecordedCall> {
		for (;;) {
			const later = polls().find((call) => call.seq > seq);
			if (later) return later;
			await new Promise((resolve) => setTimeout(resolve, 5));
		}
	}

	test('n8n killed while the executions of emitted updates are still being created: the service was not told they are done, and each runs once after the restart', async () => {
		const harness = await pollingHarness();
		const dying = await start(harness, { executions: 'whenAsked' });
		const ids = [await say('one'), await say('two'), await say('three')];
		while (dying.emits < ids.length) await new Promise((resolve) => setTimeout(resolve, 5));
		const fetched = polls().filter((call) => ((call.response as { result?: unknown[] } | null)?.result?.length ?? 0) > 0).at(-1);
		// The trigger asks the service again while n8n is still creating the three executions…
		const next = await pollAfter(fetched?.seq ?? 0);
		// …without telling it that they are done.
		expect(next.body.offset).toBe(ids[0]);
		dying.kill();
		expect(dying.emitted).toEqual([]);
		expect(emu.pendingUpdates().map((update) => update.update_id)).toEqual(ids);

		const restarted = await start(await inNewProcess(emu, harness));
		await restarted.waitForEmits(3);
		await waitingPoll();
		expect(emittedJson(restarted).map((update) => update.update_id)).toEqual(ids);
		expect(restarted.refused).toEqual([]);
		expect(emu.pendingUpdates()).toEqual([]);
	});

	test('once n8n has created and run the executions, the service is told the updates are done and the long poll resumes', async () => {
		const trigger = await start(await pollingHarness(), { executions: 'whenAsked' });
		const ids = [await say('one'), await say('two')];
		while (trigger.emits < ids.length) await new Promise((resolve) => setTimeout(resolve, 5));
		trigger.createExecutions();
		const open = await waitingPoll();
		expect(open.body).toMatchObject({ offset: ids[1] + 1, timeout: 45 });
		expect(emittedJson(trigger).map((update) => update.update_id)).toEqual(ids);
		expect(emu.pendingUpdates()).toEqual([]);
	});

	test('an execution n8n has not confirmed holds the acknowledgement back, not the updates after it: they run meanwhile, and after the confirmation wait the service is told', async () => {
		jest.replaceProperty(POLL_TIMING, 'confirmWithinMs', 400);
		const trigger = await start(await pollingHarness(), { executions: 'whenAsked' });
		const first = await say('slow to start');
		while (trigger.emits < 1) await new Promise((resolve) => setTimeout(resolve, 5));
		const later = await say('meanwhile');
		while (trigger.emits < 2) await new Promise((resolve) => setTimeout(resolve, 5));
		// The second update was fetched and emitted while the first was still unconfirmed, with the offset held at the first.
		expect(polls().filter((call) => call.body.offset === first).length).toBeGreaterThan(0);
		expect(polls().some((call) => call.body.offset === later)).toBe(false);
		// After the wait the trigger gives up on the confirmation (the execution exists by then, or never will) and moves on.
		const open = await waitingPoll();
		expect(open.body.offset).toBe(later + 1);
		expect(emu.pendingUpdates()).toEqual([]);
		trigger.createExecutions();
		expect(emittedJson(trigger).map((update) => update.update_id)).toEqual([first, later]);
	});

	test('an offset of another bot is never sent to this one', async () => {
		const harness = await pollingHarness();
		harness.staticData['node:Service Bot Polling Trigger'] = { pollingOffset: { bot: 'another-bot', offset: 999 } };
		const trigger = await start(harness);
		const id = await say('first');
		await trigger.waitForEmits(1);
		expect(polls()[0].body).not.toHaveProperty('offset');
		expect(emittedJson(trigger).map((update) => update.update_id)).toEqual([id]);
	});
});

describe('conflicts', () => {
	test('a webhook at activation: activation fails naming it and the choices; "Delete Existing Webhook" removes it', async () => {
		await api(emu, 'setWebhook', { url: `http://127.0.0.1:9/hook/${emu.demo.token}?key=theirs`, secret_token: 'theirs' });
		const failure = await (await pollingHarness()).startTrigger().then(
			() => undefined,
			(error: unknown) => error as Error,
		);
		expect(failure?.message).toMatch(/^The bot has a webhook \(http:\/\/127\.0\.0\.1:9\/hook\/\*\*\*\?…\), and a bot with a webhook cannot be polled\./);
		expect(failure?.message).toContain('use the Service Bot Trigger (webhook delivery) instead');
		expect(failure?.message).toContain('turn on "Delete Existing Webhook"');
		expect(failure?.message).not.toContain(emu.demo.token);
		expect(emu.webhookOf()?.url).toContain('127.0.0.1:9');
		expect(polls()).toHaveLength(0);

		const trigger = await start(await pollingHarness({ updates: ['*'], options: { deleteExistingWebhook: true } }));
		expect(emu.webhookOf()).toBeNull();
		expect(logs.messages('warn').join('\n')).toContain('deleting the bot\'s webhook (http://127.0.0.1:9/hook/***?…)');
		const id = await say('polled now');
		await trigger.waitForEmits(1);
		expect(emittedJson(trigger).map((update) => update.update_id)).toEqual([id]);
	});

	test('a webhook set while polling stops the trigger with emitError naming it', async () => {
		const trigger = await start(await pollingHarness());
		await waitingPoll();
		await api(emu, 'setWebhook', { url: 'http://127.0.0.1:9/late-webhook' });
		await trigger.waitForEmits();
		expect(trigger.errors.map((error) => error.message)).toEqual([expect.stringMatching(/^The bot has a webhook \(http:\/\/127\.0\.0\.1:9\/late-webhook\)/)]);
		expect(trigger.closed).toBe(true);
	});

	test('a second poller: retried with backoff; reported through emitError only while it lasts', async () => {
		jest.replaceProperty(POLL_TIMING, 'conflictReportMs', 400);
		const trigger = await start(await pollingHarness());
		await waitingPoll();
		// Another consumer takes the bot over a few times, then stops: ours carries on.
		for (let round = 0; round < 3; round++) {
			expect((await api(emu, 'getUpdates', { timeout: 0 })).ok).toBe(true);
			await waitingPoll();
		}
		const id = await say('still ours');
		await trigger.waitForEmits(1);
		expect(trigger.errors).toEqual([]);
		expect(emittedJson(trigger).map((update) => update.update_id)).toEqual([id]);

		// A consumer that never stops: ours reports it once conflicts have lasted conflictReportMs.
		let stop = false;
		const other = (async () => {
			while (!stop) await api(emu, 'getUpdates', { timeout: 1 });
		})();
		await trigger.waitForEmits(99);
		stop = true;
		await other;
		expect(trigger.errors.map((error) => error.message)).toEqual([
			'Another consumer is polling this bot (another n8n, or another program with this bot token). A bot serves one poller at a time, and the workflows of one n8n share it: stop the other consumer, or use another bot',
		]);
		expect(trigger.closed).toBe(true);
	});
});

describe('several workflows poll one bot: one consumer for the bot, each workflow its own updates', () => {
	async function published(workflowName: string, parameters: INodeParameters = { updates: ['*'], options: {} }): Promise<TriggerHarness> {
		return await makeHarness(emu, { nodeType: new ServiceBotPollingTrigger(), workflowName, parameters });
	}

	const ids = (trigger: RunningTrigger): unknown[] => emittedJson(trigger).map((update) => update.update_id);
	const conflicts = (): RecordedCall[] => polls().filter((call) => call.status === 409);

	/** Until the service holds nothing and a long poll is open again: every fetched update was handed out. */
	async function settled(): Promise<void> {
		while (emu.pendingUpdates().length > 0 || polls().at(-1)?.status !== 0) await new Promise((resolve) => setTimeout(resolve, 5));
	}

	async function tap(data: string): Promise<number> {
		const messageId = await sendButton(emu, emu.demo.groupChatId, data);
		return (await emu.userClicks({ chatId: emu.demo.groupChatId, userId: emu.demo.otherUserId, messageId, data })).update_id;
	}

	test('three published workflows each run exactly the updates their own filters select, once, in the order the service sent them; the bot never sees two consumers', async () => {
		const messages = await start(await published('Messages', { updates: ['message'], options: {} }));
		const clicks = await start(await published('Clicks', { updates: ['callback_query'], options: {} }));
		const group = await start(await published('Group', { updates: ['*'], options: { chatIds: emu.demo.groupChatId } }));
		const hello = await say('hello');
		const click = await tap('vote:yes');
		const groupHello = await say('hi all', emu.demo.groupChatId);
		const bye = await say('bye');
		await settled();

		expect(ids(messages)).toEqual([hello, groupHello, bye]);
		expect(ids(clicks)).toEqual([click]);
		expect(ids(group)).toEqual([click, groupHello]);
		expect(conflicts()).toEqual([]);
		// One long poll at a time: each getUpdates was asked after the one before it was answered.
		const open = polls().filter((call) => call.status === 0);
		expect(open).toHaveLength(1);
		for (const trigger of [messages, clicks, group]) expect(trigger.errors).toEqual([]);
	});

	test('unpublishing one: the others keep every update, nothing lost or run twice; one published later starts with the updates after it; the last one leaving acknowledges what ran', async () => {
		const first = await start(await published('First'));
		const second = await start(await published('Second'));
		const before = [await say('one'), await say('two')];
		await settled();
		await first.close();
		const after = [await say('three')];
		await settled();
		const third = await start(await published('Third'));
		const later = [await say('four')];
		await settled();

		expect(ids(first)).toEqual(before);
		expect(ids(second)).toEqual([...before, ...after, ...later]);
		expect(ids(third)).toEqual(later);

		await second.close();
		await third.close();
		expect(emu.pendingUpdates()).toEqual([]);
		const next = await start(await published('Next'));
		const last = await say('five');
		await next.waitForEmits(1);
		expect(ids(next)).toEqual([last]);
		expect(conflicts()).toEqual([]);
	});

	test('n8n restarting: the updates that arrived while it was down reach every workflow once, also one published after the first had fetched them', async () => {
		const harnesses = [await published('A'), await published('B', { updates: ['message'], options: { chatIds: emu.demo.groupChatId } })];
		const [a, b] = [await start(harnesses[0]), await start(harnesses[1])];
		const seen = [await say('before', emu.demo.groupChatId)];
		await settled();
		await a.close();
		await b.close();
		const whileDown = [await say('while down 1', emu.demo.groupChatId), await say('while down 2'), await say('while down 3', emu.demo.groupChatId)];

		// A new process: A comes back first and fetches what waited; B is published only once A ran it.
		const nodeType = freshNodeType('polling');
		const restartedA = await start(await inNewProcess(emu, harnesses[0], 'polling', { nodeType }));
		await restartedA.waitForEmits(3);
		const restartedB = await start(await inNewProcess(emu, harnesses[1], 'polling', { nodeType }));
		const afterRestart = await say('after', emu.demo.groupChatId);
		await restartedA.waitForEmits(4);
		await settled();

		expect(ids(a)).toEqual(seen);
		expect(ids(b)).toEqual(seen);
		expect(ids(restartedA)).toEqual([...whileDown, afterRestart]);
		expect(ids(restartedB)).toEqual([whileDown[0], whileDown[2], afterRestart]);
		expect(conflicts()).toEqual([]);
	});

	test('n8n restarting: a workflow that had never been handed an update before still gets what arrived while n8n was down, also when another workflow\'s poller fetched it first', async () => {
		const harnesses = [await published('A'), await published('B')];
		const [a, b] = [await start(harnesses[0]), await start(harnesses[1])];
		await waitingPoll();
		await a.close();
		await b.close();
		const whileDown = [await say('while down')];

		const nodeType = freshNodeType('polling');
		const restartedA = await start(await inNewProcess(emu, harnesses[0], 'polling', { nodeType }));
		await restartedA.waitForEmits(1);
		const restartedB = await start(await inNewProcess(emu, harnesses[1], 'polling', { nodeType }));
		await restartedB.waitForEmits(1);
		await settled();

		expect(ids(restartedA)).toEqual(whileDown);
		expect(ids(restartedB)).toEqual(whileDown);
		expect(conflicts()).toEqual([]);
	});

	test('publishing a poller on a bot whose webhook workflows of this n8n receive through fails, naming them, also with "Delete Existing Webhook" on; the webhook stays', async () => {
		const commands = await makeHarness(emu, { workflowName: 'Commands' });
		expect(await commands.activate()).toBe(true);
		const registered = emu.webhookOf()?.url;
		for (const options of [{}, { deleteExistingWebhook: true }]) {
			const poller = await makeHarness(emu, { nodeType: new ServiceBotPollingTrigger(), workflowName: 'Support bot', parameters: { updates: ['*'], options } });
			await expect(poller.startTrigger()).rejects.toThrow(
				'The published workflow "Commands" receives this bot\'s updates through its webhook (Service Bot Trigger), and a bot with a webhook cannot be polled. Use the Service Bot Trigger in this workflow too (several workflows share a bot that way), or unpublish it first',
			);
		}
		expect(emu.webhookOf()?.url).toBe(registered);
		expect(emu.callsTo('deleteWebhook')).toHaveLength(0);
		expect(polls()).toHaveLength(0);
		expect(await commands.delete()).toBe(true);
	});

	test('publishing a webhook trigger on a bot workflows poll fails at once, naming them; the pollers keep polling', async () => {
		const support = await start(await published('Support bot'));
		const orders = await start(await published('Orders'));
		await waitingPoll();
		const webhook = await makeHarness(emu, { workflowName: 'Commands' });
		const refusal = await webhook.activate().then(
			() => new Error('published'),
			(error: unknown) => error as Error,
		);
		expect(refusal.message).toBe(
			'The published workflows "Support bot" and "Orders" poll this bot (Service Bot Polling Trigger), and a bot that is polled cannot have a webhook. Unpublish them first, or use the same trigger in every workflow of this bot (both kinds serve several workflows, each kind alone)',
		);
		// It holds until a person acts: n8n 2.41 does not try it again (5 attempts over 15 s otherwise).
		expect(n8nRetries(refusal)).toBe(false);
		expect(emu.callsTo('setWebhook')).toHaveLength(0);
		const id = await say('still polled');
		await support.waitForEmits(1);
		await orders.waitForEmits(1);
		expect(ids(support)).toEqual([id]);
		expect(ids(orders)).toEqual([id]);
		expect([...support.errors, ...orders.errors]).toEqual([]);
	});
});

describe('failures', () => {
	test('429: waits the retry_after the service asked, then goes on', async () => {
		emu.injectFault({ kind: 'status', status: 429, retryAfter: 1, method: 'getUpdates' });
		const trigger = await start(await pollingHarness());
		const id = await say('after the rate limit');
		await trigger.waitForEmits(1);
		const [limited, retried] = polls();
		expect(limited.status).toBe(429);
		expect(retried.at - limited.at).toBeGreaterThanOrEqual(990);
		expect(emittedJson(trigger).map((update) => update.update_id)).toEqual([id]);
		expect(logs.messages('warn').join('\n')).toContain('getUpdates failed (1× in a row)');
	});

	test('401 at activation fails it with the fix; 401 while polling stops with emitError, and nothing more is asked', async () => {
		const refused = await pollingHarness(undefined, '7000000999:not-a-token');
		await expect(refused.startTrigger()).rejects.toThrow(
			'Service Bot API credential "Service Bot account" (Access Token): The service rejected the access token (401). Check that the token is complete and still valid.',
		);

		const trigger = await start(await pollingHarness());
		await waitingPoll();
		// Ours asks for 100 at a time; the fault spares the test's own request below.
		emu.injectFault({ kind: 'status', status: 401, method: 'getUpdates', description: 'Unauthorized', when: (call) => call.body.limit === 100 });
		// The open poll ends when another consumer asks; the next one meets the 401.
		await api(emu, 'getUpdates', { timeout: 0, limit: 1 });
		await trigger.waitForEmits();
		expect(trigger.errors.map((error) => error.message)).toEqual([
			'Service Bot API credential "Service Bot account" (Access Token): The service rejected the access token (401). Check that the token is complete and still valid.',
		]);
		const asked = polls().length;
		await say('nobody listens');
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(polls()).toHaveLength(asked);
	});

	test('network drops, broken answers and 5xx mid-poll: retried with backoff, nothing lost or doubled', async () => {
		const trigger = await start(await pollingHarness());
		await waitingPoll();
		// The service executes and then breaks the answer: the updates were fetched, not emitted.
		emu.injectFault({ kind: 'reset', method: 'getUpdates', execute: true });
		emu.injectFault({ kind: 'drop', method: 'getUpdates', execute: true });
		emu.injectFault({ kind: 'status', status: 502, method: 'getUpdates', count: 2 });
		emu.injectFault({ kind: 'malformed', method: 'getUpdates', execute: true });
		const ids = [await say('one'), await say('two')];
		await trigger.waitForEmits(2);
		const third = await say('three');
		await trigger.waitForEmits(3);
		expect(emittedJson(trigger).map((update) => update.update_id)).toEqual([...ids, third]);
		expect(polls().filter((call) => call.status !== 200).length).toBeGreaterThanOrEqual(3);
		expect(trigger.errors).toEqual([]);
	});

	test('with Long Poll Timeout 0 (answers at once) the loop pauses between empty answers instead of spinning', async () => {
		const trigger = await start(await pollingHarness({ updates: ['*'], options: { longPollTimeout: 0 } }));
		await new Promise((resolve) => setTimeout(resolve, 500));
		// timeout 0 answers at once: the loop pauses between empty answers instead of spinning.
		expect(polls().length).toBeLessThan(50);
		expect(trigger.errors).toEqual([]);
	});

	test('a failed poll whose answer quotes the token is logged without the token', async () => {
		const trigger = await start(await pollingHarness());
		// The fault goes to the poll after this trigger's open one: a poll of the previous test's trigger,
		// answered late, cannot take it.
		await waitingPoll();
		emu.injectFault({ kind: 'status', status: 500, method: 'getUpdates', description: `boom ${emu.demo.token}` });
		await say('x');
		await trigger.waitForEmits(1);
		await say('y');
		await trigger.waitForEmits(2);
		expect(logs.messages('warn').filter((line) => line.includes('getUpdates failed') && line.includes('boom'))).toHaveLength(1);
		const lines = [...logs.messages('warn'), ...logs.messages('info'), ...logs.messages('debug'), ...logs.messages('error')];
		expect(findLeak(emu.demo.token, lines)).toBeUndefined();
	});
});

describe('deactivation', () => {
	test('closing while a long poll is open aborts it at once; the service sees no further getUpdates', async () => {
		const trigger = await start(await pollingHarness());
		const open = await waitingPoll();
		// The long poll would be held for 45 s (longer than this test may take): close() resolving shows it was aborted.
		const t0 = performance.now();
		await trigger.close();
		const closeMs = performance.now() - t0;
		expect(open.status).toBe(0); // never answered: the client went away
		const asked = polls().length;
		const id = await say('after deactivation');
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(polls()).toHaveLength(asked);
		expect(emu.pendingUpdates().map((update) => update.update_id)).toEqual([id]);
		expect(trigger.emitted).toEqual([]);
		console.log(`polling: close() with an open long poll took ${closeMs.toFixed(1)} ms`);
	});

	test('closing during a backoff wait ends it at once', async () => {
		jest.replaceProperty(POLL_TIMING, 'backoffStartMs', 60_000);
		jest.replaceProperty(POLL_TIMING, 'backoffMaxMs', 60_000);
		emu.injectFault({ kind: 'status', status: 503, method: 'getUpdates' });
		const trigger = await start(await pollingHarness());
		for (;;) {
			if (polls().length === 1 && polls()[0].status === 503) break;
			await new Promise((resolve) => setImmediate(resolve));
		}
		// Waiting 60 s before the next try; close() must not wait for it.
		await trigger.close();
		expect(polls()).toHaveLength(1);
	});
});

describe('the editor\'s test (Listen for Test Event)', () => {
	test('shows the next update and acknowledges it (no workflow polls the bot): a workflow published afterwards does not run it again; the bot\'s update types are left alone', async () => {
		const harness = await pollingHarness({ updates: ['message'], options: { addHandyFields: true } });
		const test = await harness.startManualTrigger();
		const id = await say('seen in the editor');
		const { items, error } = await test.result;
		await test.close();
		expect(error).toBeUndefined();
		expect(items?.[0][0].json).toMatchObject({ update_id: id, text: 'seen in the editor' });
		for (const call of polls()) expect(call.body).not.toHaveProperty('allowed_updates');
		expect(polls().map((call) => call.body.offset)).toContain(id + 1);
		expect(emu.pendingUpdates()).toEqual([]);

		const published = await start(harness);
		const next = await say('for the published workflow');
		await published.waitForEmits(1);
		expect(emittedJson(published).map((update) => update.update_id)).toEqual([next]);
	});

	test('with several updates waiting in one answer, the test shows the first and acknowledges only that one: the service keeps the others for a workflow published afterwards', async () => {
		const harness = await pollingHarness();
		const waiting = [await say('first'), await say('second'), await say('third')];
		const test = await harness.startManualTrigger();
		const { items } = await test.result;
		await test.close();
		expect(items?.[0][0].json).toMatchObject({ update_id: waiting[0] });
		expect(emu.pendingUpdates().map((update) => update.update_id)).toEqual(waiting.slice(1));
	});

	test('while a published workflow polls the same bot, the test shows the next update it selects, and the published one gets every update, that one too', async () => {
		const harness = await pollingHarness();
		const published = await start(harness);
		const earlier = await say('before the test');
		await published.waitForEmits(1);
		const test = await (await pollingHarness({ updates: ['message'], options: { chatIds: emu.demo.groupChatId } })).startManualTrigger();
		await waitingPoll();
		const notForTheTest = await say('private');
		const forTheTest = await say('in the group', emu.demo.groupChatId);
		const { items, error } = await test.result;
		await test.close();
		const after = await say('after the test');
		await published.waitForEmits(4);

		expect(error).toBeUndefined();
		expect(items?.[0][0].json).toMatchObject({ update_id: forTheTest });
		expect(emittedJson(published).map((update) => update.update_id)).toEqual([earlier, notForTheTest, forTheTest, after]);
		expect(published.errors).toEqual([]);
		expect(polls().filter((call) => call.status === 409)).toEqual([]);
	});


	test('with a webhook set, the test fails naming it', async () => {
		await api(emu, 'setWebhook', { url: 'http://127.0.0.1:9/someone' });
		const test = await (await pollingHarness()).startManualTrigger();
		const { error } = await test.result;
		await test.close();
		expect(error?.message).toMatch(/^The bot has a webhook \(http:\/\/127\.0\.0\.1:9\/someone\)/);
	});
});

describe('Group Messages Within: a user’s quick messages in one chat start one execution', () => {
	async function grouping(seconds: number): Promise<RunningTrigger> {
		return await start(await makeHarness(emu, { nodeType: new ServiceBotPollingTrigger(), typeVersion: 2, parameters: { updates: ['*'], options: { groupMessagesSeconds: seconds } } }));
	}

	const fetched = (updateId: number): Promise<void> => fetchedUpdate(emu, updateId);

	test('three quick messages of one user run once, texts joined in order and every update kept; another user’s message is a group of its own; a click runs at once', async () => {
		// A window long enough that the three messages surely fall in it on a busy machine.
		const trigger = await grouping(3);
		const group = emu.demo.groupChatId;
		const first = await say('I need help', group);
		const second = await say('with my order', group);
		const third = await say('#1042', group);
		const other = await say('me too', group, emu.demo.otherUserId);
		const messageId = await sendButton(emu, group, 'vote:yes');
		const click = (await emu.userClicks({ chatId: group, userId: emu.demo.otherUserId, messageId, data: 'vote:yes' })).update_id;
		await trigger.waitForEmits(3);

		const items = emittedJson(trigger);
		// The click did not wait; each user's messages ran once that user was quiet, the first user's first.
		expect(items.map((item) => item.update_id)).toEqual([click, third, other]);
		expect(items[2]).toMatchObject({ user_id: emu.demo.otherUserId, chatInput: 'me too' });
		const grouped = items[1];
		expect(grouped).toMatchObject({ chat_id: group, user_id: emu.demo.userId, text: 'I need help\nwith my order\n#1042', chatInput: 'I need help\nwith my order\n#1042', sessionId: group });
		expect((grouped.updates as IDataObject[]).map((update) => update.update_id)).toEqual([first, second, third]);
		expect(grouped.message_id).toBe((grouped.updates as Array<{ message: { message_id: number } }>)[2].message.message_id);
	});

	test('while messages are gathered the service keeps them (n8n stopping hard would fetch them again); once they ran, it is told they are done', async () => {
		const trigger = await grouping(1);
		const id = await say('hello');
		await fetched(id);
		expect(trigger.emitted).toEqual([]);
		expect(emu.pendingUpdates().map((update) => update.update_id)).toEqual([id]);
		expect(trigger.errors).toEqual([]);
		expect(logs.messages('warn')).toEqual([]);

		await trigger.waitForEmits(1);
		const next = await say('again');
		await fetched(next);
		expect(emu.pendingUpdates().map((update) => update.update_id)).toEqual([next]);
		await trigger.waitForEmits(2);
		expect(emittedJson(trigger).map((item) => item.chatInput)).toEqual(['hello', 'again']);
	});

	test('unpublishing while messages are gathered runs them at once, not never', async () => {
		const trigger = await grouping(60);
		await say('one');
		const last = await say('two');
		await fetched(last);
		await trigger.close();
		expect(emittedJson(trigger).map((item) => item.chatInput)).toEqual(['one\ntwo']);
		expect(emu.pendingUpdates()).toEqual([]);
	});
});
