/**
 * Issue 13, the chat side: a Send and Wait for Response of the action node waits (n8n-core's engine,
 * test/harness/waiting.ts, its resume URLs on a real HTTP server as n8n serves them), the emulator's
 * user taps or replies, the Service Bot Trigger receives the update (webhook push, or polling) and
 * resumes that execution — or, for anything not genuine, resumes nothing and tells the user.
 *
 * Expected notices and outputs are the ones the README documents; forged buttons are made here from
 * the protocol the README states (`w1:<execution>:<choice>:<tag>`), never with the package's code.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { ServiceBot } from '../../nodes/ServiceBot/ServiceBot.node';
import { ServiceBotPollingTrigger } from '../../nodes/ServiceBotPollingTrigger/ServiceBotPollingTrigger.node';
import { POLL_TIMING } from '../../nodes/ServiceBotTrigger/polling/poll';
import type { CallbackAnswer, Emulator, StoredMessage } from '../emulator';
import type { RunningTrigger, TriggerHarness } from '../harness';
import { runUntilWait, serveWaiting, type WaitingExecution, type WaitingServer } from '../harness/waiting';
import { byId } from '../serviceBot/helpers';
import { api, liveTrigger, makeHarness, startTestEmulator, type LiveTrigger } from './helpers';

interface Button {
	text: string;
	callback_data?: string;
	url?: string;
}

const NOTICE = {
	forged: 'This button is not valid.',
	gone: 'This question was already answered or has expired.',
	notAllowed: 'You may not answer this question.',
	replyWithText: 'Reply to this message with your answer.',
	noLink: 'This question cannot be answered in the chat anymore.',
};

let emu: Emulator;
let waiting: WaitingServer;
const stops: Array<() => Promise<void>> = [];

beforeAll(async () => {
	emu = await startTestEmulator();
	waiting = await serveWaiting();
});

beforeEach(() => {
	jest.replaceProperty(POLL_TIMING, 'idlePauseMs', 20);
});

afterEach(async () => {
	for (const stop of stops.splice(0)) await stop();
	jest.restoreAllMocks();
	emu.reset();
	waiting.receipts.length = 0;
});

afterAll(async () => {
	await waiting.close();
	await emu.close();
});

/** Asks in a chat with the action node; the execution waits, its resume URL served by `waiting`. */
async function ask(extra: INodeParameters = {}, chatId = emu.demo.privateChatId): Promise<WaitingExecution> {
	const execution = await runUntilWait({
		nodeType: new ServiceBot(),
		parameters: { resource: 'message', operation: 'sendAndWait', chatId: byId(chatId), message: 'Approve the refund?', ...extra },
		items: [{ refund: 42 }],
		credentials: { accessToken: emu.demo.token, baseUrl: emu.baseUrl },
		webhookBaseUrl: waiting.baseUrl,
	});
	waiting.add(execution);
	return execution;
}

/** The bot's last message in a chat: the question. */
function lastQuestion(chatId = emu.demo.privateChatId): StoredMessage & { keyboard: Button[][] } {
	const history = emu.history(chatId).filter((message) => message.sent_by_bot);
	const message = history[history.length - 1];
	return { ...message, keyboard: (message.reply_markup as { inline_keyboard?: Button[][] } | undefined)?.inline_keyboard ?? [] };
}

function button(keyboard: Button[][], text: string): Button {
	const found = keyboard.flat().find((candidate) => candidate.text === text);
	if (!found) throw new Error(`no button "${text}" in ${JSON.stringify(keyboard)}`);
	return found;
}

type Delivery = 'webhook' | 'polling';

interface Receiver {
	/** Resolves once the trigger has handled every update the emulator holds for it. */
	settled(): Promise<void>;
	/** The JSON of every item the trigger started its workflow with. */
	emitted(): IDataObject[];
}

