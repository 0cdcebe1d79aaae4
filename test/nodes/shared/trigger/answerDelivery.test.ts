/**
 * Answers in the chat to a Send and Wait for Response: the action node's execution waits (n8n-core's
 * engine, resumed the way n8n resumes it: test/harness/waiting.ts, on the same HTTP server as the
 * trigger's webhook, as one n8n serves both), the emulator's users tap or reply, the Service Bot
 * Trigger receives the update (webhook push, or polling) and brings it to that execution — and every
 * person is told what happened: only the answer n8n resumed with counts, the chat shows that one.
 *
 * Expected notices and outputs are the ones the README documents; buttons are read and made here from
 * the protocol the README states (`w2:<execution, base 36>:<choice>:<resume key>`, `w1:…` before),
 * never with the package's code.
 */
import { createHmac } from 'node:crypto';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { ServiceBot } from '../../../../nodes/ServiceBot/ServiceBot.node';
import { ServiceBotPollingTrigger } from '../../../../nodes/ServiceBotPollingTrigger/ServiceBotPollingTrigger.node';
import { POLL_TIMING } from '../../../../nodes/ServiceBotPollingTrigger/feed';
import type { CallbackAnswer, Emulator, StoredMessage, Update } from '../../../emulator';
import { freePort, startWebhookServer, type RunningTrigger, type TestCredentials, type TriggerHarness } from '../../../harness';
import { runUntilWait, serveWaiting, waitingRouter, type WaitingExecution, type WaitingRouter } from '../../../harness/waiting';
import { byId } from '../../../harness/action-node';
import { api, inNewProcess, liveTrigger, makeHarness, type LiveTrigger } from '../../../harness/trigger-nodes';
import { credentialsFor, startTestEmulator, useEmulator } from '../../../harness/emulator-suite';

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
	otherQuestion: 'This question was already answered or replaced by a newer one.',
	/** Followed by the answer that won, when the winning answer went through the same n8n process. */
	alreadyAnswered: 'This question was already answered',
};

let emu: Emulator;
const stops: Array<() => Promise<void>> = [];
useEmulator({ running: stops, started: (started) => (emu = started), pollWaits: { idlePauseMs: 20 } });

afterEach(() => {
	jest.restoreAllMocks();
});

type Delivery = 'webhook' | 'polling';

/** One n8n: the trigger's webhook (or poller) and the resume URLs of waiting executions, at one base URL. */
interface N8n {
	/** n8n's webhook base URL (`N8N_WEBHOOK_URL`). */
	base: string;
	waiting: Omit<WaitingRouter, 'handle'>;
	/** Resolves once the trigger has handled every update the emulator holds for it. */
	settled(): Promise<void>;
	/** The JSON of every item the trigger started its workflow with. */
	emitted(): IDataObject[];
	polling?: { harness: TriggerHarness; trigger: RunningTrigger };
}

interface ReceiverOptions {
	parameters?: INodeParameters;
	credentials?: TestCredentials;
}

/** An active Service Bot Trigger (webhook) or Service Bot Polling Trigger on the demo bot, Trigger On: messages only. */
/**
 * The emulator drops an update once a getUpdates acknowledges it; the pollers are done with what they
 * got once they wait in their next long poll (the one getUpdates the service holds open).
 */
async function pollingSettled(): Promise<void> {
	const polling = (): boolean => emu.callsTo('getUpdates').at(-1)?.status === 0;
	while (emu.pendingUpdates().length > 0 || !polling()) await new Promise((resolve) => setTimeout(resolve, 5));
}

async function n8n(delivery: Delivery, options: ReceiverOptions = {}): Promise<N8n> {
	const parameters = options.parameters ?? { updates: ['message'], options: {} };
	if (delivery === 'webhook') {
		const waiting = waitingRouter();
		const base = `http://127.0.0.1:${await freePort()}/`;
		const live: LiveTrigger = await liveTrigger(emu, { parameters, waiting, webhookBaseUrl: base, credentials: options.credentials });
		stops.push(live.close);
		return { base, waiting, settled: async () => await emu.idle(), emitted: live.emitted };
	}
	const server = await serveWaiting();
	stops.push(server.close);
	const harness = await makeHarness(emu, { nodeType: new ServiceBotPollingTrigger(), parameters, webhookBaseUrl: server.baseUrl, credentials: options.credentials });
	const trigger = await harness.startTrigger();
	stops.push(async () => await trigger.close());
	return {
		base: server.baseUrl,
		waiting: server,
		settled: pollingSettled,
		emitted: () => trigger.emitted.flatMap((run) => run[0].map((item) => item.json)),
		polling: { harness, trigger },
	};
}

