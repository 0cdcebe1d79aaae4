/**
 * Send and Wait for Response, the action node's side, through n8n-core's real engine and n8n's way
 * of resuming (test/harness/waiting.ts): the execution waits (status "waiting"), the question is in
 * the chat with its buttons, and an answer resumes it — as the Service Bot Trigger brings it, or from
 * the answer page; a wrong, forged, late or losing answer resumes nothing; a wait that runs out goes
 * on with `timedOut`.
 *
 * The trigger's request is made here from the protocol as the README states it, not with the
 * package's own code: an answer button's callback_data is `w2:<execution id in base 36>:<choice>:<key>`,
 * key = n8n's resume token (hex) in base64url; the answer is POSTed to
 * `<n8n>/webhook-waiting/<execution id>/answer?signature=<resume token>` with
 * X-Service-Bot-Answer = hex HMAC-SHA256(key, body), key = HMAC-SHA256(bot token, "n8n-nodes-service-bot:answer:v1").
 */
import { createHmac } from 'node:crypto';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { ServiceBotTrigger } from '../../../nodes/ServiceBotTrigger/ServiceBotTrigger.node';
import { NO_ACTION_REQUIRED_PAGE, runUntilWait, signedResumeUrl, type AnswerReceipt, type WaitingExecution } from '../../harness/waiting';
import { byId, nodeType } from '../../harness/action-node';
import { credentialsFor, useEmulator } from '../../harness/emulator-suite';
import { ReverseText } from '../../harness/test-nodes';
import { liveTrigger, type LiveTrigger } from '../../harness/trigger-nodes';

const live: LiveTrigger[] = [];
const ctx = useEmulator({ running: live });

/**
 * A question asked in the chat needs a trigger of this n8n on the bot that brings the answers; these
 * tests bring them by hand, so the bot's webhook points to the harness's n8n (as a published Service
 * Bot Trigger's would), with nothing listening there (the emulator's users do not tap here).
 */
const LISTENER = 'http://localhost:5678/webhook/6b0c7e1a-trigger/webhook';

async function setWebhook(url: string): Promise<void> {
	const response = await fetch(`${ctx.emu.baseUrl}/bot${ctx.d.token}/setWebhook`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ url }),
	});
	expect(((await response.json()) as { ok: boolean }).ok).toBe(true);
}

let setUpCalls = 0;

beforeEach(async () => {
	await setWebhook(LISTENER);
	setUpCalls = ctx.emu.calls.length;
});

/** What the node called, after the set-up. */
const nodeCalls = () => ctx.emu.calls.slice(setUpCalls);

/** Spec part 8: callback_data is 1 to 64 UTF-8 bytes. */
const CALLBACK_DATA_MAX_BYTES = 64;
/** Spec part 8: sendMessage text up to 32,768 characters. */
const MESSAGE_TEXT_MAX = 32_768;
/** The harness's n8n (its default webhook base). */
const N8N = 'http://localhost:5678/';

interface Button {
	text: string;
	callback_data?: string;
	url?: string;
}

const ask = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'message',
	operation: 'sendAndWait',
	chatId: byId(ctx.d.privateChatId),
	message: 'Approve the refund?',
	...extra,
});

async function waitOn(parameters: INodeParameters, items: IDataObject[] = [{ order: 42 }], loop = false): Promise<WaitingExecution> {
	return await runUntilWait({
		nodeType,
		parameters,
		items,
		credentials: credentialsFor(ctx.emu),
		loop,
	});
}

/** The question as the chat shows it: the bot's last message in the demo chat. */
function question(): { messageId: number; text: string; keyboard: Button[][] } {
	const history = ctx.emu.history(ctx.d.privateChatId);
	const message = history[history.length - 1];
	const keyboard = (message.reply_markup as { inline_keyboard?: Button[][] } | undefined)?.inline_keyboard ?? [];
	return { messageId: message.message_id, text: String(message.text), keyboard };
}

