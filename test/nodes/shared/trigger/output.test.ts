/**
 * What a trigger's item holds, by node version. Version 2 (new nodes) puts `sessionId` (the chat) and
 * `chatInput` (the text or caption; a click's data) on every item — the fields n8n's AI Agent
 * (`$json.chatInput`) and memory nodes (`$json.sessionId`) read in their automatic modes — and adds the
 * handy fields unless they are turned off. Version 1 (saved workflows) keeps its output. Version 3
 * gives Separate Outputs by Kind a Files output; versions 1 and 2 keep their three outputs.
 */
import type { IDataObject, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';

import { ServiceBotPollingTrigger } from '../../../../nodes/ServiceBotPollingTrigger/ServiceBotPollingTrigger.node';
import { ServiceBotTrigger } from '../../../../nodes/ServiceBotTrigger/ServiceBotTrigger.node';
import type { Emulator } from '../../../emulator';
import { SECRET_HEADER, makeHarness, messageUpdate, sendButton } from '../../../harness/trigger-nodes';
import { useEmulator } from '../../../harness/emulator-suite';

let emu: Emulator;
useEmulator({ started: (started) => (emu = started) });

/** What version `typeVersion` of the webhook trigger outputs for `update`. */
async function itemFor(update: IDataObject, typeVersion: number, options: Record<string, string | boolean> = {}): Promise<IDataObject | undefined> {
	const harness = await makeHarness(emu, { typeVersion, parameters: { updates: ['*'], options } });
	await harness.activate();
	const receipt = await harness.receive({ headers: { [SECRET_HEADER]: emu.webhookOf()?.secretToken ?? '' }, body: update });
	await harness.delete();
	return receipt.workflowData?.[0][0].json;
}

describe('version 2: ready for an AI Agent with memory, and the handy fields without an option', () => {
	test('a message: sessionId is its chat, chatInput its text; the handy fields are there; the update is kept whole', async () => {
		const update = messageUpdate(1, emu.demo.privateChatId, emu.demo.userId, 'What is my order status?');
		expect(await itemFor(update, 2)).toEqual({
			...update,
			update_type: 'message',
			chat_id: emu.demo.privateChatId,
			message_id: 1,
			user_id: emu.demo.userId,
			user: (update.message as IDataObject).from,
			text: 'What is my order status?',
			callback_data: null,
			callback_query_id: null,
			// What file arrived: none.
			file_summary: null,
			file_kind: null,
			file_id: null,
			file_name: null,
			mime_type: null,
			file_size: null,
			file_width: null,
			file_height: null,
			file_duration: null,
			sessionId: emu.demo.privateChatId,
			chatInput: 'What is my order status?',
		});
	});

	test('the fields users map come first and the update as received after them: the order n8n\'s schema view lists them in', async () => {
		const update = messageUpdate(3, emu.demo.privateChatId, emu.demo.userId, 'hello');
		const keys = Object.keys((await itemFor(update, 2)) ?? {});
		expect(keys.slice(0, 4)).toEqual(['update_type', 'chat_id', 'message_id', 'user_id']);
		expect(keys.slice(-2)).toEqual(['update_id', 'message']);
		// Fields the service may add at the top of an update follow them; a handy field keeps its value.
		const extended = { ...update, text: 'not the handy one', extra: 1 };
		const item = (await itemFor(extended, 2)) ?? {};
		expect(item.text).toBe('hello');
		expect(Object.keys(item).slice(-3)).toEqual(['update_id', 'message', 'extra']);
	});

	test('a photo with a caption: chatInput is the caption', async () => {
		const update = messageUpdate(2, emu.demo.groupChatId, emu.demo.userId);
		const message = update.message as IDataObject;
		delete message.text;
		message.photo = [{ file_id: emu.demo.media.photo, width: 10, height: 10 }];
		message.caption = 'Is this damaged?';
		expect(await itemFor(update, 2)).toMatchObject({ sessionId: emu.demo.groupChatId, chatInput: 'Is this damaged?' });
	});

	test('a button click: chatInput is its data, sessionId the chat of its message', async () => {
		const messageId = await sendButton(emu, emu.demo.groupChatId, 'refund:yes');
		const click = await emu.userClicks({ chatId: emu.demo.groupChatId, userId: emu.demo.otherUserId, messageId, data: 'refund:yes' });
		expect(await itemFor(click as unknown as IDataObject, 2)).toMatchObject({ sessionId: emu.demo.groupChatId, chatInput: 'refund:yes', callback_data: 'refund:yes' });
	});

	test('Add Handy Fields says in the panel every handy field the item carries, the file\'s size and length included', async () => {
		// The fields a person looks for in the option's description before the first update arrives.
		const handyFields = ['update_type', 'chat_id', 'message_id', 'user_id', 'user', 'text', 'callback_data', 'callback_query_id', 'file_summary', 'file_kind', 'file_id', 'file_name', 'mime_type', 'file_size', 'file_width', 'file_height', 'file_duration'];
		const update = messageUpdate(6, emu.demo.privateChatId, emu.demo.userId, 'hi');
		const item = (await itemFor(update, 2)) ?? {};
		expect(Object.keys(item).filter((key) => !(key in update) && key !== 'sessionId' && key !== 'chatInput').sort()).toEqual([...handyFields].sort());
		const optionsV2 = new ServiceBotTrigger().description.properties.find((property) => property.name === 'options' && JSON.stringify(property.displayOptions).includes('gte'));
		const description = optionsV2?.options?.find((option) => 'name' in option && option.name === 'addHandyFields') as { description?: string } | undefined;
		const named = (field: string): boolean => new RegExp(`(^|[^a-z_])${field}([^a-z_]|$)`).test(description?.description ?? '');
		expect(handyFields.filter((field) => !named(field))).toEqual([]);
	});

	test('Add Handy Fields turned off: no handy fields, sessionId and chatInput stay', async () => {
		const update = messageUpdate(3, emu.demo.privateChatId, emu.demo.userId, 'hi');
		expect(await itemFor(update, 2, { addHandyFields: false })).toEqual({ ...update, sessionId: emu.demo.privateChatId, chatInput: 'hi' });
	});

	test('the polling trigger gives the same item', async () => {
		const harness = await makeHarness(emu, { typeVersion: 2, nodeType: new ServiceBotPollingTrigger(), parameters: { updates: ['*'], options: {} } });
		const trigger = await harness.startTrigger();
		const sent = await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'polled' });
		await trigger.waitForEmits(1);
		await trigger.close();
		expect(trigger.emitted[0][0][0].json).toMatchObject({ update_id: sent.update_id, chat_id: emu.demo.privateChatId, text: 'polled', sessionId: emu.demo.privateChatId, chatInput: 'polled' });
	});
});