/** Asks in a chat with the action node of a workflow on `n8n`; the execution waits. */
async function ask(on: N8n, extra: INodeParameters = {}, options: { chatId?: string; loop?: boolean; credentials?: TestCredentials } = {}): Promise<WaitingExecution> {
	const execution = await runUntilWait({
		nodeType: new ServiceBot(),
		parameters: { resource: 'message', operation: 'sendAndWait', chatId: byId(options.chatId ?? emu.demo.privateChatId), message: 'Approve the refund?', ...extra },
		items: [{ refund: 42 }],
		credentials: options.credentials ?? credentialsFor(emu),
		webhookBaseUrl: on.base,
		loop: options.loop,
	});
	on.waiting.add(execution);
	return execution;
}

/** The bot's last message in a chat: the question. */
function lastQuestion(chatId = emu.demo.privateChatId): StoredMessage & { keyboard: Button[][] } {
	const history = emu.history(chatId).filter((message) => message.sent_by_bot);
	const message = history[history.length - 1];
	return { ...message, keyboard: (message.reply_markup as { inline_keyboard?: Button[][] } | undefined)?.inline_keyboard ?? [] };
}

function messageIn(chatId: string, messageId: number): StoredMessage | undefined {
	return emu.history(chatId).find((message) => message.message_id === messageId);
}

function button(keyboard: Button[][], text: string): Button {
	const found = keyboard.flat().find((candidate) => candidate.text === text);
	if (!found) throw new Error(`no button "${text}" in ${JSON.stringify(keyboard)}`);
	return found;
}

async function tap(
	question: { message_id: number; keyboard: Button[][] },
	label: string,
	options: { userId?: string; chatId?: string; oldMessage?: boolean } = {},
): Promise<Update> {
	const data = button(question.keyboard, label).callback_data;
	if (data === undefined) throw new Error(`"${label}" is a link button`);
	return await emu.userClicks({
		chatId: options.chatId ?? emu.demo.privateChatId,
		userId: options.userId ?? emu.demo.userId,
		messageId: question.message_id,
		data,
		oldMessage: options.oldMessage,
	});
}

function answersTo(update: Update): CallbackAnswer[] {
	return emu.callbackAnswers().filter((answer) => answer.callback_query_id === update.callback_query?.id);
}

/** Every answerCallbackQuery the trigger sent for the tap, answered by the service or not. */
function noticesFor(update: Update): string[] {
	return emu
		.callsTo('answerCallbackQuery')
		.filter((call) => call.body.callback_query_id === update.callback_query?.id)
		.map((call) => String(call.body.text));
}

/** Waits until the question shows an answer (n8n accepted one, the node updated the question) and the execution has gone on. */
async function answered(execution: WaitingExecution, chatId: string, messageId: number): Promise<StoredMessage> {
	await execution.settled();
	await waitUntil(() => messageIn(chatId, messageId)?.reply_markup === undefined, `message ${messageId} to lose its buttons`);
	return messageIn(chatId, messageId) as StoredMessage;
}

/** Waits for `condition`; gives up (fails) after a minute, so a test that fails does not leave a loop behind. */
async function waitUntil(condition: () => boolean, what = 'the condition'): Promise<void> {
	for (const start = Date.now(); !condition(); await new Promise((resolve) => setTimeout(resolve, 5))) {
		if (Date.now() - start > 60_000) throw new Error(`gave up waiting for ${what}`);
	}
}

const outputOf = (execution: WaitingExecution): IDataObject | undefined => execution.finished?.output[0]?.json;

/** Approve tapped once on a question asked through `on`: resumed once, one notice, one edit. */
async function approvedOnce(on: N8n): Promise<void> {
	const execution = await ask(on);
	const question = lastQuestion();
	const update = await tap(question, '✅ Approve');
	await on.settled();
	const after = await answered(execution, emu.demo.privateChatId, question.message_id);

	expect(outputOf(execution)).toMatchObject({ approved: true, answeredVia: 'chat' });
	expect(noticesFor(update)).toEqual(['✅ Approve']);
	expect(emu.callsTo('editMessageText')).toHaveLength(1);
	expect(after.text).toBe('Approve the refund?\n\n✅ Approve — Demo');
}