/** An active Service Bot Trigger (webhook) or Service Bot Polling Trigger on the demo bot, Trigger On: messages only. */
async function receiver(delivery: Delivery, parameters: INodeParameters = { updates: ['message'], options: {} }): Promise<Receiver> {
	if (delivery === 'webhook') {
		const live: LiveTrigger = await liveTrigger(emu, { parameters });
		stops.push(live.close);
		return { settled: async () => await emu.idle(), emitted: live.emitted };
	}
	const harness: TriggerHarness = await makeHarness(emu, { nodeType: new ServiceBotPollingTrigger(), parameters });
	const trigger: RunningTrigger = await harness.startTrigger();
	stops.push(async () => await trigger.close());
	return {
		// The emulator drops an update once a getUpdates acknowledges it, and the poller asks again only
		// after it has handled everything it got.
		settled: async () => {
			while (emu.pendingUpdates().length > 0) await new Promise((resolve) => setTimeout(resolve, 5));
		},
		emitted: () => trigger.emitted.flatMap((run) => run[0].map((item) => item.json)),
	};
}

async function tap(question: { message_id: number; keyboard: Button[][] }, label: string, options: { userId?: string; chatId?: string } = {}) {
	const data = button(question.keyboard, label).callback_data;
	if (data === undefined) throw new Error(`"${label}" is a link button`);
	return await emu.userClicks({
		chatId: options.chatId ?? emu.demo.privateChatId,
		userId: options.userId ?? emu.demo.userId,
		messageId: question.message_id,
		data,
	});
}

function answerTo(callbackQueryId: string): CallbackAnswer | undefined {
	return emu.callbackAnswers().find((answer) => answer.callback_query_id === callbackQueryId);
}

describe.each<Delivery>(['webhook', 'polling'])('answers in the chat, %s delivery', (delivery) => {
	test('Approve: the tap resumes the execution with approved: true, the spinner stops with the decision, and the workflow of the trigger does not start', async () => {
		const trigger = await receiver(delivery);
		const execution = await ask();
		const question = lastQuestion();
		const update = await tap(question, '✅ Approve');
		await trigger.settled();

		expect(execution.finished?.output).toEqual([
			expect.objectContaining({
				json: expect.objectContaining({
					approved: true,
					answer: '✅ Approve',
					user: expect.objectContaining({ id: emu.demo.userId }),
					chatId: emu.demo.privateChatId,
					messageId: question.message_id,
					answeredVia: 'chat',
				}),
			}),
		]);
		expect(answerTo(String(update.callback_query?.id))?.text).toBe('✅ Approve');
		// The question shows the answer and has no buttons left.
		const after = emu.history(emu.demo.privateChatId).find((message) => message.message_id === question.message_id);
		expect(after?.text).toBe('Approve the refund?\n\n✅ Approve — Demo');
		expect(after?.reply_markup).toBeUndefined();
		expect(trigger.emitted()).toEqual([]);
	});

	test('Choice: the tapped option is the answer, with its index', async () => {
		const trigger = await receiver(delivery);
		const execution = await ask({ responseType: 'choice', choices: 'Small, Medium, Large' });
		await tap(lastQuestion(), 'Large');
		await trigger.settled();
		expect(execution.finished?.output[0].json).toMatchObject({ answer: 'Large', answerIndex: 2, answeredVia: 'chat' });
		expect(execution.finished?.output[0].json).not.toHaveProperty('approved');
	});

	test('Free Text: the answer button asks for a reply; the reply to the question is the answer', async () => {
		const trigger = await receiver(delivery);
		const execution = await ask({ responseType: 'freeText', message: 'Why the refund?' });
		const question = lastQuestion();
		const tapped = await tap(question, '✍️ Answer');
		await trigger.settled();
		expect(answerTo(String(tapped.callback_query?.id))?.text).toBe(NOTICE.replyWithText);
		expect(execution.finished).toBeUndefined();

		await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'Broken on arrival', replyToMessageId: question.message_id });
		await trigger.settled();
		expect(execution.finished?.output[0].json).toMatchObject({
			text: 'Broken on arrival',
			user: expect.objectContaining({ id: emu.demo.userId }),
			messageId: question.message_id,
			answeredVia: 'chat',
		});
		expect(trigger.emitted()).toEqual([]);
	});
});

