/**
 * "Show Typing": the service's "typing…" in the chat of every message that starts the workflow, sent as
 * the message is taken (not waited for), with both triggers; also while Group Messages Within gathers
 * a user's messages; none for a click (it ends in an edit or a toast, under which "typing…" would
 * linger), none for an update the filters drop, none when the option is off.
 *
 * Then renewed while the execution for the message runs, until it has run, the workflow posts to that
 * chat, or the cap (timings shortened). Order is proven by the order the emulator received calls in:
 * a later event in another chat (a marker) after which the ended chat got no more "typing…".
 */
import { ServiceBot } from '../../../../nodes/ServiceBot/ServiceBot.node';
import { ServiceBotPollingTrigger } from '../../../../nodes/ServiceBotPollingTrigger/ServiceBotPollingTrigger.node';
import { postedToChat } from '../../../../nodes/shared/chatPosts';
import { TYPING_TIMING } from '../../../../nodes/shared/trigger/typing';
import type { IDataObject } from 'n8n-workflow';
import type { Emulator } from '../../../emulator';
import { executeNode } from '../../../harness';
import type { RunningTrigger } from '../../../harness/trigger-harness';
import { liveTrigger, makeHarness, sendButton, type LiveTrigger } from '../../../harness/trigger-nodes';
import { credentialsFor, useEmulator, type Running } from '../../../harness/emulator-suite';

let emu: Emulator;
const live: Running[] = [];
useEmulator({ running: live, started: (started) => (emu = started) });

/** The chat actions the service got, as `<chat> <action>`, once `count` of them arrived. */
async function chatActions(count: number): Promise<string[]> {
	for (;;) {
		const actions = emu.chatActions().map((action) => `${action.chatId} ${action.action}`);
		if (actions.length >= count) return actions;
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
}

async function webhookTrigger(options: Record<string, boolean>, updates = ['message']): Promise<LiveTrigger> {
	const trigger = await liveTrigger(emu, { parameters: { updates, options } });
	live.push(trigger);
	return trigger;
}

test('webhook trigger: a message that starts the workflow shows typing in its chat; a click the filters drop does not', async () => {
	const trigger = await webhookTrigger({ showTyping: true });
	const messageId = await sendButton(emu, emu.demo.groupChatId, 'x');
	await emu.userClicks({ chatId: emu.demo.groupChatId, userId: emu.demo.userId, messageId, data: 'x' });
	await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'help me' });
	await emu.idle();
	expect(trigger.emitted()).toHaveLength(1);
	expect(await chatActions(1)).toEqual([`${emu.demo.privateChatId} typing`]);
	// A last update: once its typing is there, one for the click would be too.
	await emu.userSends({ chatId: emu.demo.groupChatId, userId: emu.demo.userId, text: 'and here' });
	expect(await chatActions(2)).toEqual([`${emu.demo.privateChatId} typing`, `${emu.demo.groupChatId} typing`]);
});

test('without the option, no chat action is sent', async () => {
	const trigger = await webhookTrigger({});
	await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'hi' });
	await emu.idle();
	expect(trigger.emitted()).toHaveLength(1);
	expect(emu.callsTo('sendChatAction')).toEqual([]);
});

test('polling trigger: a message that starts the workflow shows typing in its chat', async () => {
	const harness = await makeHarness(emu, { nodeType: new ServiceBotPollingTrigger(), parameters: { updates: ['*'], options: { showTyping: true } } });
	const trigger = await harness.startTrigger();
	await emu.userSends({ chatId: emu.demo.groupChatId, userId: emu.demo.userId, text: 'polled' });
	await trigger.waitForEmits(1);
	expect(await chatActions(1)).toEqual([`${emu.demo.groupChatId} typing`]);
	await trigger.close();
});

test('a click that starts the workflow shows no typing; the next message does', async () => {
	const trigger = await webhookTrigger({ showTyping: true }, ['*']);
	const messageId = await sendButton(emu, emu.demo.groupChatId, 'tea');
	await emu.userClicks({ chatId: emu.demo.groupChatId, userId: emu.demo.userId, messageId, data: 'tea' });
	await emu.idle();
	expect(trigger.emitted()).toHaveLength(1);
	await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'thanks' });
	expect(await chatActions(1)).toEqual([`${emu.demo.privateChatId} typing`]);
	await emu.idle();
	expect(emu.chatActions()).toHaveLength(1);
});