function resumeUrlOf(keyboard: Button[][]): string {
	const link = keyboard.flat().find((button) => button.url?.includes('/webhook-waiting/'));
	if (!link?.url) throw new Error('the question has no link to its answer page');
	return link.url;
}

/** An answer button's data, read as the README describes it. */
function readButton(data: string): { executionId: string; choice: string; resumeToken: string } {
	const match = /^w2:([0-9a-z]+):(\d+|t):([A-Za-z0-9_-]{43})$/.exec(data);
	if (!match) throw new Error(`not an answer button: ${data}`);
	return { executionId: String(parseInt(match[1], 36)), choice: match[2], resumeToken: Buffer.from(match[3], 'base64url').toString('hex') };
}

function chatAnswerUrl(data: string): string {
	const { executionId, resumeToken } = readButton(data);
	return `${N8N}webhook-waiting/${executionId}/answer?signature=${resumeToken}`;
}

function signature(token: string, body: string): string {
	const key = createHmac('sha256', token).update('n8n-nodes-service-bot:answer:v1', 'utf8').digest();
	return createHmac('sha256', key).update(body, 'utf8').digest('hex');
}

/** What the Service Bot Trigger sends for a tap (choice) or a reply (text) of `user` on the question `messageId`. */
async function answerInChat(
	execution: WaitingExecution,
	answer: { choice?: number; text?: string },
	options: { user?: string; firstName?: string; messageId?: number; token?: string; url?: string } = {},
): Promise<AnswerReceipt> {
	const { messageId, keyboard } = question();
	const data = keyboard.flat().find((button) => button.callback_data !== undefined)?.callback_data;
	const body = JSON.stringify({
		...answer,
		chatId: ctx.d.privateChatId,
		messageId: options.messageId ?? messageId,
		user: { id: options.user ?? ctx.d.userId, first_name: options.firstName ?? 'Demo' },
	});
	return await execution.answer({
		method: 'POST',
		url: options.url ?? chatAnswerUrl(String(data)),
		headers: { 'content-type': 'application/json', 'x-service-bot-answer': signature(options.token ?? ctx.d.token, body) },
		rawBody: body,
	});
}

/** Waits until the service has answered `count` calls of `method` (the question is updated once n8n accepted the answer). */
async function callsOf(method: string, count = 1) {
	while (ctx.emu.callsTo(method).filter((call) => call.status !== 0).length < count) await new Promise((resolve) => setTimeout(resolve, 5));
	return ctx.emu.callsTo(method);
}

/**
 * What the execution's node put out when `receipt` resumed it, once the question shows the answer
 * (the node updates it when n8n has accepted the answer, beside the execution going on).
 */
async function outputOf(receipt: AnswerReceipt): Promise<IDataObject> {
	if (!receipt.resumed) throw new Error(`the answer resumed nothing: ${receipt.status} ${JSON.stringify(receipt.body)}`);
	const edits = ctx.emu.callsTo('editMessageText').length;
	const result = await receipt.resumed;
	expect(result.error).toBeUndefined();
	await callsOf('editMessageText', edits + 1);
	return result.output[0].json;
}