describe('version 1: saved workflows keep their output', () => {
	test('the update as received, nothing added', async () => {
		const update = messageUpdate(4, emu.demo.privateChatId, emu.demo.userId, 'hi');
		expect(await itemFor(update, 1)).toEqual(update);
	});

	test('with Add Handy Fields: the handy fields, and no sessionId or chatInput', async () => {
		const update = messageUpdate(5, emu.demo.privateChatId, emu.demo.userId, 'hi');
		const item = await itemFor(update, 1, { addHandyFields: true });
		expect(item).toMatchObject({ chat_id: emu.demo.privateChatId, text: 'hi' });
		expect(item).not.toHaveProperty('sessionId');
		expect(item).not.toHaveProperty('chatInput');
	});
});

describe('Separate Outputs by Kind: messages, commands and clicks each on their own output, no Switch needed', () => {
	/** Update ids per output, in the order the outputs are listed. */
	const idsPerOutput = (outputs: INodeExecutionData[][][]): number[][] =>
		[0, 1, 2].map((output) => outputs.flatMap((data) => (data[output] ?? []).map((item) => Number(item.json.update_id))));

	test('n8n shows three outputs named Messages, Commands and Clicks when it is on, one output when it is off', () => {
		const description = new ServiceBotTrigger().description;
		const outputsOf = (options: Record<string, boolean>): unknown => {
			const workflow = new Workflow({
				nodes: [{ id: '1', name: 'Trigger', type: 'serviceBotTrigger', typeVersion: 2, position: [0, 0], parameters: { updates: ['*'], options } }],
				connections: {},
				active: false,
				nodeTypes: { getByName: () => new ServiceBotTrigger(), getByNameAndVersion: () => new ServiceBotTrigger(), getKnownTypes: () => ({}) },
			});
			return NodeHelpers.getNodeOutputs(workflow, workflow.getNode('Trigger') as INode, description);
		};
		expect(outputsOf({})).toEqual(['main']);
		expect(outputsOf({ separateOutputs: true })).toEqual([
			{ type: 'main', displayName: 'Messages' },
			{ type: 'main', displayName: 'Commands' },
			{ type: 'main', displayName: 'Clicks' },
		]);
		expect(new ServiceBotPollingTrigger().description.outputs).toBe(description.outputs);
	});

	test('webhook: a message, a /command and a click come out on Messages, Commands and Clicks', async () => {
		const harness = await makeHarness(emu, { typeVersion: 2, parameters: { updates: ['*'], options: { separateOutputs: true } } });
		await harness.activate();
		const secret = { [SECRET_HEADER]: emu.webhookOf()?.secretToken ?? '' };
		const messageId = await sendButton(emu, emu.demo.privateChatId, 'vote:yes');
		const click = await emu.userClicks({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, messageId, data: 'vote:yes' });
		const outputs: INodeExecutionData[][][] = [];
		// Ids apart from the emulator's own (the click's), which the duplicate window would take for a repeat.
		for (const body of [messageUpdate(901, emu.demo.privateChatId, emu.demo.userId, 'hello'), messageUpdate(902, emu.demo.privateChatId, emu.demo.userId, '/start'), click]) {
			outputs.push((await harness.receive({ headers: secret, body })).workflowData ?? []);
		}
		await harness.delete();
		expect(outputs.map((data) => data.length)).toEqual([3, 3, 3]);
		expect(idsPerOutput(outputs)).toEqual([[901], [902], [click.update_id]]);
	});

	test('polling: the same routing; a /command is never held by Group Messages Within', async () => {
		const harness = await makeHarness(emu, {
			typeVersion: 2,
			nodeType: new ServiceBotPollingTrigger(),
			parameters: { updates: ['*'], options: { separateOutputs: true, groupMessagesSeconds: 60 } },
		});
		const trigger = await harness.startTrigger();
		const command = await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: '/help' });
		await trigger.waitForEmits(1);
		const message = await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'thanks' });
		// Gathered (not run) once a getUpdates answer held it and the trigger asks again; closing runs it.
		const held = (call: { response: unknown }): boolean => ((call.response as { result?: IDataObject[] } | null)?.result ?? []).some((update) => update.update_id === message.update_id);
		for (;;) {
			const polls = emu.callsTo('getUpdates');
			const at = polls.findIndex(held);
			if (at >= 0 && polls.length > at + 1) break;
			await new Promise((resolve) => setTimeout(resolve, 5));
		}
		expect(trigger.emitted).toHaveLength(1);
		await trigger.close();
		expect(idsPerOutput(trigger.emitted.map((data) => data))).toEqual([[message.update_id], [command.update_id], []]);
	});
});