describe('several workflows on one bot (webhook delivery)', () => {
	test('an answer is brought once, by the trigger the service pushed to: one notice, one edit, and no workflow starts', async () => {
		const waiting = waitingRouter();
		const base = `http://127.0.0.1:${await freePort()}/`;
		const triggers = [
			await makeHarness(emu, { webhookBaseUrl: base, parameters: { updates: ['*'], options: {} } }),
			await makeHarness(emu, { webhookBaseUrl: base, parameters: { updates: ['callback_query'], options: {} } }),
			await makeHarness(emu, { webhookBaseUrl: base, parameters: { updates: ['message'], options: {} } }),
		];
		const server = await startWebhookServer(triggers, { waiting });
		stops.push(server.close);
		for (const trigger of triggers) await trigger.activate();
		expect(new URL(emu.webhookOf()?.url ?? '').searchParams.get('service-bot-listeners')?.split(',')).toHaveLength(3);
		const on: N8n = { base, waiting, settled: async () => await emu.idle(), emitted: () => server.executions.flatMap((run) => run[0].map((item) => item.json)) };

		await approvedOnce(on);
		// Each forwarded copy reached its trigger and started nothing.
		expect(server.receipts.map((receipt) => receipt.status)).toEqual([200, 200, 200]);
		expect(on.emitted()).toEqual([]);
	});
});

describe('several workflows polling one bot', () => {
	test('an answer is brought once, by one of the polling workflows: one notice, one edit, and no workflow starts', async () => {
		const server = await serveWaiting();
		stops.push(server.close);
		const triggers: RunningTrigger[] = [];
		for (const updates of [['*'], ['callback_query'], ['message']]) {
			const harness = await makeHarness(emu, { nodeType: new ServiceBotPollingTrigger(), parameters: { updates, options: {} }, webhookBaseUrl: server.baseUrl });
			const trigger = await harness.startTrigger();
			stops.push(async () => await trigger.close());
			triggers.push(trigger);
		}
		const on: N8n = {
			base: server.baseUrl,
			waiting: server,
			settled: pollingSettled,
			emitted: () => triggers.flatMap((trigger) => trigger.emitted.flatMap((run) => run[0].map((item) => item.json))),
		};

		await approvedOnce(on);
		expect(on.emitted()).toEqual([]);
		expect(emu.callsTo('getUpdates').filter((call) => call.status === 409)).toEqual([]);
	});
});

