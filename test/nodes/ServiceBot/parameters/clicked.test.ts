/**
 * The click and the clicked message as users leave them: in a new Service Bot node (version 4)
 * Answer Callback Query's Callback Query ID and the edits' and Delete Message's Message ID default to
 * From Trigger, the click of the Service Bot trigger's update the item came from (followed back through
 * paired items, as the Chat field is). Built as users build an approval: Service Bot Trigger (a real
 * push of a real click from the emulator) → a Switch or Code node → the Service Bot node with only its
 * own fields set. Where there is no click to follow, the error names the field, the node that broke the
 * chain, and what to map instead; version 3 nodes (saved workflows) keep their fields as they were.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { ServiceBotTrigger } from '../../../../nodes/ServiceBotTrigger/ServiceBotTrigger.node';
import { nodeType } from '../../../harness/action-node';
import { credentialsFor, useEmulator } from '../../../harness/emulator-suite';
import { executeNode, type ChainNode } from '../../../harness/execute-node';
import { CommandSwitch, FanOut, ReverseText } from '../../../harness/test-nodes';
import { api, liveTrigger, type LiveTrigger } from '../../../harness/trigger-nodes';
import { type Emulator } from '../../../emulator';

let emu: Emulator;
const live: LiveTrigger[] = [];
useEmulator({ running: live, started: (started) => (emu = started) });

const TRIGGER = 'Service Bot Trigger';
const trigger: ChainNode = { name: TRIGGER, nodeType: new ServiceBotTrigger(), typeVersion: 2, parameters: { updates: ['*'] } };
const passOn: ChainNode = { name: 'Switch', nodeType: new CommandSwitch(), output: 1 };

interface Clicked {
	items: IDataObject[];
	chatId: string;
	messageId: number;
	clickId: string;
}

/** The bot asks with a button, the user clicks it (`clicks` times): the trigger's items of the clicks, through real pushes. */
async function clickItems(clicks = 1): Promise<Clicked> {
	const chatId = emu.demo.privateChatId;
	const listening = await liveTrigger(emu, { typeVersion: 2 });
	live.push(listening);
	const asked = await api<IDataObject>(emu, 'sendMessage', {
		chat_id: chatId,
		text: 'Refund 42?',
		reply_markup: { inline_keyboard: [[{ text: 'Approve', callback_data: 'approve' }]] },
	});
	const messageId = asked.result?.message_id as number;
	const click = await emu.userClicks({ chatId, userId: emu.demo.userId, messageId, data: 'approve' });
	for (let more = 1; more < clicks; more++) await emu.userClicks({ chatId, userId: emu.demo.userId, messageId, data: 'approve' });
	await emu.idle();
	const clickId = click.callback_query?.id;
	if (clickId === undefined) throw new Error('the click has no id');
	return { items: listening.emitted(), chatId, messageId, clickId };
}

async function runAfter(items: IDataObject[], before: ChainNode[], parameters: INodeParameters, typeVersion?: number) {
	return await executeNode({ nodeType, parameters, items, credentials: credentialsFor(emu), start: trigger, before, typeVersion });
}

const answer: INodeParameters = { resource: 'callback', operation: 'answerCallbackQuery', additionalFields: { text: 'Approved' } };
const editText: INodeParameters = { resource: 'message', operation: 'editMessageText', text: 'Refund 42: approved' };