describe('version 3: Separate Outputs by Kind gives messages carrying a file their own output, Files', () => {
	/** Update ids per output, in the order the outputs are listed. */
	const idsPerOutput = (outputs: INodeExecutionData[][][], count: number): number[][] =>
		[...Array(count).keys()].map((output) => outputs.flatMap((data) => (data[output] ?? []).map((item) => Number(item.json.update_id))));

	const outputsOf = (typeVersion: number, options: Record<string, boolean>): unknown => {
		const description = new ServiceBotTrigger().description;
		const workflow = new Workflow({
			nodes: [{ id: '1', name: 'Trigger', type: 'serviceBotTrigger', typeVersion, position: [0, 0], parameters: { updates: ['*'], options } }],
			connections: {},
			active: false,
			nodeTypes: { getByName: () => new ServiceBotTrigger(), getByNameAndVersion: () => new ServiceBotTrigger(), getKnownTypes: () => ({}) },
		});
		return NodeHelpers.getNodeOutputs(workflow, workflow.getNode('Trigger') as INode, description);
	};

	test('n8n shows four outputs named Messages, Files, Commands and Clicks at version 3; new nodes are version 3', () => {
		expect(outputsOf(3, { separateOutputs: true })).toEqual([
			{ type: 'main', displayName: 'Messages' },
			{ type: 'main', displayName: 'Files' },
			{ type: 'main', displayName: 'Commands' },
			{ type: 'main', displayName: 'Clicks' },
		]);
		expect(outputsOf(3, {})).toEqual(['main']);
		expect(new ServiceBotTrigger().description.defaultVersion).toBe(3);
		expect(new ServiceBotPollingTrigger().description.defaultVersion).toBe(3);
	});

	test('saved workflows keep their three outputs: versions 1 and 2 show Messages, Commands and Clicks', () => {
		for (const typeVersion of [1, 2]) {
			expect(outputsOf(typeVersion, { separateOutputs: true })).toEqual([
				{ type: 'main', displayName: 'Messages' },
				{ type: 'main', displayName: 'Commands' },
				{ type: 'main', displayName: 'Clicks' },
			]);
		}
	});

	/** What a user sends, one of each kind, and the output (of Messages, Files, Commands, Clicks) each belongs on. */
	async function oneOfEach(): Promise<Array<{ update: IDataObject; output: number }>> {
		const chatId = emu.demo.privateChatId;
		const userId = emu.demo.userId;
		const text = await emu.userSends({ chatId, userId, text: 'hello' });
		const photo = await emu.userSends({ chatId, userId, media: { kind: 'photo', bytes: Buffer.from('photo bytes'), width: 1600, height: 1000 } });
		const voice = await emu.userSends({ chatId, userId, media: { kind: 'voice', bytes: Buffer.from('OggS voice'), mimeType: 'audio/ogg', duration: 3 } });
		// A caption is no reason to lose the file: a captioned photo is a file, whatever the caption says.
		const captioned = await emu.userSends({ chatId, userId, caption: '/start is this damaged?', media: { kind: 'photo', bytes: Buffer.from('photo 2'), width: 60, height: 40 } });
		const command = await emu.userSends({ chatId, userId, text: '/help' });
		const messageId = await sendButton(emu, chatId, 'vote:yes');
		const click = await emu.userClicks({ chatId, userId, messageId, data: 'vote:yes' });
		return [
			{ update: text as unknown as IDataObject, output: 0 },
			{ update: photo as unknown as IDataObject, output: 1 },
			{ update: voice as unknown as IDataObject, output: 1 },
			{ update: captioned as unknown as IDataObject, output: 1 },
			{ update: command as unknown as IDataObject, output: 2 },
			{ update: click as unknown as IDataObject, output: 3 },
		];
	}

	const expectedIds = (sent: Array<{ update: IDataObject; output: number }>, count: number): number[][] =>
		[...Array(count).keys()].map((output) => sent.filter((one) => one.output === output).map((one) => Number(one.update.update_id)));

	/** One update of each kind pushed to a published webhook trigger of `typeVersion` with Separate Outputs on: what it emitted for each. */
	async function separatedByWebhook(typeVersion: number): Promise<{ sent: Array<{ update: IDataObject; output: number }>; outputs: INodeExecutionData[][][] }> {
		const harness = await makeHarness(emu, { typeVersion, parameters: { updates: ['*'], options: { separateOutputs: true } } });
		await harness.activate();
		const secret = { [SECRET_HEADER]: emu.webhookOf()?.secretToken ?? '' };
		const sent = await oneOfEach();
		const outputs: INodeExecutionData[][][] = [];
		for (const { update } of sent) outputs.push((await harness.receive({ headers: secret, body: update })).workflowData ?? []);
		await harness.delete();
		return { sent, outputs };
	}

	test('webhook: a text on Messages; a photo, a voice note and a captioned photo on Files; a /command on Commands; a click on Clicks', async () => {
		const { sent, outputs } = await separatedByWebhook(3);
		expect(outputs.map((data) => data.length)).toEqual(sent.map(() => 4));
		expect(idsPerOutput(outputs, 4)).toEqual(expectedIds(sent, 4));
		// The item on Files has the file's handy fields a Transcribe or an image node maps.
		expect(outputs[2][1][0].json).toMatchObject({ file_kind: 'voice', file_duration: 3, text: null });
	});

	test('webhook at version 2 (saved workflows): a photo stays on Messages, a captioned /start photo on Commands', async () => {
		const { sent, outputs } = await separatedByWebhook(2);
		const ids = sent.map(({ update }) => Number(update.update_id));
		expect(idsPerOutput(outputs, 3)).toEqual([[ids[0], ids[1], ids[2]], [ids[3], ids[4]], [ids[5]]]);
	});

	test('polling: the same routing; a voice note grouped with a text by Group Messages Within goes to Files', async () => {
		const harness = await makeHarness(emu, { typeVersion: 3, nodeType: new ServiceBotPollingTrigger(), parameters: { updates: ['*'], options: { separateOutputs: true } } });
		const trigger = await harness.startTrigger();
		const sent = await oneOfEach();
		await trigger.waitForEmits(sent.length);
		await trigger.close();
		expect(idsPerOutput(trigger.emitted, 4)).toEqual(expectedIds(sent, 4));

		const grouping = await makeHarness(emu, {
			typeVersion: 3,
			nodeType: new ServiceBotPollingTrigger(),
			parameters: { updates: ['*'], options: { separateOutputs: true, groupMessagesSeconds: 60 } },
		});
		const grouped = await grouping.startTrigger();
		const voice = await emu.userSends({ chatId: emu.demo.groupChatId, userId: emu.demo.userId, media: { kind: 'voice', bytes: Buffer.from('OggS'), mimeType: 'audio/ogg', duration: 1 } });
		const text = await emu.userSends({ chatId: emu.demo.groupChatId, userId: emu.demo.userId, text: 'and this' });
		// Gathered (not run) once a getUpdates answer held the text and the trigger asks again; closing runs it.
		const held = (call: { response: unknown }): boolean => ((call.response as { result?: IDataObject[] } | null)?.result ?? []).some((update) => update.update_id === text.update_id);
		for (;;) {
			const polls = emu.callsTo('getUpdates');
			const at = polls.findIndex(held);
			if (at >= 0 && polls.length > at + 1) break;
			await new Promise((resolve) => setTimeout(resolve, 5));
		}
		await grouped.close();
		expect(idsPerOutput(grouped.emitted, 4)).toEqual([[], [text.update_id], [], []]);
		expect(grouped.emitted[0][1][0].json).toMatchObject({ file_kind: 'voice', text: 'and this' });
		expect(voice.update_id).toBeLessThan(text.update_id);
	});
});