describe.each<Delivery>(['webhook', 'polling'])('answers in the chat, %s delivery', (delivery) => {
	test('Approve: the tap resumes the execution with approved: true, the spinner stops with the decision, and the workflow of the trigger does not start', async () => {
		const on = await n8n(delivery);
		const execution = await ask(on);
		const question = lastQuestion();
		const update = await tap(question, '✅ Approve');
		await on.settled();
		const after = await answered(execution, emu.demo.privateChatId, question.message_id);

		expect(outputOf(execution)).toEqual(
			expect.objectContaining({
				approved: true,
				answer: '✅ Approve',
				user: expect.objectContaining({ id: emu.demo.userId }),
				chatId: emu.demo.privateChatId,
				messageId: question.message_id,
				answeredVia: 'chat',
			}),
		);
		expect(answersTo(update).map((answer) => answer.text)).toEqual(['✅ Approve']);
		expect(after.text).toBe('Approve the refund?\n\n✅ Approve — Demo');
		expect(on.emitted()).toEqual([]);
	});

	test('Choice: the tapped option is the answer, with its index', async () => {
		const on = await n8n(delivery);
		const execution = await ask(on, { responseType: 'choice', choices: 'Small, Medium, Large' });
		const question = lastQuestion();
		await tap(question, 'Large');
		await on.settled();
		await answered(execution, emu.demo.privateChatId, question.message_id);
		expect(outputOf(execution)).toMatchObject({ answer: 'Large', answerIndex: 2, answeredVia: 'chat' });
		expect(outputOf(execution)).not.toHaveProperty('approved');
	});

	test('Free Text: the answer button asks for a reply; the reply to the question is the answer', async () => {
		const on = await n8n(delivery);
		const execution = await ask(on, { responseType: 'freeText', message: 'Why the refund?' });
		const question = lastQuestion();
		const tapped = await tap(question, '✍️ Answer');
		await on.settled();
		expect(answersTo(tapped).map((answer) => answer.text)).toEqual([NOTICE.replyWithText]);
		expect(execution.state).toBe('waiting');

		await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'Broken on arrival', replyToMessageId: question.message_id });
		await on.settled();
		await answered(execution, emu.demo.privateChatId, question.message_id);
		expect(outputOf(execution)).toMatchObject({
			text: 'Broken on arrival',
			user: expect.objectContaining({ id: emu.demo.userId }),
			messageId: question.message_id,
			answeredVia: 'chat',
		});
		expect(on.emitted()).toEqual([]);
	});

	test('a double tap, Approve then Decline: one answer resumes; its tap is told it counted, the other that the question was answered with it, and the question shows it', async () => {
		const on = await n8n(delivery);
		const execution = await ask(on);
		const question = lastQuestion();
		const approve = await tap(question, '✅ Approve');
		const decline = await tap(question, '❌ Decline');
		await on.settled();
		const after = await answered(execution, emu.demo.privateChatId, question.message_id);

		const output = outputOf(execution);
		const won = output?.approved === true ? approve : decline;
		const lost = won === approve ? decline : approve;
		expect(answersTo(won).map((answer) => answer.text)).toEqual([output?.answer]);
		expect(noticesFor(lost)).toHaveLength(1);
		expect(noticesFor(lost)[0]).toMatch(new RegExp(`^${NOTICE.alreadyAnswered}|^${NOTICE.gone}`));
		expect(noticesFor(lost)[0]).not.toContain(String(won === approve ? '❌ Decline' : '✅ Approve'));
		expect(after.text).toBe(`Approve the refund?\n\n${String(output?.answer)} — Demo`);
		expect(emu.callsTo('editMessageText')).toHaveLength(1);
	});

	test('a tap whose click carries only message_id and chat.id (an old message, as Telegram sends it) resumes the execution', async () => {
		const on = await n8n(delivery);
		const execution = await ask(on);
		const question = lastQuestion();
		const update = await tap(question, '❌ Decline', { oldMessage: true });
		expect(update.callback_query?.message).toEqual({ message_id: question.message_id, date: 0, chat: { id: emu.demo.privateChatId, type: 'private' } });
		await on.settled();
		await answered(execution, emu.demo.privateChatId, question.message_id);
		expect(outputOf(execution)).toMatchObject({ approved: false, messageId: question.message_id });
		expect(answersTo(update).map((answer) => answer.text)).toEqual(['❌ Decline']);
	});

	test('the same node asking again (a loop): a button of the earlier question resumes nothing; the newer question does', async () => {
		const on = await n8n(delivery);
		const execution = await ask(on, { responseType: 'choice', choices: 'Again, Done', options: { afterAnswer: 'leave' } }, { loop: true });
		const first = lastQuestion();
		await tap(first, 'Again');
		await on.settled();
		await execution.settled();
		const second = lastQuestion();
		expect(second.message_id).not.toBe(first.message_id);

		const old = await tap(first, 'Done');
		await on.settled();
		await execution.settled();
		expect(answersTo(old).map((answer) => answer.text)).toEqual([NOTICE.otherQuestion]);
		expect(execution.state).toBe('waiting');

		await tap(second, 'Done');
		await on.settled();
		await execution.settled();
		expect(execution.state).toBe('waiting');
		// Three questions asked: the answers resumed the first and the second.
		expect(emu.history(emu.demo.privateChatId).filter((message) => message.sent_by_bot)).toHaveLength(3);
	});

	test('a token changed in the credential (as after a leak): answers keep working without publishing again, also on questions asked before', async () => {
		const credentials = credentialsFor(emu);
		const on = await n8n(delivery, { credentials });
		const execution = await ask(on, {}, { credentials });
		const question = lastQuestion();
		const newToken = '7000000001:rotated-after-a-leak-xxxxxxxxxxxxxxxx';
		emu.changeToken(emu.demo.token, newToken);
		credentials.accessToken = newToken;

		const update = await tap(question, '✅ Approve');
		await on.settled();
		await answered(execution, emu.demo.privateChatId, question.message_id);
		expect(outputOf(execution)).toMatchObject({ approved: true });
		expect(answersTo(update).map((answer) => answer.text)).toEqual(['✅ Approve']);
	});
});