describe('Send and Wait for Response: asking', () => {
	it('the execution waits; the question has Approve / Decline buttons naming the execution and its resume token, and a link to its answer page', async () => {
		const execution = await waitOn(ask());
		expect(execution.firstRun.status).toBe('waiting');
		const { text, keyboard, messageId } = question();
		expect(text).toBe('Approve the refund?');
		expect(keyboard.map((row) => row.map((button) => button.text))).toEqual([['✅ Approve', '❌ Decline'], ['🌐 Answer in the browser']]);
		expect(keyboard[0].map((button) => readButton(String(button.callback_data)))).toEqual([
			{ executionId: execution.executionId, choice: '0', resumeToken: execution.resumeToken },
			{ executionId: execution.executionId, choice: '1', resumeToken: execution.resumeToken },
		]);
		for (const button of keyboard[0]) expect(Buffer.byteLength(String(button.callback_data), 'utf8')).toBeLessThanOrEqual(CALLBACK_DATA_MAX_BYTES);
		const link = new URL(resumeUrlOf(keyboard));
		expect(link.pathname).toBe(`/webhook-waiting/${execution.executionId}/node-under-test`);
		expect(link.searchParams.get('chat')).toBe(ctx.d.privateChatId);
		expect(link.searchParams.get('message')).toBe(String(messageId));
		expect(link.searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
		expect(execution.finished).toBeUndefined();
	});

	it('bad input, and a label that is not text, fails before anything is sent, naming the field', async () => {
		const cases: Array<[INodeParameters, RegExp]> = [
			[ask({ chatId: byId('={{ "not a chat" }}') }), /: Chat: 'not a chat' is not a chat UUID or @username \[item 0\]\)$/],
			[ask({ message: '={{ "" }}' }), /: Message: is required and may not be empty \[item 0\]\)$/],
			[ask({ responseType: 'choice', choices: '={{ [] }}' }), /: Choices: the list is empty/],
			[ask({ approvalOptions: { values: { approveLabel: 'x'.repeat(129) } } }), /: Approve Button Label: is 129 characters, the limit is 128/],
			[ask({ options: { allowedUserIds: '@someone' } }), /: Restrict to User IDs: '@someone' is not a user UUID/],
			// An expression that returned an object is no label (it was once shown as "[object Object]").
			[ask({ approvalOptions: { values: { approveLabel: '={{ { text: "Yes" } }}' } } }), /: Approve Button Label: expected text, got \{"text":"Yes"\} \[item 0\]/],
		];
		for (const [parameters, message] of cases) {
			await expect(waitOn(parameters)).rejects.toThrow(message);
		}
		expect(nodeCalls()).toHaveLength(0);
	});

	it('On a Web Page with Restrict to User IDs is refused before anything is sent, with the fix in the message', async () => {
		await expect(waitOn(ask({ collectAnswers: 'webPage', options: { allowedUserIds: ctx.d.userId } }))).rejects.toThrow(
			/Restrict to User IDs: .*web page.*set Collect Answers to In the Chat.*or remove the restriction \[item 0\]/,
		);
		expect(nodeCalls()).toHaveLength(0);
	});

	it('a question only some people may answer has no link to the answer page (it could only refuse)', async () => {
		await waitOn(ask({ options: { allowedUserIds: ctx.d.userId } }));
		expect(question().keyboard.map((row) => row.map((button) => button.text))).toEqual([['✅ Approve', '❌ Decline']]);
		expect(question().keyboard.flat().some((button) => button.url !== undefined)).toBe(false);
	});
});

describe('Send and Wait for Response: a question nobody could answer is not asked', () => {
	it('asked from the editor while no trigger receives the bot (no webhook, none published here, a message to the bot waiting at the service): refused before sending, with the two ways out', async () => {
		await setWebhook('');
		await ctx.emu.userSends({ chatId: ctx.d.privateChatId, userId: ctx.d.userId, text: '/start' });
		const before = ctx.emu.calls.length;
		await expect(waitOn(ask())).rejects.toThrow(
			/Collect Answers: the service still holds 1 update of this bot that no published trigger has taken, .*Publish one .*or set Collect Answers to On a Web Page \[item 0\]/,
		);
		expect(ctx.emu.calls.slice(before).map((call) => call.method)).toEqual(['getWebhookInfo']);
		expect(ctx.emu.history(ctx.d.privateChatId).filter((message) => message.sent_by_bot)).toEqual([]);
	});

	it("the bot's webhook points to another system: refused, naming where it points (without its query) and how to take it over", async () => {
		await setWebhook('https://elsewhere.example/hook?secret=abc');
		await expect(waitOn(ask())).rejects.toThrow(
			/Collect Answers: the bot's webhook points to https:\/\/elsewhere\.example\/hook\?…, not to this n8n \(http:\/\/localhost:5678\), .*Take Over Existing Webhook.*On a Web Page \[item 0\]/,
		);
		expect(ctx.emu.history(ctx.d.privateChatId)).toEqual([]);
	});

	it('On a Web Page needs no trigger: asked with no webhook', async () => {
		await setWebhook('');
		const execution = await waitOn(ask({ collectAnswers: 'webPage' }));
		expect(execution.state).toBe('waiting');
		expect(question().text).toBe('Approve the refund?');
	});
});