describe('the click From Trigger (the default of a new node)', () => {
	it('Trigger → Switch → Answer Callback Query with nothing mapped answers the click the trigger received', async () => {
		const clicked = await clickItems();
		const { output, error } = await runAfter(clicked.items, [passOn], answer);
		expect(error).toBeUndefined();
		expect(emu.callsTo('answerCallbackQuery').map((call) => call.body.callback_query_id)).toEqual([clicked.clickId]);
		expect(output[0].json.answered).toBe(true);
	});

	it('Trigger → Code → Edit Message Text with only its text set edits the clicked message in its chat', async () => {
		const clicked = await clickItems();
		const { error } = await runAfter(clicked.items, [{ name: 'Code', nodeType: new ReverseText() }], editText);
		expect(error).toBeUndefined();
		const calls = emu.callsTo('editMessageText');
		expect(calls.map((call) => [call.body.chat_id, call.body.message_id])).toEqual([[clicked.chatId, clicked.messageId]]);
		expect(emu.history(clicked.chatId).find((message) => message.message_id === clicked.messageId)?.text).toBe('Refund 42: approved');
	});

	it('Delete Message and Edit Message Reply Markup with nothing mapped act on the clicked message', async () => {
		const clicked = await clickItems();
		const removed = await runAfter(clicked.items, [passOn], { resource: 'message', operation: 'editMessageReplyMarkup' });
		expect(removed.error).toBeUndefined();
		expect(emu.callsTo('editMessageReplyMarkup').map((call) => call.body.message_id)).toEqual([clicked.messageId]);
		const deleted = await runAfter(clicked.items, [passOn], { resource: 'message', operation: 'deleteMessage' });
		expect(deleted.error).toBeUndefined();
		expect(emu.callsTo('deleteMessage').map((call) => [call.body.chat_id, call.body.message_id])).toEqual([[clicked.chatId, clicked.messageId]]);
	});

	it('an update that is a message, not a click: Edit fails before sending, saying so and what to map instead', async () => {
		const listening = await liveTrigger(emu, { typeVersion: 2 });
		live.push(listening);
		await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'hello' });
		await emu.idle();
		const { error } = await runAfter(listening.emitted(), [passOn], editText);
		expect(error?.message).toMatch(/^Message ID: /);
		expect(error?.message).toMatch(/not a button click/);
		expect(`${error?.message} ${error?.description ?? ''}`).toMatch(/By ID/);
		expect(`${error?.message} ${error?.description ?? ''}`).toContain('{{ $json.message_id }}');
		expect(emu.callsTo('editMessageText')).toHaveLength(0);
	});

	it('a node that makes new items without pairing: Answer Callback Query names that node and what to map instead, and sends nothing', async () => {
		// Two items in, four out: n8n cannot pair them by itself (it does where one item comes in).
		const clicked = await clickItems(2);
		expect(clicked.items).toHaveLength(2);
		const { error } = await runAfter(clicked.items, [{ name: 'Split Lines', nodeType: new FanOut() }], answer);
		expect(error?.message).toMatch(/^Callback Query ID: /);
		expect(error?.message).toContain('"Split Lines"');
		expect(`${error?.message} ${error?.description ?? ''}`).toContain('{{ $json.callback_query_id }}');
		expect(emu.callsTo('answerCallbackQuery')).toHaveLength(0);
	});

	it('no Service Bot trigger before the node: fails before sending, naming the field', async () => {
		const { error } = await executeNode({ nodeType, parameters: answer, items: [{ text: 'hi' }], credentials: credentialsFor(emu) });
		expect(error?.message).toMatch(/^Callback Query ID: /);
		expect(error?.message).toMatch(/no Service Bot trigger/i);
		expect(emu.callsTo('answerCallbackQuery')).toHaveLength(0);
	});

	it('version 3 nodes (saved workflows) keep Callback Query ID and Message ID required: n8n refuses to run them empty', async () => {
		const clicked = await clickItems();
		await expect(runAfter(clicked.items, [passOn], answer, 3)).rejects.toThrow(/The 'Service Bot' node has issues/);
		await expect(runAfter(clicked.items, [passOn], { ...editText, chatId: { __rl: true, mode: 'id', value: clicked.chatId } }, 3)).rejects.toThrow(
			/The 'Service Bot' node has issues/,
		);
		expect(emu.callsTo('answerCallbackQuery')).toHaveLength(0);
		expect(emu.callsTo('editMessageText')).toHaveLength(0);
	});
});
