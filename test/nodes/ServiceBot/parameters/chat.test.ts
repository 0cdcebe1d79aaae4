/**
 * The Chat field as users leave it: a new Service Bot node replies in the chat of the update that
 * started the item (Chat → From Trigger, the default of new nodes), followed back through the nodes
 * in between (n8n's paired items), built as users build bots: Service Bot Trigger → a Code or Switch
 * node → Send Message, the trigger's items those a real push from the emulator gave. Where it cannot
 * follow the item back, the error names the field, the node that broke the chain and what to map.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { ServiceBotTrigger } from '../../../../nodes/ServiceBotTrigger/ServiceBotTrigger.node';
import { byId, nodeType } from '../../../harness/action-node';
import { credentialsFor, useEmulator } from '../../../harness/emulator-suite';
import { executeNode, type ChainNode } from '../../../harness/execute-node';
import { CommandSwitch, FanOut, ReverseText } from '../../../harness/test-nodes';
import { liveTrigger, type LiveTrigger } from '../../../harness/trigger-nodes';
import { type Emulator } from '../../../emulator';

let emu: Emulator;
const live: LiveTrigger[] = [];
useEmulator({ running: live, started: (started) => (emu = started) });

const TRIGGER = 'Service Bot Trigger';
/** The trigger as a new node is (version 2: the handy fields on). */
const trigger: ChainNode = { name: TRIGGER, nodeType: new ServiceBotTrigger(), typeVersion: 2, parameters: { updates: ['*'] } };

/** What the trigger emits for what users send (one execution's items), through a real push. */
async function triggerItems(...sends: Array<{ chatId: string; userId: string; text: string }>): Promise<IDataObject[]> {
	const listening = await liveTrigger(emu, { typeVersion: 2 });
	live.push(listening);
	for (const send of sends) await emu.userSends(send);
	await emu.idle();
	return listening.emitted();
}

/** Send Message with its Chat left as a new node has it: only the text is set. */
const reply = (text = '={{ $json.reply }}'): INodeParameters => ({ resource: 'message', operation: 'sendMessage', text });

async function runAfter(items: IDataObject[], before: ChainNode[], parameters: INodeParameters = reply(), start: ChainNode = trigger) {
	return await executeNode({ nodeType, parameters, items, credentials: credentialsFor(emu), start, before });
}

/** The bot's messages in a chat, as the service keeps them. */
const botTexts = (chatId: string): string[] =>
	emu
		.history(chatId)
		.filter((message) => message.from?.is_bot === true)
		.map((message) => String(message.text));

describe('Chat: From Trigger (the default of a new node)', () => {
	it('Trigger → Code → Send Message with Chat left at its default: the reply goes to the chat the message came from', async () => {
		const items = await triggerItems({ chatId: emu.demo.groupChatId, userId: emu.demo.userId, text: 'hello' });
		const { output, error } = await runAfter(items, [{ name: 'Code', nodeType: new ReverseText() }]);
		expect(error).toBeUndefined();
		expect(botTexts(emu.demo.groupChatId)).toEqual(['olleh']);
		expect(botTexts(emu.demo.privateChatId)).toEqual([]);
		expect(output[0].json).toMatchObject({ chat_id: emu.demo.groupChatId, text: 'olleh' });
	});

	it('Trigger → Switch (second output) → Send Message: the reply goes to the chat of the item that took that branch', async () => {
		const items = await triggerItems(
			{ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: '/start' },
			{ chatId: emu.demo.groupChatId, userId: emu.demo.userId, text: 'just text' },
		);
		expect(items).toHaveLength(2);
		const { error } = await runAfter(items, [{ name: 'Switch', nodeType: new CommandSwitch(), output: 1 }], reply('={{ "echo: " + $json.text }}'));
		expect(error).toBeUndefined();
		expect(botTexts(emu.demo.groupChatId)).toEqual(['echo: just text']);
		expect(botTexts(emu.demo.privateChatId)).toEqual([]);
	});

	it('two trigger items in one execution each get their reply in their own chat', async () => {
		const items = await triggerItems(
			{ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'one' },
			{ chatId: emu.demo.groupChatId, userId: emu.demo.otherUserId, text: 'two' },
		);
		const { output, error } = await runAfter(items, [{ name: 'Code', nodeType: new ReverseText() }]);
		expect(error).toBeUndefined();
		expect(botTexts(emu.demo.privateChatId)).toEqual(['eno']);
		expect(botTexts(emu.demo.groupChatId)).toEqual(['owt']);
		expect(output.map((item) => item.json.chat_id)).toEqual([emu.demo.privateChatId, emu.demo.groupChatId]);
	});

	it('a chat mapped by ID still goes where it is mapped', async () => {
		const items = await triggerItems({ chatId: emu.demo.groupChatId, userId: emu.demo.userId, text: 'hello' });
		const { error } = await runAfter(items, [{ name: 'Code', nodeType: new ReverseText() }], { ...reply(), chatId: byId(emu.demo.privateChatId) });
		expect(error).toBeUndefined();
		expect(botTexts(emu.demo.privateChatId)).toEqual(['olleh']);
		expect(botTexts(emu.demo.groupChatId)).toEqual([]);
	});

	it('no Service Bot trigger before the node: fails before sending, naming the field and saying to map a chat ID, Get Chat or an @username', async () => {
		const { error } = await executeNode({ nodeType, parameters: reply('hi'), items: [{ text: 'hi' }], credentials: credentialsFor(emu) });
		expect(error?.message).toMatch(/^Chat: /);
		expect(error?.message).toMatch(/no Service Bot trigger/i);
		expect(`${error?.message} ${error?.description ?? ''}`).toMatch(/By ID/);
		expect(`${error?.message} ${error?.description ?? ''}`).toMatch(/Get Chat/);
		expect(`${error?.message} ${error?.description ?? ''}`).toMatch(/@username/);
		expect(emu.callsTo('sendMessage')).toHaveLength(0);
	});

	it('a node that makes new items without pairing breaks the chain: the error names that node and what to map instead', async () => {
		// Two items in, four out: n8n cannot pair them by itself (it does where one item comes in, or as many go out).
		const items = await triggerItems(
			{ chatId: emu.demo.groupChatId, userId: emu.demo.userId, text: 'hello' },
			{ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'there' },
		);
		const { error } = await runAfter(items, [{ name: 'Split Lines', nodeType: new FanOut() }], reply('={{ $json.text }}'));
		expect(error?.message).toMatch(/^Chat: /);
		expect(error?.message).toContain('"Split Lines"');
		expect(error?.message).toContain(`"${TRIGGER}"`);
		expect(`${error?.message} ${error?.description ?? ''}`).toMatch(/By ID/);
		expect(emu.callsTo('sendMessage')).toHaveLength(0);
	});

	it('version 3 nodes (saved workflows) keep Chat by ID as their default: n8n refuses to run one whose Chat is empty', async () => {
		const items = await triggerItems({ chatId: emu.demo.groupChatId, userId: emu.demo.userId, text: 'hello' });
		const running = executeNode({
			nodeType,
			parameters: reply(),
			items,
			credentials: credentialsFor(emu),
			start: trigger,
			before: [{ name: 'Code', nodeType: new ReverseText() }],
			typeVersion: 3,
		});
		await expect(running).rejects.toThrow(/The 'Service Bot' node has issues/);
		expect(emu.callsTo('sendMessage')).toHaveLength(0);
	});
});