describe('Send and Wait for Response: answers in the chat (as the trigger brings them)', () => {
	it('Approve resumes with approved: true; once n8n has accepted it the question shows the answer and loses its buttons', async () => {
		const execution = await waitOn(ask());
		const receipt = await answerInChat(execution, { choice: 0 });
		expect(receipt.status).toBe(200);
		expect(receipt.body).toEqual({ resumed: true, notice: '✅ Approve' });
		expect(await outputOf(receipt)).toEqual(
			expect.objectContaining({ approved: true, answer: '✅ Approve', answeredVia: 'chat', chatId: ctx.d.privateChatId, user: { id: ctx.d.userId, first_name: 'Demo' } }),
		);
		await callsOf('editMessageText');
		const { text, keyboard } = question();
		expect(text).toBe('Approve the refund?\n\n✅ Approve — Demo');
		expect(keyboard).toEqual([]);
	});

	it('Decline resumes with approved: false', async () => {
		const execution = await waitOn(ask());
		expect(await outputOf(await answerInChat(execution, { choice: 1 }))).toMatchObject({ approved: false, answer: '❌ Decline' });
	});

	it('Choice: the options as a grid; the tapped one is the answer', async () => {
		const execution = await waitOn(ask({ responseType: 'choice', choices: 'Red, Green, Blue', choicesPerRow: 2 }));
		expect(question().keyboard.map((row) => row.map((button) => button.text))).toEqual([['Red', 'Green'], ['Blue'], ['🌐 Answer in the browser']]);
		const output = await outputOf(await answerInChat(execution, { choice: 2 }));
		expect(output).toMatchObject({ answer: 'Blue', answerIndex: 2 });
		expect(output.approved).toBeUndefined();
	});

	it('Free Text: a reply to the question is the answer', async () => {
		const execution = await waitOn(ask({ responseType: 'freeText', message: 'Why?' }));
		expect(question().keyboard.map((row) => row.map((button) => button.text))).toEqual([['✍️ Answer'], ['🌐 Answer in the browser']]);
		expect(await outputOf(await answerInChat(execution, { text: 'Because it broke.' }))).toMatchObject({ text: 'Because it broke.', answeredVia: 'chat' });
		await callsOf('editMessageText');
		expect(question().text).toBe('Why?\n\n✍️ Because it broke. — Demo');
	});

	it('only the listed users may answer: another user gets a notice and the execution keeps waiting', async () => {
		const execution = await waitOn(ask({ options: { allowedUserIds: ctx.d.userId.toUpperCase() } }));
		const refused = await answerInChat(execution, { choice: 0 }, { user: ctx.d.otherUserId });
		expect(refused.status).toBe(403);
		expect(refused.body).toEqual({ resumed: false, notice: 'You may not answer this question.' });
		expect(refused.resumed).toBeUndefined();
		expect(execution.state).toBe('waiting');
		expect(await outputOf(await answerInChat(execution, { choice: 0 }))).toMatchObject({ approved: true });
	});

	it('a forged signature, a signature with another token, another message or an unknown button resume nothing', async () => {
		const execution = await waitOn(ask());
		const unverified = await answerInChat(execution, { choice: 0 }, { token: '999:not-the-bot' });
		expect(unverified).toMatchObject({ status: 403, body: { resumed: false, notice: expect.stringMatching(/^This answer could not be verified\./) } });
		const { messageId } = question();
		expect((await answerInChat(execution, { choice: 0 }, { messageId: messageId + 1 })).body).toEqual({
			resumed: false,
			notice: 'This question was already answered or replaced by a newer one.',
		});
		expect((await answerInChat(execution, { choice: 7 })).body).toEqual({ resumed: false, notice: 'This button is not valid anymore.' });
		expect(execution.state).toBe('waiting');
		expect(ctx.emu.callsTo('editMessageText')).toHaveLength(0);
		expect(await outputOf(await answerInChat(execution, { choice: 1 }))).toMatchObject({ approved: false });
	});

	it('the resume token is what n8n checks: a wrong one is refused by n8n before the node sees the answer', async () => {
		const execution = await waitOn(ask());
		const wrong = `${N8N}webhook-waiting/${execution.executionId}/answer?signature=${'0'.repeat(64)}`;
		expect((await answerInChat(execution, { choice: 0 }, { url: wrong })).status).toBe(401);
		expect(execution.state).toBe('waiting');
	});

	it('two answers at once: exactly one resumes; only its person is told it counted, the other is told which answer counted, and the question shows the winner', async () => {
		const execution = await waitOn(ask());
		const [approve, decline] = await Promise.all([
			answerInChat(execution, { choice: 0 }, { firstName: 'Anna' }),
			answerInChat(execution, { choice: 1 }, { user: ctx.d.otherUserId, firstName: 'Ben' }),
		]);
		const receipts = [approve, decline];
		const winners = receipts.filter((receipt) => receipt.resumed !== undefined);
		expect(winners).toHaveLength(1);
		const [winner] = winners;
		const loser = receipts.find((receipt) => receipt !== winner)!;
		const output = await outputOf(winner);
		const by = winner === approve ? 'Anna' : 'Ben';
		expect(loser).toMatchObject({ status: 409, body: { resumed: false, notice: `This question was already answered: ${String(output.answer)} — ${by}` } });
		expect(loser.resumed).toBeUndefined();
		expect(winner.body).toEqual({ resumed: true, notice: output.answer });
		await callsOf('editMessageText');
		await execution.settled();
		expect(ctx.emu.callsTo('editMessageText')).toHaveLength(1);
		expect(question().text).toBe(`Approve the refund?\n\n${String(output.answer)} — ${by}`);
	});

	it('n8n 1.x (no guard of its own): two answers at once in one n8n, exactly one resumes and the other is told which answer counted', async () => {
		const execution = await runUntilWait(
			{ nodeType, parameters: ask(), items: [{ order: 42 }], credentials: credentialsFor(ctx.emu) },
			{ resumeGuard: false },
		);
		const [approve, decline] = await Promise.all([
			answerInChat(execution, { choice: 0 }, { firstName: 'Anna' }),
			answerInChat(execution, { choice: 1 }, { user: ctx.d.otherUserId, firstName: 'Ben' }),
		]);
		const winners = [approve, decline].filter((receipt) => receipt.resumed !== undefined);
		expect(winners).toHaveLength(1);
		const loser = winners[0] === approve ? decline : approve;
		const output = await outputOf(winners[0]);
		expect(loser).toMatchObject({ status: 409, body: { resumed: false, notice: `This question was already answered: ${String(output.answer)} — ${winners[0] === approve ? 'Anna' : 'Ben'}` } });
		await callsOf('editMessageText');
		await execution.settled();
		expect(ctx.emu.callsTo('editMessageText')).toHaveLength(1);
	});

	it('an answer and a web page answer at once: exactly one resumes, and the question shows that one', async () => {
		const execution = await waitOn(ask());
		const page = resumeUrlOf(question().keyboard);
		const [chat, web] = await Promise.all([
			answerInChat(execution, { choice: 0 }),
			execution.answer({ method: 'POST', url: page, headers: { 'content-type': 'application/x-www-form-urlencoded' }, rawBody: 'answer=1' }),
		]);
		const winner = [chat, web].filter((receipt) => receipt.resumed !== undefined);
		expect(winner).toHaveLength(1);
		const output = await outputOf(winner[0]);
		await callsOf('editMessageText');
		expect(question().text).toBe(`Approve the refund?\n\n${String(output.answer)}${output.answeredVia === 'chat' ? ' — Demo' : ''}`);
		expect(ctx.emu.callsTo('editMessageText')).toHaveLength(1);
	});

	it("an answer after the execution went on gets n8n's refusal and resumes nothing", async () => {
		const execution = await waitOn(ask());
		const page = resumeUrlOf(question().keyboard);
		const url = chatAnswerUrl(String(question().keyboard[0][0].callback_data));
		await outputOf(await answerInChat(execution, { choice: 1 }));
		await execution.settled();
		const late = await answerInChat(execution, { choice: 0 }, { url });
		expect(late.status).toBe(409);
		expect(late.resumed).toBeUndefined();
		expect(await execution.answer({ method: 'GET', url: page })).toMatchObject({ status: 200, body: NO_ACTION_REQUIRED_PAGE });
	});

	it('the same node asking again (a loop): a button or link of the earlier question resumes nothing, the new question does', async () => {
		const execution = await waitOn(ask({ responseType: 'choice', choices: 'Again, Done' }), [{ order: 42 }], true);
		const first = question();
		const firstOutput = await outputOf(await answerInChat(execution, { choice: 0 }));
		expect(firstOutput).toMatchObject({ answer: 'Again', messageId: first.messageId });
		await execution.settled();
		expect(execution.state).toBe('waiting');
		const second = question();
		expect(second.messageId).not.toBe(first.messageId);
		// The earlier question's button (same execution, same node, same resume token) and its signed link.
		const oldTap = await answerInChat(execution, { choice: 1 }, { messageId: first.messageId });
		expect(oldTap).toMatchObject({ status: 409, body: { resumed: false, notice: 'This question was already answered or replaced by a newer one.' } });
		const oldPage = await execution.answer({ method: 'POST', url: resumeUrlOf(first.keyboard), headers: { 'content-type': 'application/x-www-form-urlencoded' }, rawBody: 'answer=1' });
		expect(oldPage.status).toBe(409);
		expect(oldPage.resumed).toBeUndefined();
		expect(execution.state).toBe('waiting');
		expect(await outputOf(await answerInChat(execution, { choice: 1 }))).toMatchObject({ answer: 'Done', messageId: second.messageId });
	});

	it('HTML parse mode: the answer added to the question is escaped', async () => {
		const execution = await waitOn(
			ask({ message: '<b>Refund</b> 5 €?', approvalOptions: { values: { approveLabel: 'Yes <sure>' } }, options: { parseMode: 'HTML' } }),
		);
		await outputOf(await answerInChat(execution, { choice: 0 }));
		await callsOf('editMessageText');
		expect(question().text).toBe('<b>Refund</b> 5 €?\n\nYes &lt;sure&gt; — Demo');
		expect(ctx.emu.callsTo('editMessageText').every((call) => call.status === 200)).toBe(true);
	});

	it.each([
		['a character outside the BMP at the limit', 'x'.repeat(MESSAGE_TEXT_MAX - 14) + '😀'.repeat(7), undefined],
		['an HTML entity at the limit', 'x'.repeat(MESSAGE_TEXT_MAX - 15) + '&amp;'.repeat(3), 'HTML'],
	])('a question at the limit with %s: the answered question is shortened where it can end, and the service accepts the edit', async (_case, message, parseMode) => {
		const execution = await waitOn(ask({ message, options: parseMode ? { parseMode } : {} }));
		await outputOf(await answerInChat(execution, { choice: 0 }));
		const [edit] = await callsOf('editMessageText');
		expect(edit.status).toBe(200);
		const text = String(edit.body.text);
		expect(text.length).toBeLessThanOrEqual(MESSAGE_TEXT_MAX);
		expect(text.endsWith('\n\n✅ Approve — Demo')).toBe(true);
		expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
		expect(text).not.toMatch(/&[a-z]*…/);
	});
});