describe('who may answer, and what is not an answer (webhook delivery)', () => {
	test('restricted responder: another user gets a notice and nothing resumes; the listed user then resumes it', async () => {
		const trigger = await receiver('webhook');
		const execution = await ask({ options: { allowedUserIds: emu.demo.userId } }, emu.demo.groupChatId);
		const question = lastQuestion(emu.demo.groupChatId);

		const stranger = await tap(question, '✅ Approve', { userId: emu.demo.otherUserId, chatId: emu.demo.groupChatId });
		await trigger.settled();
		expect(answerTo(String(stranger.callback_query?.id))?.text).toBe(NOTICE.notAllowed);
		expect(execution.finished).toBeUndefined();

		await tap(question, '❌ Decline', { chatId: emu.demo.groupChatId });
		await trigger.settled();
		expect(execution.finished?.output[0].json).toMatchObject({ approved: false, user: expect.objectContaining({ id: emu.demo.userId }) });
	});

	test('a restricted free-text question: a reply from another user gets a reply with the notice and resumes nothing', async () => {
		const trigger = await receiver('webhook');
		const execution = await ask({ responseType: 'freeText', options: { allowedUserIds: emu.demo.userId } }, emu.demo.groupChatId);
		const question = lastQuestion(emu.demo.groupChatId);
		const reply = await emu.userSends({ chatId: emu.demo.groupChatId, userId: emu.demo.otherUserId, text: 'me!', replyToMessageId: question.message_id });
		await trigger.settled();
		expect(execution.finished).toBeUndefined();
		const notice = lastQuestion(emu.demo.groupChatId);
		expect(notice).toMatchObject({ text: NOTICE.notAllowed, reply_to_message_id: reply.message?.message_id });
	});

	test('forged data (a made-up tag) and tampered data (another choice under a genuine tag) resume nothing and get a notice', async () => {
		const trigger = await receiver('webhook');
		const execution = await ask();
		const question = lastQuestion();
		const approve = String(button(question.keyboard, '✅ Approve').callback_data);
		const [prefix, executionId, , tag] = approve.split(':');
		const forged = `${prefix}:${executionId}:0:${'A'.repeat(tag.length)}`;
		const tampered = `${prefix}:${executionId}:1:${tag}`;
		// Buttons with that data on a message of the bot, as someone with the token could make.
		const decoy = await api<{ message_id: number }>(emu, 'sendMessage', {
			chat_id: emu.demo.privateChatId,
			text: 'decoy',
			reply_markup: { inline_keyboard: [[{ text: 'forged', callback_data: forged }, { text: 'tampered', callback_data: tampered }], [button(question.keyboard, '🌐 Answer in the browser')]] },
		});
		const keyboard = [[{ text: 'forged', callback_data: forged }, { text: 'tampered', callback_data: tampered }]];
		const taps = [
			await tap({ message_id: Number(decoy.result?.message_id), keyboard }, 'forged'),
			await tap({ message_id: Number(decoy.result?.message_id), keyboard }, 'tampered'),
		];
		await trigger.settled();
		for (const update of taps) expect(answerTo(String(update.callback_query?.id))?.text).toBe(NOTICE.forged);
		expect(waiting.receipts).toEqual([]);
		expect(execution.finished).toBeUndefined();
		expect(trigger.emitted()).toEqual([]);
	});

	test('replayed: the genuine data copied into another chat is refused; a second tap after the answer gets "already answered"', async () => {
		const trigger = await receiver('webhook');
		const execution = await ask({ options: { afterAnswer: 'leave' } });
		const question = lastQuestion();
		const copy = await api<{ message_id: number }>(emu, 'sendMessage', {
			chat_id: emu.demo.groupChatId,
			text: 'copy',
			reply_markup: { inline_keyboard: question.keyboard },
		});
		const copied = await tap({ message_id: Number(copy.result?.message_id), keyboard: question.keyboard }, '✅ Approve', { chatId: emu.demo.groupChatId });
		await trigger.settled();
		expect(answerTo(String(copied.callback_query?.id))?.text).toBe(NOTICE.forged);
		expect(execution.finished).toBeUndefined();

		await tap(question, '✅ Approve');
		await trigger.settled();
		expect(execution.finished?.output[0].json).toMatchObject({ approved: true });
		const again = await tap(question, '❌ Decline');
		await trigger.settled();
		expect(answerTo(String(again.callback_query?.id))?.text).toBe(NOTICE.gone);
		expect(waiting.receipts.filter((receipt) => receipt.resumed)).toHaveLength(1);
	});

	test('expired: a tap after the wait ran out resumes nothing and gets "already answered or has expired"', async () => {
		const trigger = await receiver('webhook');
		const execution = await ask({ options: { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 1, resumeUnit: 'minutes' } } } });
		const question = lastQuestion();
		const timedOut = await execution.timeOut();
		expect(timedOut.output[0].json).toMatchObject({ refund: 42, timedOut: true, messageId: question.message_id });
		const late = await tap(question, '✅ Approve');
		await trigger.settled();
		expect(answerTo(String(late.callback_query?.id))?.text).toBe(NOTICE.gone);
		expect(waiting.receipts.filter((receipt) => receipt.resumed)).toEqual([]);
	});

	test('two questions waiting in the same chat: each tap resumes its own execution', async () => {
		const trigger = await receiver('webhook');
		const first = await ask({ message: 'First?' });
		const firstQuestion = lastQuestion();
		const second = await ask({ message: 'Second?' });
		const secondQuestion = lastQuestion();
		await tap(secondQuestion, '❌ Decline');
		await tap(firstQuestion, '✅ Approve');
		await trigger.settled();
		expect(first.finished?.output[0].json).toMatchObject({ approved: true, messageId: firstQuestion.message_id });
		expect(second.finished?.output[0].json).toMatchObject({ approved: false, messageId: secondQuestion.message_id });
	});

	test('a genuine tap whose question lost its resume link resumes nothing and says it cannot be answered in the chat', async () => {
		const trigger = await liveTrigger(emu, { parameters: { updates: ['*'], options: {} } });
		stops.push(trigger.close);
		const execution = await ask();
		const question = lastQuestion();
		const receipt = await trigger.harness.receive({
			headers: { 'X-Service-Bot-Api-Secret-Token': trigger.secret },
			body: {
				update_id: 7001,
				callback_query: {
					id: 'cb-without-link',
					from: { id: emu.demo.userId, is_bot: false, first_name: 'Demo' },
					// The message without its keyboard (the spec does not show that a click carries it).
					message: { message_id: question.message_id, chat: { id: emu.demo.privateChatId, type: 'private' } },
					data: button(question.keyboard, '✅ Approve').callback_data,
				},
			},
		});
		expect(receipt.workflowData).toBeUndefined();
		expect(emu.callsTo('answerCallbackQuery').at(-1)?.body).toMatchObject({ callback_query_id: 'cb-without-link', text: NOTICE.noLink });
		expect(execution.finished).toBeUndefined();
	});

	test('Trigger On with only messages: the service still sends clicks; a click that is not an answer starts nothing', async () => {
		const trigger = await receiver('webhook');
		expect(emu.webhookOf()?.allowedUpdates).toEqual(['message', 'callback_query']);
		const sent = await api<{ message_id: number }>(emu, 'sendMessage', {
			chat_id: emu.demo.privateChatId,
			text: 'pick',
			reply_markup: { inline_keyboard: [[{ text: 'Plain', callback_data: 'plain' }]] },
		});
		await tap({ message_id: Number(sent.result?.message_id), keyboard: [[{ text: 'Plain', callback_data: 'plain' }]] }, 'Plain');
		await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'hello' });
		await trigger.settled();
		expect(trigger.emitted().map((item) => (item.message as IDataObject | undefined)?.text)).toEqual(['hello']);
		expect(waiting.receipts).toEqual([]);
	});
});

describe('the editor test of the polling trigger', () => {
	test('leaves answers to the published trigger: it neither emits nor brings them, nor acknowledges them', async () => {
		const execution = await ask();
		await tap(lastQuestion(), '✅ Approve');
		await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'test me' });
		const harness = await makeHarness(emu, { nodeType: new ServiceBotPollingTrigger(), parameters: { updates: ['*'], options: {} } });
		const run = await harness.startManualTrigger();
		const { items } = await run.result;
		await run.close();
		expect(items?.[0].map((item) => (item.json.message as IDataObject | undefined)?.text)).toEqual(['test me']);
		expect(waiting.receipts).toEqual([]);
		expect(execution.finished).toBeUndefined();
		expect(emu.pendingUpdates()).toHaveLength(2);
	});
});
