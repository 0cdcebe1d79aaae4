/**
 * "Show Typing": the service's "typing…" in the chat of every message that starts the workflow, sent as
 * the message is taken (not waited for), with both triggers; also while Group Messages Within gathers
 * a user's messages; none for a click (it ends in an edit or a toast, under which "typing…" would
 * linger), none for an update the filters drop, none when the option is off.
 */
import { ServiceBotPollingTrigger } from '../../../../nodes/ServiceBotPollingTrigger/ServiceBotPollingTrigger.node';
import type { Emulator } from '../../../emulator';
import { liveTrigger, makeHarness, sendButton, type LiveTrigger } from '../../../harness/trigger-nodes';
import { useEmulator } from '../../../harness/emulator-suite';

let emu: Emulator;
const live: LiveTrigger[] = [];
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