describe('Send and Wait for Response: one name per field, and replies with nothing to map', () => {
	it('the answer names the chat, the question and who answered as the trigger does (chat_id, message_id, user_id), besides chatId and messageId', async () => {
		const execution = await waitOn(ask());
		const { messageId } = question();
		const answer = await outputOf(await answerInChat(execution, { choice: 0 }));
		expect(answer).toMatchObject({
			approved: true,
			chat_id: ctx.d.privateChatId,
			message_id: messageId,
			user_id: ctx.d.userId,
			chatId: ctx.d.privateChatId,
			messageId,
		});
		// What users drag from the schema comes first: the answer, then the trigger's names.
		expect(Object.keys(answer).slice(0, 5)).toEqual(['approved', 'answer', 'chat_id', 'message_id', 'user_id']);
	});

	it('version 3 (saved workflows): the answer keeps its own names only', async () => {
		const execution = await runUntilWait({ nodeType, parameters: ask(), items: [{ order: 42 }], credentials: credentialsFor(ctx.emu), typeVersion: 3 });
		const answer = await outputOf(await answerInChat(execution, { choice: 0 }));
		expect(answer).toMatchObject({ approved: true, chatId: ctx.d.privateChatId });
		expect(answer).not.toHaveProperty('chat_id');
		expect(answer).not.toHaveProperty('user_id');
	});

	it('Trigger → Code → Send and Wait → Send Message, every Chat left at its default: the question and the reply after the answer go to the chat the request came from', async () => {
		// The workflow's own published trigger receives the bot (instead of the stand-in listener of the other tests).
		await fetch(`${ctx.emu.baseUrl}/bot${ctx.d.token}/deleteWebhook`, { method: 'POST' });
		const listening = await liveTrigger(ctx.emu, { typeVersion: 2 });
		live.push(listening);
		await ctx.emu.userSends({ chatId: ctx.d.privateChatId, userId: ctx.d.userId, text: 'refund 42' });
		await ctx.emu.idle();
		const items = listening.emitted();
		expect(items).toHaveLength(1);
		const execution = await runUntilWait({
			nodeType,
			parameters: { resource: 'message', operation: 'sendAndWait', message: '={{ "Approve: " + $json.reply + "?" }}' },
			items,
			credentials: credentialsFor(ctx.emu),
			start: { name: 'Service Bot Trigger', nodeType: new ServiceBotTrigger(), typeVersion: 2, parameters: { updates: ['*'] } },
			before: [{ name: 'Code', nodeType: new ReverseText() }],
			after: [
				{
					name: 'Tell the User',
					nodeType,
					parameters: { resource: 'message', operation: 'sendMessage', text: '={{ $json.approved ? "Refund approved" : "Refund declined" }}' },
				},
			],
		});
		expect(question().text).toBe('Approve: 24 dnufer?');
		const receipt = await answerInChat(execution, { choice: 0 });
		if (!receipt.resumed) throw new Error(`the answer resumed nothing: ${receipt.status} ${JSON.stringify(receipt.body)}`);
		const { run } = await receipt.resumed;
		await execution.settled();
		const told = run.data.resultData.runData['Tell the User']?.[0];
		expect(told?.error).toBeUndefined();
		expect(told?.data?.main[0]?.[0]?.json).toMatchObject({ chat_id: ctx.d.privateChatId, text: 'Refund approved' });
		const history = ctx.emu.history(ctx.d.privateChatId);
		expect(history[history.length - 1]).toMatchObject({ text: 'Refund approved', chat: { id: ctx.d.privateChatId } });
	});
});

