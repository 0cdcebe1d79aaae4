/**
 * Send and Wait for Response, the action node's side, through n8n-core's real engine: the execution
 * waits (status "waiting"), the question is in the chat with its buttons, and an answer at the resume
 * URL (as the Service Bot Trigger brings it, or from the answer page) resumes it with the answer; a
 * wrong, forged or late answer resumes nothing; a wait that runs out goes on with `timedOut`.
 *
 * The trigger's request is made here from the protocol as the README states it, not with the
 * package's own signing code: key = HMAC-SHA256(bot token, "n8n-nodes-service-bot:answer:v1"),
 * header X-Service-Bot-Answer = hex HMAC-SHA256(key, body).
 */
import { createHmac } from 'node:crypto';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { NO_ACTION_REQUIRED_PAGE, runUntilWait, type WaitingExecution } from '../harness/waiting';
import { byId, nodeType, useEmulator } from './helpers';

const ctx = useEmulator();

/** Spec part 8: callback_data is 1 to 64 UTF-8 bytes. */
const CALLBACK_DATA_MAX_BYTES = 64;

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

async function waitOn(parameters: INodeParameters, items: IDataObject[] = [{ order: 42 }]): Promise<WaitingExecution> {
	return await runUntilWait({
		nodeType,
		parameters,
		items,
		credentials: { accessToken: ctx.d.token, baseUrl: ctx.emu.baseUrl },
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

function signature(token: string, body: string): string {
	const key = createHmac('sha256', token).update('n8n-nodes-service-bot:answer:v1', 'utf8').digest();
	return createHmac('sha256', key).update(body, 'utf8').digest('hex');
}

/** What the Service Bot Trigger sends for a tap (choice) or a reply (text) of `user`. */
async function answerInChat(
	execution: WaitingExecution,
	answer: { choice?: number; text?: string },
	options: { user?: string; messageId?: number; token?: string; url?: string } = {},
) {
	const { messageId, keyboard } = question();
	const body = JSON.stringify({
		...answer,
		chatId: ctx.d.privateChatId,
		messageId: options.messageId ?? messageId,
		user: { id: options.user ?? ctx.d.userId, first_name: 'Demo' },
	});
	return await execution.answer({
		method: 'POST',
		url: options.url ?? resumeUrlOf(keyboard),
		headers: { 'content-type': 'application/json', 'x-service-bot-answer': signature(options.token ?? ctx.d.token, body) },
		rawBody: body,
	});
}

describe('Send and Wait for Response: asking', () => {
	it('the execution waits; the question has Approve / Decline buttons and a link to its resume URL', async () => {
		const execution = await waitOn(ask());
		expect(execution.firstRun.status).toBe('waiting');
		const { text, keyboard, messageId } = question();
		expect(text).toBe('Approve the refund?');
		expect(keyboard.map((row) => row.map((button) => button.text))).toEqual([['✅ Approve', '❌ Decline'], ['🌐 Answer in the browser']]);
		for (const button of keyboard[0]) {
			expect(Buffer.byteLength(String(button.callback_data), 'utf8')).toBeLessThanOrEqual(CALLBACK_DATA_MAX_BYTES);
			expect(button.callback_data).toMatch(new RegExp(`^w1:${execution.executionId}:[01]:`));
		}
		const link = new URL(resumeUrlOf(keyboard));
		expect(link.pathname).toBe(`/webhook-waiting/${execution.executionId}/node-under-test`);
		expect(link.searchParams.get('chat')).toBe(ctx.d.privateChatId);
		expect(link.searchParams.get('message')).toBe(String(messageId));
		expect(link.searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
		expect(execution.finished).toBeUndefined();
	});

	it('bad input fails before anything is sent, naming the field', async () => {
		const cases: Array<[INodeParameters, RegExp]> = [
			[ask({ chatId: byId('={{ "not a chat" }}') }), /: Chat: 'not a chat' is not a chat UUID or @username \[item 0\]\)$/],
			[ask({ message: '={{ "" }}' }), /: Message: is required and may not be empty \[item 0\]\)$/],
			[ask({ responseType: 'choice', choices: '={{ [] }}' }), /: Choices: the list is empty/],
			[ask({ approvalOptions: { values: { approveLabel: 'x'.repeat(129) } } }), /: Approve Button Label: is 129 characters, the limit is 128/],
			[ask({ options: { allowedUserIds: '@someone' } }), /: Restrict to User IDs: '@someone' is not a user UUID/],
		];
		for (const [parameters, message] of cases) {
			await expect(waitOn(parameters)).rejects.toThrow(message);
		}
		expect(ctx.emu.calls).toHaveLength(0);
	});
});

describe('Send and Wait for Response: answers in the chat (as the trigger brings them)', () => {
	it('Approve resumes with approved: true; the question shows the answer and loses its buttons', async () => {
		const execution = await waitOn(ask());
		const receipt = await answerInChat(execution, { choice: 0 });
		expect(receipt.status).toBe(200);
		expect(receipt.body).toEqual({ resumed: true, notice: '✅ Approve' });
		expect(receipt.resumed?.error).toBeUndefined();
		expect(receipt.resumed?.output.map((item) => item.json)).toEqual([
			expect.objectContaining({ approved: true, answer: '✅ Approve', answeredVia: 'chat', chatId: ctx.d.privateChatId, user: { id: ctx.d.userId, first_name: 'Demo' } }),
		]);
		const { text, keyboard } = question();
		expect(text).toBe('Approve the refund?\n\n✅ Approve — Demo');
		expect(keyboard).toEqual([]);
	});

	it('Decline resumes with approved: false', async () => {
		const execution = await waitOn(ask());
		const receipt = await answerInChat(execution, { choice: 1 });
		expect(receipt.resumed?.output[0].json).toMatchObject({ approved: false, answer: '❌ Decline' });
	});

	it('Choice: the options as a grid; the tapped one is the answer', async () => {
		const execution = await waitOn(ask({ responseType: 'choice', choices: 'Red, Green, Blue', choicesPerRow: 2 }));
		expect(question().keyboard.map((row) => row.map((button) => button.text))).toEqual([['Red', 'Green'], ['Blue'], ['🌐 Answer in the browser']]);
		const receipt = await answerInChat(execution, { choice: 2 });
		expect(receipt.resumed?.output[0].json).toMatchObject({ answer: 'Blue', answerIndex: 2 });
		expect(receipt.resumed?.output[0].json.approved).toBeUndefined();
	});

	it('Free Text: a reply to the question is the answer', async () => {
		const execution = await waitOn(ask({ responseType: 'freeText', message: 'Why?' }));
		expect(question().keyboard.map((row) => row.map((button) => button.text))).toEqual([['✍️ Answer'], ['🌐 Answer in the browser']]);
		const receipt = await answerInChat(execution, { text: 'Because it broke.' });
		expect(receipt.resumed?.output[0].json).toMatchObject({ text: 'Because it broke.', answeredVia: 'chat' });
		expect(question().text).toBe('Why?\n\n✍️ Because it broke. — Demo');
	});

	it('only the listed users may answer: another user gets a notice and the execution keeps waiting', async () => {
		const execution = await waitOn(ask({ options: { allowedUserIds: ctx.d.userId.toUpperCase() } }));
		const refused = await answerInChat(execution, { choice: 0 }, { user: ctx.d.otherUserId });
		expect(refused.status).toBe(403);
		expect(refused.body).toEqual({ resumed: false, notice: 'You may not answer this question.' });
		expect(refused.resumed).toBeUndefined();
		expect(execution.finished).toBeUndefined();
		const accepted = await answerInChat(execution, { choice: 0 });
		expect(accepted.resumed?.output[0].json).toMatchObject({ approved: true });
	});

	it("a forged signature, a signature with another token, or another message resume nothing; a second answer gets n8n's no-action page", async () => {
		const execution = await waitOn(ask());
		expect((await answerInChat(execution, { choice: 0 }, { token: '999:not-the-bot' })).body).toEqual({
			resumed: false,
			notice: 'This answer could not be verified.',
		});
		const { messageId, keyboard } = question();
		const url = resumeUrlOf(keyboard);
		expect((await answerInChat(execution, { choice: 0 }, { messageId: messageId + 1 })).body).toEqual({
			resumed: false,
			notice: 'This answer belongs to another question.',
		});
		expect((await answerInChat(execution, { choice: 7 })).body).toEqual({ resumed: false, notice: 'This button is not valid anymore.' });
		expect(execution.finished).toBeUndefined();
		expect((await answerInChat(execution, { choice: 1 })).resumed?.output[0].json).toMatchObject({ approved: false });
		// n8n answers an execution that already went on with its own page, not the node's JSON.
		const late = await answerInChat(execution, { choice: 0 }, { url, messageId });
		expect(late).toMatchObject({ status: 200, body: NO_ACTION_REQUIRED_PAGE });
		expect(late.resumed).toBeUndefined();
	});

	it('two questions waiting in the same chat: each answer resumes its own execution', async () => {
		const first = await waitOn(ask({ message: 'First?' }), [{ n: 1 }]);
		const firstMessage = question();
		const second = await waitOn(ask({ message: 'Second?' }), [{ n: 2 }]);
		const secondAnswer = await answerInChat(second, { choice: 1 });
		expect(secondAnswer.resumed?.output[0].json).toMatchObject({ approved: false, messageId: question().messageId });
		expect(first.finished).toBeUndefined();
		// The first question's own link and message: an answer with the second message is refused.
		const body = JSON.stringify({ choice: 0, chatId: ctx.d.privateChatId, messageId: firstMessage.messageId, user: { id: ctx.d.userId } });
		const firstAnswer = await first.answer({
			method: 'POST',
			url: resumeUrlOf(firstMessage.keyboard),
			headers: { 'content-type': 'application/json', 'x-service-bot-answer': signature(ctx.d.token, body) },
			rawBody: body,
		});
		expect(firstAnswer.resumed?.output[0].json).toMatchObject({ approved: true, messageId: firstMessage.messageId });
	});

	it('HTML parse mode: the answer added to the question is escaped', async () => {
		const execution = await waitOn(
			ask({ message: '<b>Refund</b> 5 €?', approvalOptions: { values: { approveLabel: 'Yes <sure>' } }, options: { parseMode: 'HTML' } }),
		);
		await answerInChat(execution, { choice: 0 });
		expect(question().text).toBe('<b>Refund</b> 5 €?\n\nYes &lt;sure&gt; — Demo');
		expect(ctx.emu.callsTo('editMessageText').every((call) => call.status === 200)).toBe(true);
	});
});

describe('Send and Wait for Response: answers on the web page', () => {
	it('web page mode: one link per answer; opening one resumes with that answer', async () => {
		const execution = await waitOn(ask({ collectAnswers: 'webPage' }));
		const { keyboard } = question();
		expect(keyboard.map((row) => row.map((button) => button.text))).toEqual([['✅ Approve', '❌ Decline']]);
		expect(keyboard.flat().every((button) => button.callback_data === undefined)).toBe(true);
		const decline = keyboard[0][1].url as string;
		expect(new URL(decline).searchParams.get('answer')).toBe('1');
		const receipt = await execution.answer({ method: 'GET', url: decline });
		expect(receipt.status).toBe(200);
		expect(String(receipt.body)).toMatch(/Thank you/);
		expect(receipt.resumed?.output[0].json).toMatchObject({ approved: false, answeredVia: 'web' });
	});

	it('a link with a changed answer is refused by its signature, as n8n checks it', async () => {
		const execution = await waitOn(ask({ collectAnswers: 'webPage' }));
		const approve = new URL(question().keyboard[0][0].url as string);
		approve.searchParams.set('answer', '1');
		expect((await execution.answer({ method: 'GET', url: approve.toString() })).status).toBe(401);
		expect(execution.finished).toBeUndefined();
	});

	it('free text: the page shows the question (escaped) and a form; the form answer resumes', async () => {
		const execution = await waitOn(ask({ responseType: 'freeText', collectAnswers: 'webPage', message: 'Why <not>?' }));
		const url = resumeUrlOf(question().keyboard);
		const page = await execution.answer({ method: 'GET', url });
		expect(page.contentType).toMatch(/text\/html/);
		expect(String(page.body)).toContain('Why &lt;not&gt;?');
		expect(String(page.body)).toContain('<textarea name="text"');
		expect(String(page.body)).not.toMatch(/<(script|link)\b|https?:\/\/(?!127)/);
		expect(page.resumed).toBeUndefined();
		const form = await execution.answer({
			method: 'POST',
			url,
			headers: { 'content-type': 'application/x-www-form-urlencoded' },
			rawBody: new URLSearchParams({ text: 'Too expensive' }).toString(),
		});
		expect(form.resumed?.output[0].json).toMatchObject({ text: 'Too expensive', answeredVia: 'web' });
	});

	it('with restricted users the page refuses answers (it cannot tell who answers)', async () => {
		const execution = await waitOn(ask({ options: { allowedUserIds: ctx.d.userId } }));
		const page = await execution.answer({ method: 'POST', url: resumeUrlOf(question().keyboard), headers: { 'content-type': 'application/x-www-form-urlencoded' }, rawBody: 'answer=0' });
		expect(page.status).toBe(403);
		expect(execution.finished).toBeUndefined();
	});
});

describe('Send and Wait for Response: the wait runs out', () => {
	it('Limit Wait Time sets when n8n stops waiting; then the workflow goes on with timedOut', async () => {
		const before = Date.now();
		const execution = await waitOn(ask({ options: { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 2, resumeUnit: 'hours' } } } }));
		const waitTill = new Date(execution.firstRun.data.waitTill as Date).getTime();
		expect(waitTill).toBeGreaterThanOrEqual(before + 2 * 3_600_000);
		expect(waitTill).toBeLessThanOrEqual(Date.now() + 2 * 3_600_000);
		const { messageId } = question();
		const result = await execution.timeOut();
		expect(result.error).toBeUndefined();
		expect(result.output.map((item) => item.json)).toEqual([{ order: 42, timedOut: true, chatId: ctx.d.privateChatId, messageId }]);
		expect(result.output[0].pairedItem).toEqual({ item: 0 });
	});
});