describe('many answers at once (webhook delivery, pushes at up to 40 connections)', () => {
	test('two approvers in a group tap at the same moment: one resumes; the chat and both notices agree with what the workflow got', async () => {
		const on = await n8n('webhook');
		const chatId = emu.demo.groupChatId;
		const execution = await ask(on, {}, { chatId });
		const question = lastQuestion(chatId);
		const [approve, decline] = await Promise.all([
			tap(question, '✅ Approve', { chatId }),
			tap(question, '❌ Decline', { chatId, userId: emu.demo.otherUserId }),
		]);
		await on.settled();
		const after = await answered(execution, chatId, question.message_id);
		const output = outputOf(execution);
		const [won, lost] = output?.approved === true ? [approve, decline] : [decline, approve];
		expect(noticesFor(won)).toEqual([output?.answer]);
		expect(noticesFor(lost)).toHaveLength(1);
		expect(noticesFor(lost)[0].startsWith(NOTICE.alreadyAnswered) || noticesFor(lost)[0] === NOTICE.gone).toBe(true);
		expect(after.text).toBe(`Approve the refund?\n\n${String(output?.answer)} — ${String((output?.user as IDataObject).first_name)}`);
	});

	test('40 people tap at once: exactly one answer resumes, its person alone is told it counted, 39 are told the question was answered, the question is edited once', async () => {
		const on = await n8n('webhook');
		const chatId = emu.demo.groupChatId;
		const people = Array.from({ length: 40 }, (_, index) => {
			const { userId } = emu.addUser({ firstName: `Person ${index + 1}` });
			emu.setMember({ chatId, userId, status: 'member' });
			return userId;
		});
		const execution = await ask(on, { responseType: 'choice', choices: 'A, B, C, D', options: {} }, { chatId });
		const question = lastQuestion(chatId);
		const labels = ['A', 'B', 'C', 'D'];
		const taps = await Promise.all(people.map((userId, index) => tap(question, labels[index % 4], { chatId, userId })));
		await on.settled();
		const after = await answered(execution, chatId, question.message_id);
		const output = outputOf(execution);
		const notices = taps.map((update) => noticesFor(update));
		expect(notices.every((list) => list.length === 1)).toBe(true);
		const counted = taps.filter((_, index) => notices[index][0] === output?.answer);
		expect(counted).toHaveLength(1);
		expect(counted[0].callback_query?.from.id).toBe((output?.user as IDataObject).id);
		expect(notices.filter((list) => list[0] !== output?.answer).every(([text]) => text.startsWith(NOTICE.alreadyAnswered) || text === NOTICE.gone)).toBe(true);
		expect(emu.callsTo('editMessageText')).toHaveLength(1);
		expect(after.text).toBe(`Approve the refund?\n\n${String(output?.answer)} — ${String((output?.user as IDataObject).first_name)}`);
	});
});

describe('an answer received twice', () => {
	test('a push sent again because the first was answered too late: the person who answered is told once that it counted, never that it was answered already', async () => {
		const slow = await startTestEmulatorWith({ webhookTimeoutMs: 150 });
		const waiting = waitingRouter();
		const base = `http://127.0.0.1:${await freePort()}/`;
		const live = await liveTrigger(slow, { parameters: { updates: ['message'], options: {} }, waiting, webhookBaseUrl: base });
		stops.push(live.close);
		const execution = await runUntilWait({
			nodeType: new ServiceBot(),
			parameters: { resource: 'message', operation: 'sendAndWait', chatId: byId(slow.demo.privateChatId), message: 'Approve?' },
			items: [{}],
			credentials: credentialsFor(slow),
			webhookBaseUrl: base,
		});
		waiting.add(execution);
		const question = slow.history(slow.demo.privateChatId).at(-1)!;
		const data = (question.reply_markup as { inline_keyboard: Button[][] }).inline_keyboard[0][0].callback_data!;
		// The trigger's answer to the tap takes longer than the service waits for the push: it pushes again.
		// (The emulator's HTTP client checks its timeout about once a second, so the delay is longer than that.)
		slow.injectFault({ kind: 'delay', method: 'answerCallbackQuery', delayMs: 2500 });
		const update = await slow.userClicks({ chatId: slow.demo.privateChatId, userId: slow.demo.userId, messageId: question.message_id, data });
		await slow.idle();
		await execution.settled();
		// Both pushes were received and handled.
		while (live.server.receipts.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
		const notices = slow.callsTo('answerCallbackQuery').filter((call) => call.body.callback_query_id === update.callback_query?.id);
		expect(notices.map((call) => call.body.text)).toEqual(['✅ Approve']);
		expect(execution.finished?.output[0].json).toMatchObject({ approved: true });
	});

	test('polling: an answer the poller had brought when n8n stopped is not brought again after the restart (it is acknowledged first)', async () => {
		const on = await n8n('polling', { parameters: { updates: ['message'], options: { longPollTimeout: 0 } } });
		const execution = await ask(on, { responseType: 'freeText', message: 'Why?' });
		const question = lastQuestion();
		const release = on.waiting.hold();
		await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'Because.', replyToMessageId: question.message_id });
		while (on.waiting.arrivals < 1) await new Promise((resolve) => setTimeout(resolve, 5));
		// n8n stops while the answer is on its way to the execution; it arrives.
		const { harness, trigger } = on.polling!;
		const stopped = trigger.close();
		release();
		await stopped;
		await answered(execution, emu.demo.privateChatId, question.message_id);
		expect(outputOf(execution)).toMatchObject({ text: 'Because.' });

		const calls = emu.callsTo('getUpdates').length;
		const restarted = await (await inNewProcess(emu, harness, 'polling', { webhookBaseUrl: on.base })).startTrigger();
		stops.push(async () => await restarted.close());
		// The restarted poller has asked twice: whatever it was given again, it has handled.
		while (emu.callsTo('getUpdates').filter((call) => call.status !== 0).length < calls + 2) await new Promise((resolve) => setTimeout(resolve, 5));
		const bot = emu.history(emu.demo.privateChatId).filter((message) => message.sent_by_bot);
		expect(bot.map((message) => message.text)).toEqual(['Why?\n\n✍️ Because. — Demo']);
		expect(on.waiting.receipts.filter((receipt) => receipt.resumed)).toHaveLength(1);
		expect(on.waiting.receipts).toHaveLength(1);
	});
});