describe('Send and Wait for Response: answers on the web page', () => {
	it('web page mode: one link per answer; a link opens the page with that answer, which the page sends; n8n resumes with it', async () => {
		const execution = await waitOn(ask({ collectAnswers: 'webPage' }));
		const { keyboard } = question();
		expect(keyboard.map((row) => row.map((button) => button.text))).toEqual([['✅ Approve', '❌ Decline']]);
		expect(keyboard.flat().every((button) => button.callback_data === undefined)).toBe(true);
		const decline = keyboard[0][1].url as string;
		expect(new URL(decline).searchParams.get('answer')).toBe('1');
		// Opening the link answers nothing by itself (link previews open links too): the page sends the answer.
		const opened = await execution.answer({ method: 'GET', url: decline });
		expect(opened.status).toBe(200);
		expect(String(opened.body)).toContain("send({ answer: '1' })");
		expect(opened.resumed).toBeUndefined();
		const sent = await execution.answer({ method: 'POST', url: decline, headers: { 'content-type': 'text/plain;charset=UTF-8', accept: 'application/json' }, rawBody: 'answer=1' });
		expect(sent.status).toBe(200);
		expect(sent.body).toEqual({ resumed: true, notice: 'Thank you. Your answer: ❌ Decline' });
		expect(await outputOf(sent)).toMatchObject({ approved: false, answeredVia: 'web' });
		await callsOf('editMessageText');
		expect(question().text).toBe('Approve the refund?\n\n❌ Decline');
	});

	it('a link with a changed answer is refused by its signature, as n8n checks it', async () => {
		const execution = await waitOn(ask({ collectAnswers: 'webPage' }));
		const approve = new URL(question().keyboard[0][0].url as string);
		approve.searchParams.set('answer', '1');
		expect((await execution.answer({ method: 'GET', url: approve.toString() })).status).toBe(401);
		expect(execution.state).toBe('waiting');
	});

	it('free text: the page shows the question (escaped) and a form; the form answer resumes', async () => {
		const execution = await waitOn(ask({ responseType: 'freeText', collectAnswers: 'webPage', message: 'Why <not>?' }));
		const url = resumeUrlOf(question().keyboard);
		const page = await execution.answer({ method: 'GET', url });
		expect(page.contentType).toMatch(/text\/html/);
		expect(String(page.body)).toContain('Why &lt;not&gt;?');
		expect(String(page.body)).toContain('<textarea name="text"');
		expect(String(page.body)).not.toMatch(/<link\b|<script\s+src|https?:\/\/(?!127)/);
		expect(page.resumed).toBeUndefined();
		const form = await execution.answer({
			method: 'POST',
			url,
			headers: { 'content-type': 'application/x-www-form-urlencoded' },
			rawBody: new URLSearchParams({ text: 'Too expensive' }).toString(),
		});
		expect(await outputOf(form)).toMatchObject({ text: 'Too expensive', answeredVia: 'web' });
	});

	it('an execution that waits with restricted users (asked by an earlier version, whose question had the page link) refuses answers on the page', async () => {
		const execution = await waitOn(ask({ options: { allowedUserIds: ctx.d.userId } }));
		const url = signedResumeUrl(execution, { chat: ctx.d.privateChatId, message: String(question().messageId) });
		const page = await execution.answer({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, rawBody: 'answer=0' });
		expect(page.status).toBe(403);
		expect(execution.state).toBe('waiting');
	});
});