test('polling trigger with Group Messages Within: typing as each message is gathered, and again as they run together', async () => {
	const harness = await makeHarness(emu, {
		nodeType: new ServiceBotPollingTrigger(),
		parameters: { updates: ['message'], options: { showTyping: true, groupMessagesSeconds: 1 } },
	});
	const trigger = await harness.startTrigger();
	await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'one' });
	// Typing shows while the messages are still being gathered, before the workflow runs.
	expect(await chatActions(1)).toEqual([`${emu.demo.privateChatId} typing`]);
	expect(trigger.emitted).toHaveLength(0);
	await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'two' });
	await trigger.waitForEmits(1);
	expect(await chatActions(3)).toEqual([`${emu.demo.privateChatId} typing`, `${emu.demo.privateChatId} typing`, `${emu.demo.privateChatId} typing`]);
	await trigger.close();
});

describe('typing that lasts while the execution runs', () => {
	const RENEW_MS = 40;
	let P: string;
	let G: string;

	const replaced: Array<{ restore(): void }> = [];
	afterEach(() => {
		for (const property of replaced.splice(0)) property.restore();
	});

	beforeEach(() => {
		replaced.push(jest.replaceProperty(TYPING_TIMING, 'renewEveryMs', RENEW_MS));
		P = emu.demo.privateChatId;
		G = emu.demo.groupChatId;
		// Typing left renewing by a test (a webhook execution nobody ends) stops before the next one.
		live.push(async () => {
			for (const chat of [P, G]) postedToChat(emu.demo.token, chat);
		});
	});

	/** What the service took of typing and posts, as `typing <chat>` / `post <chat>`, in arrival order. */
	function sequence(): string[] {
		return emu.calls
			.filter((call) => call.status === 200 && ['sendChatAction', 'sendMessage'].includes(call.method))
			.map((call) => `${call.method === 'sendChatAction' ? 'typing' : 'post'} ${String(call.body.chat_id)}`);
	}

	const count = (entries: string[], entry: string): number => entries.filter((each) => each === entry).length;

	async function until(what: () => boolean): Promise<void> {
		while (!what()) await new Promise((resolve) => setTimeout(resolve, 5));
	}

	/** Waits until the chat has had `more` "typing…" after the sequence's first `from` entries. */
	async function typingAfter(chat: string, from: number, more: number): Promise<void> {
		await until(() => count(sequence().slice(from), `typing ${chat}`) >= more);
	}

	/** The entries after the first `entry` (all of them when it never came). */
	function after(entry: string): string[] {
		const all = sequence();
		return all.slice(all.indexOf(entry) + 1);
	}

	async function pollingTrigger(options: IDataObject = {}): Promise<RunningTrigger> {
		const harness = await makeHarness(emu, {
			nodeType: new ServiceBotPollingTrigger(),
			parameters: { updates: ['message'], options: { showTyping: true, ...options } },
		});
		// The executions run until the test finishes them.
		const trigger = await harness.startTrigger({ executions: 'held' });
		live.push(trigger);
		return trigger;
	}

	/** The workflow's Send Message, its chat taken from the trigger's item as users map it. */
	async function sendMessageFor(item: IDataObject): Promise<void> {
		const { error } = await executeNode({
			nodeType: new ServiceBot(),
			parameters: { resource: 'message', operation: 'sendMessage', chatId: '={{ $json.message.chat.id }}', text: '=Answer to {{ $json.message.text }}' },
			items: [item],
			credentials: credentialsFor(emu),
		});
		expect(error).toBeUndefined();
	}

	test('polling trigger: typing is renewed while the execution runs, and no more once it has run', async () => {
		const trigger = await pollingTrigger();
		await emu.userSends({ chatId: P, userId: emu.demo.userId, text: 'think hard' });
		await trigger.waitForEmits(1);
		// The typing shown as the message was taken, then renewals while the execution runs.
		await typingAfter(P, 0, 4);
		trigger.finishExecutions();
		// A marker: a message in another chat, taken after the first execution has run.
		await emu.userSends({ chatId: G, userId: emu.demo.userId, text: 'and you?' });
		await trigger.waitForEmits(2);
		await typingAfter(G, 0, 4);
		expect(after(`typing ${G}`).filter((entry) => entry === `typing ${P}`)).toEqual([]);
		expect(count(sequence(), `typing ${G}`)).toBeGreaterThanOrEqual(4);
	});

	test('polling trigger: a Send Message to the chat ends its typing; typing in another chat goes on', async () => {
		const trigger = await pollingTrigger();
		await emu.userSends({ chatId: P, userId: emu.demo.userId, text: 'first' });
		await emu.userSends({ chatId: G, userId: emu.demo.userId, text: 'second' });
		await trigger.waitForEmits(2);
		await typingAfter(P, 0, 3);
		await typingAfter(G, 0, 3);
		const inG = trigger.emitted.map((run) => run[0][0].json).find((json) => String((json.message as IDataObject).text) === 'second')!;
		await sendMessageFor(inG);
		const posted = sequence().indexOf(`post ${G}`);
		expect(posted).toBeGreaterThan(0);
		// The other chat's execution still runs: its typing goes on, three more times after the post.
		await typingAfter(P, posted + 1, 3);
		// At most a renewal already on its way as the post began; none after the other chat's renewals.
		expect(count(after(`post ${G}`), `typing ${G}`)).toBeLessThanOrEqual(1);
		expect(after(`post ${G}`).slice(2).filter((entry) => entry === `typing ${G}`)).toEqual([]);
	});

	test('polling trigger: the cap ends typing even while the execution still runs', async () => {
		const capMs = 10 * RENEW_MS;
		replaced.push(jest.replaceProperty(TYPING_TIMING, 'capMs', capMs));
		const trigger = await pollingTrigger();
		await emu.userSends({ chatId: P, userId: emu.demo.userId, text: 'a long one' });
		await trigger.waitForEmits(1);
		await typingAfter(P, 0, 3);
		const shownAt = emu.chatActions().find((action) => action.chatId === P)!.at;
		// Past the cap (a lower bound only), a marker in another chat; the first execution still runs.
		await until(() => Date.now() > shownAt + capMs + 2 * RENEW_MS);
		await emu.userSends({ chatId: G, userId: emu.demo.userId, text: 'marker' });
		await trigger.waitForEmits(2);
		await typingAfter(G, 0, 3);
		expect(after(`typing ${G}`).filter((entry) => entry === `typing ${P}`)).toEqual([]);
		expect(trigger.emitted).toHaveLength(2);
	});

	test('polling trigger: a 429 on a renewal fails nothing, and the next renewal waits its retry_after', async () => {
		const trigger = await pollingTrigger();
		await emu.userSends({ chatId: P, userId: emu.demo.userId, text: 'busy service' });
		await trigger.waitForEmits(1);
		await typingAfter(P, 0, 2);
		emu.injectFault({ kind: 'status', status: 429, retryAfter: 1, method: 'sendChatAction' });
		await until(() => emu.calls.some((call) => call.method === 'sendChatAction' && call.status === 429));
		const refused = emu.calls.find((call) => call.method === 'sendChatAction' && call.status === 429)!;
		await until(() => emu.calls.some((call) => call.seq > refused.seq && call.method === 'sendChatAction' && call.status === 200));
		const next = emu.calls.find((call) => call.seq > refused.seq && call.method === 'sendChatAction' && call.status === 200)!;
		expect(next.at - refused.at).toBeGreaterThanOrEqual(1000);
		expect(trigger.errors).toEqual([]);
	});

	test('polling trigger with Group Messages Within: typing lasts in the gathered messages\' chat while their execution runs', async () => {
		const trigger = await pollingTrigger({ groupMessagesSeconds: 1 });
		await emu.userSends({ chatId: P, userId: emu.demo.userId, text: 'one' });
		await emu.userSends({ chatId: P, userId: emu.demo.userId, text: 'two' });
		await trigger.waitForEmits(1);
		// Shown for each message and as they run together (three), then renewed while they run.
		await typingAfter(P, 0, 6);
		trigger.finishExecutions();
		await emu.userSends({ chatId: G, userId: emu.demo.userId, text: 'marker' });
		await until(() => trigger.emitted.length === 2);
		await typingAfter(G, 0, 3);
		expect(after(`typing ${G}`).filter((entry) => entry === `typing ${P}`)).toEqual([]);
		expect(trigger.emitted[0][0]).toHaveLength(1);
	});
});