describe('who may answer, and what is not an answer (webhook delivery)', () => {
	test('restricted responder: another user gets a notice and nothing resumes; the listed user then resumes it', async () => {
		const on = await n8n('webhook');
		const chatId = emu.demo.groupChatId;
		const execution = await ask(on, { options: { allowedUserIds: emu.demo.userId } }, { chatId });
		const question = lastQuestion(chatId);

		const stranger = await tap(question, '✅ Approve', { userId: emu.demo.otherUserId, chatId });
		await on.settled();
		expect(answersTo(stranger).map((answer) => answer.text)).toEqual([NOTICE.notAllowed]);
		expect(execution.state).toBe('waiting');

		await tap(question, '❌ Decline', { chatId });
		await on.settled();
		await answered(execution, chatId, question.message_id);
		expect(outputOf(execution)).toMatchObject({ approved: false, user: expect.objectContaining({ id: emu.demo.userId }) });
	});

	test('a restricted free-text question: a reply from another user gets a reply with the notice and resumes nothing', async () => {
		const on = await n8n('webhook');
		const chatId = emu.demo.groupChatId;
		const execution = await ask(on, { responseType: 'freeText', options: { allowedUserIds: emu.demo.userId } }, { chatId });
		const question = lastQuestion(chatId);
		const reply = await emu.userSends({ chatId, userId: emu.demo.otherUserId, text: 'me!', replyToMessageId: question.message_id });
		await on.settled();
		expect(execution.state).toBe('waiting');
		expect(lastQuestion(chatId)).toMatchObject({ text: NOTICE.notAllowed, reply_to_message_id: reply.message?.message_id });
	});

	test('made-up answer data (another execution, another choice, another key) resumes nothing, and the person is told', async () => {
		const on = await n8n('webhook');
		const execution = await ask(on);
		const question = lastQuestion();
		const approve = String(button(question.keyboard, '✅ Approve').callback_data);
		const [version, execution36, , key] = approve.split(':');
		const otherExecution = `${version}:${(parseInt(execution36, 36) + 1000).toString(36)}:0:${key}`;
		const otherKey = `${version}:${execution36}:0:${'A'.repeat(key.length)}`;
		const unreadable = `${version}:${execution36}:0:not-a-key`;
		const keyboard = [[{ text: 'other execution', callback_data: otherExecution }, { text: 'other key', callback_data: otherKey }, { text: 'unreadable', callback_data: unreadable }]];
		// Buttons with that data on a message of the bot, as someone with the token could make.
		const decoy = await api<{ message_id: number }>(emu, 'sendMessage', { chat_id: emu.demo.privateChatId, text: 'decoy', reply_markup: { inline_keyboard: keyboard } });
		const on_decoy = { message_id: Number(decoy.result?.message_id), keyboard };
		const taps = [await tap(on_decoy, 'other execution'), await tap(on_decoy, 'other key'), await tap(on_decoy, 'unreadable')];
		await on.settled();
		expect(taps.map((update) => answersTo(update).map((answer) => answer.text))).toEqual([[NOTICE.gone], [NOTICE.forged], [NOTICE.forged]]);
		expect(on.waiting.receipts.filter((receipt) => receipt.resumed)).toEqual([]);
		expect(execution.state).toBe('waiting');
		expect(on.emitted()).toEqual([]);
	});

	test('the genuine data copied onto another message (another chat) resumes nothing; a tap after the answer is told the question was answered', async () => {
		const on = await n8n('webhook');
		const execution = await ask(on, { options: { afterAnswer: 'leave' } });
		const question = lastQuestion();
		const copy = await api<{ message_id: number }>(emu, 'sendMessage', { chat_id: emu.demo.groupChatId, text: 'copy', reply_markup: { inline_keyboard: question.keyboard } });
		const copied = await tap({ message_id: Number(copy.result?.message_id), keyboard: question.keyboard }, '✅ Approve', { chatId: emu.demo.groupChatId });
		await on.settled();
		expect(answersTo(copied).map((answer) => answer.text)).toEqual([NOTICE.otherQuestion]);
		expect(execution.state).toBe('waiting');

		await tap(question, '✅ Approve');
		await on.settled();
		await execution.settled();
		expect(outputOf(execution)).toMatchObject({ approved: true });
		const again = await tap(question, '❌ Decline');
		await on.settled();
		expect(answersTo(again).map((answer) => answer.text)).toEqual([`${NOTICE.alreadyAnswered}: ✅ Approve — Demo`]);
		expect(on.waiting.receipts.filter((receipt) => receipt.resumed)).toHaveLength(1);
	});

	test('the question update fails twice with a 502: it is sent again until the question shows the answer and has no buttons', async () => {
		const on = await n8n('webhook');
		const execution = await ask(on);
		const question = lastQuestion();
		emu.injectFault({ kind: 'status', status: 502, method: 'editMessageText', count: 2 });
		await tap(question, '✅ Approve');
		await on.settled();
		const after = await answered(execution, emu.demo.privateChatId, question.message_id);
		expect(after.text).toBe('Approve the refund?\n\n✅ Approve — Demo');
		expect(emu.callsTo('editMessageText').map((call) => call.status)).toEqual([502, 502, 200]);
	});

	test('a question update the service keeps refusing (429 for longer than a minute) is sent at the next tap on the question', async () => {
		const on = await n8n('webhook');
		const execution = await ask(on);
		const question = lastQuestion();
		// Spec part 7 leaves error bodies to Telegram's convention: 429 with parameters.retry_after (seconds).
		emu.injectFault({ kind: 'status', status: 429, retryAfter: 3600, method: 'editMessageText', count: 1 });
		await tap(question, '✅ Approve');
		await on.settled();
		await execution.settled();
		expect(outputOf(execution)).toMatchObject({ approved: true });
		await waitUntil(() => emu.callsTo('editMessageText').length === 1, 'the refused edit');
		expect(messageIn(emu.demo.privateChatId, question.message_id)?.reply_markup).toBeDefined();

		const again = await tap(question, '❌ Decline');
		await on.settled();
		expect(answersTo(again).map((answer) => answer.text)).toEqual([`${NOTICE.alreadyAnswered}: ✅ Approve — Demo`]);
		const after = await answered(execution, emu.demo.privateChatId, question.message_id);
		expect(after.text).toBe('Approve the refund?\n\n✅ Approve — Demo');
		expect(emu.callsTo('editMessageText').map((call) => call.status)).toEqual([429, 200]);
	});

	test('expired: a tap after the wait ran out resumes nothing and is told the question was answered or has expired', async () => {
		const on = await n8n('webhook');
		const execution = await ask(on, { options: { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 1, resumeUnit: 'minutes' } } } });
		const question = lastQuestion();
		const timedOut = await execution.timeOut();
		expect(timedOut.output[0].json).toMatchObject({ refund: 42, timedOut: true, messageId: question.message_id });
		const late = await tap(question, '✅ Approve');
		await on.settled();
		expect(answersTo(late).map((answer) => answer.text)).toEqual([NOTICE.gone]);
		expect(on.waiting.receipts.filter((receipt) => receipt.resumed)).toEqual([]);
	});

	test('two questions waiting in the same chat: each tap resumes its own execution', async () => {
		const on = await n8n('webhook');
		const first = await ask(on, { message: 'First?' });
		const firstQuestion = lastQuestion();
		const second = await ask(on, { message: 'Second?' });
		const secondQuestion = lastQuestion();
		await tap(secondQuestion, '❌ Decline');
		await tap(firstQuestion, '✅ Approve');
		await on.settled();
		await answered(first, emu.demo.privateChatId, firstQuestion.message_id);
		await answered(second, emu.demo.privateChatId, secondQuestion.message_id);
		expect(outputOf(first)).toMatchObject({ approved: true, messageId: firstQuestion.message_id });
		expect(outputOf(second)).toMatchObject({ approved: false, messageId: secondQuestion.message_id });
	});

	test('a button of a question asked by an earlier version (w1) still resumes its execution through the link of its question', async () => {
		const on = await n8n('webhook');
		const execution = await ask(on);
		const question = lastQuestion();
		// What an earlier version put on the question: w1 data, tag = HMAC keyed by the bot token, and n8n's signed link.
		const key = createHmac('sha256', emu.demo.token).update('n8n-nodes-service-bot:answer:v1', 'utf8').digest();
		const tag = createHmac('sha256', key)
			.update(JSON.stringify(['callback', execution.executionId, '0', emu.demo.privateChatId.toLowerCase()]), 'utf8')
			.digest()
			.subarray(0, 16)
			.toString('base64url');
		const legacy = [[{ text: 'Approve (old)', callback_data: `w1:${execution.executionId}:0:${tag}` }], [button(question.keyboard, '🌐 Answer in the browser')]];
		await api(emu, 'editMessageReplyMarkup', { chat_id: emu.demo.privateChatId, message_id: question.message_id, reply_markup: { inline_keyboard: legacy } });
		const update = await tap({ message_id: question.message_id, keyboard: legacy }, 'Approve (old)');
		await on.settled();
		await answered(execution, emu.demo.privateChatId, question.message_id);
		expect(outputOf(execution)).toMatchObject({ approved: true });
		expect(answersTo(update).map((answer) => answer.text)).toEqual(['✅ Approve']);
	});

	test('Trigger On with only messages: the service still sends clicks; a click that is not an answer starts nothing', async () => {
		const on = await n8n('webhook');
		expect(emu.webhookOf()?.allowedUpdates).toEqual(['message', 'callback_query']);
		const sent = await api<{ message_id: number }>(emu, 'sendMessage', {
			chat_id: emu.demo.privateChatId,
			text: 'pick',
			reply_markup: { inline_keyboard: [[{ text: 'Plain', callback_data: 'plain' }]] },
		});
		await tap({ message_id: Number(sent.result?.message_id), keyboard: [[{ text: 'Plain', callback_data: 'plain' }]] }, 'Plain');
		await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'hello' });
		await on.settled();
		expect(on.emitted().map((item) => (item.message as IDataObject | undefined)?.text)).toEqual(['hello']);
		expect(on.waiting.receipts).toEqual([]);
	});
});