describe('Send and Wait for Response: the wait runs out', () => {
	it('Limit Wait Time sets when n8n stops waiting; then the workflow goes on with timedOut and the question as it was asked', async () => {
		const before = Date.now();
		const execution = await waitOn(ask({ options: { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 2, resumeUnit: 'hours' } } } }));
		const waitTill = new Date(execution.firstRun.data.waitTill as Date).getTime();
		expect(waitTill).toBeGreaterThanOrEqual(before + 2 * 3_600_000);
		expect(waitTill).toBeLessThanOrEqual(Date.now() + 2 * 3_600_000);
		const { messageId } = question();
		const result = await execution.timeOut();
		expect(result.error).toBeUndefined();
		expect(result.output.map((item) => item.json)).toEqual([
			{
				order: 42,
				timedOut: true,
				chat_id: ctx.d.privateChatId,
				message_id: messageId,
				chatId: ctx.d.privateChatId,
				messageId,
				serviceBotQuestion: {
					text: 'Approve the refund?',
					responseType: 'approval',
					labels: ['✅ Approve', '❌ Decline'],
					perRow: 2,
					answerLabel: '',
					collect: 'inChat',
					afterAnswer: 'edit',
					allowedUserIds: [],
					webLabel: '🌐 Answer in the browser',
				},
			},
		]);
		expect(result.output[0].pairedItem).toEqual({ item: 0 });
	});
});