describe('the polling trigger', () => {
	test('the editor test leaves answers to the published trigger: it neither emits nor brings them, nor acknowledges them', async () => {
		const server = await serveWaiting();
		stops.push(server.close);
		const on: N8n = { base: server.baseUrl, waiting: server, settled: async () => {}, emitted: () => [] };
		const execution = await ask(on);
		await tap(lastQuestion(), '✅ Approve');
		await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'test me' });
		const harness = await makeHarness(emu, { nodeType: new ServiceBotPollingTrigger(), parameters: { updates: ['*'], options: {} }, webhookBaseUrl: server.baseUrl });
		const run = await harness.startManualTrigger();
		const { items } = await run.result;
		await run.close();
		expect(items?.[0].map((item) => (item.json.message as IDataObject | undefined)?.text)).toEqual(['test me']);
		expect(server.receipts).toEqual([]);
		expect(execution.state).toBe('waiting');
		expect(emu.pendingUpdates()).toHaveLength(2);
	});

	test('a service that keeps sending entries without update_id is asked less and less often, not every second', async () => {
		jest.replaceProperty(POLL_TIMING, 'backoffStartMs', 20);
		jest.replaceProperty(POLL_TIMING, 'backoffMaxMs', 160);
		emu.injectFault({ kind: 'result', method: 'getUpdates', result: [{ no: 'update_id' }], count: 5 });
		const harness = await makeHarness(emu, { nodeType: new ServiceBotPollingTrigger(), parameters: { updates: ['*'], options: { longPollTimeout: 0 } } });
		const trigger = await harness.startTrigger();
		stops.push(async () => await trigger.close());
		while (emu.callsTo('getUpdates').length < 6) await new Promise((resolve) => setTimeout(resolve, 2));
		const at = emu.callsTo('getUpdates').slice(0, 6).map((call) => call.at);
		const gaps = at.slice(1).map((time, index) => time - at[index]);
		// 20, 40, 80, 160 ms and more: each wait at least the doubled one before it (the first four batches).
		for (const [index, expected] of [20, 40, 80, 160].entries()) expect(gaps[index]).toBeGreaterThanOrEqual(expected);
		expect(trigger.emitted).toEqual([]);
	});
});

async function startTestEmulatorWith(options: { webhookTimeoutMs: number }): Promise<Emulator> {
	const started = await startTestEmulator(options);
	stops.push(async () => await started.close());
	return started;
}
