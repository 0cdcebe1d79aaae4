/**
 * The answer to a waiting Send and Wait for Response, received by the node's waiting webhook (n8n has
 * already checked the signature of the resume URL, which carries the question's chat and message):
 * - POST with `X-Service-Bot-Answer`: an answer in the chat, from the Service Bot Trigger, signed with
 *   the bot token (shared/answers.ts); the reply tells the trigger what to show the user;
 * - GET with `answer`: a link of the question (web page mode) was opened: that answer;
 * - POST of the answer page's form: the answer given there;
 * - GET: the answer page.
 * An answer from someone who may not answer, or for another message, resumes nothing.
 */
import type { IDataObject, IWebhookDescription, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import type { AnswerReply, AnswerRequest } from '../../shared/answers';
import { ANSWER_HEADER, answerSignatureMatches } from '../../shared/answers';
import { isObject } from '../../shared/json';
import { LIMITS } from '../../shared/spec';
import { callMethod, tokenOf } from '../../shared/transport';
import { noticePage, questionPage } from './page';
import type { Question } from './question';
import { escapeFor, readQuestion } from './question';

/**
 * Where a waiting execution's answer arrives: n8n's resume URL of the node (restart webhooks, as
 * n8n's own send-and-wait nodes have; they are not registered anywhere while no execution waits).
 */
export const answerWebhooks: IWebhookDescription[] = (['GET', 'POST'] as const).map((httpMethod) => ({
	name: 'default',
	httpMethod,
	responseMode: 'onReceived',
	path: '={{ $nodeId }}',
	restartWebhook: true,
	isFullPath: true,
}));

interface Answer {
	choice?: number;
	text?: string;
	user?: AnswerRequest['user'];
	via: 'chat' | 'web';
}

/** The node's output on an answer: what was answered, by whom, in which message. */
function outputOf(question: Question, answer: Answer, place: { chatId: string; messageId: number }): IDataObject {
	const output: IDataObject = {};
	if (question.responseType === 'approval') output.approved = answer.choice === 0;
	if (answer.choice !== undefined) {
		output.answer = question.labels[answer.choice];
		if (question.responseType === 'choice') output.answerIndex = answer.choice;
	}
	if (answer.text !== undefined) output.text = answer.text;
	return {
		...output,
		user: (answer.user as IDataObject | undefined) ?? null,
		chatId: place.chatId,
		messageId: place.messageId,
		answeredVia: answer.via,
		respondedAt: new Date().toISOString(),
	};
}

/** The answer as a short line: the chosen label or the text, and who gave it. */
function decisionOf(question: Question, answer: Answer): string {
	const what = answer.choice !== undefined ? question.labels[answer.choice] : `✍️ ${answer.text ?? ''}`;
	const who = answer.user?.first_name ? ` — ${answer.user.first_name}` : '';
	return `${what}${who}`;
}

/** Updates the question message as the "After the Answer" option says. A failed update resumes anyway. */
async function updateQuestion(ctx: IWebhookFunctions, question: Question, answer: Answer, place: { chatId: string; messageId: number }): Promise<void> {
	if (question.afterAnswer === 'leave') return;
	try {
		if (question.afterAnswer === 'removeButtons') {
			await callMethod(ctx, 'editMessageReplyMarkup', { chat_id: place.chatId, message_id: place.messageId });
			return;
		}
		const asked = String(ctx.getNodeParameter('message', ''));
		const line = escapeFor(question.parseMode, decisionOf(question, answer));
		const text = `${asked}\n\n${line}`.slice(0, LIMITS.messageText.max);
		// An edit without reply_markup removes the buttons.
		await callMethod(ctx, 'editMessageText', {
			chat_id: place.chatId,
			message_id: place.messageId,
			text,
			...(question.parseMode ? { parse_mode: question.parseMode } : {}),
		});
	} catch (error) {
		ctx.logger.warn(`Service Bot "${ctx.getNode().name}": the answer resumed the workflow, but the question could not be updated: ${(error as Error).message}`);
	}
}

function reply(ctx: IWebhookFunctions, status: number, body: AnswerReply): void {
	ctx.getResponseObject().status(status).json(body);
}

function page(ctx: IWebhookFunctions, status: number, html: string): void {
	ctx.getResponseObject().status(status).type('html').send(html);
}

/** An answer the trigger brought that resumes nothing: the HTTP status and what the user is told. */
interface Refusal {
	status: number;
	notice: string;
}

/** The answer of a request from the trigger, or why it resumes nothing. */
async function answerFromChat(
	ctx: IWebhookFunctions,
	question: Question,
	place: { chatId: string; messageId: number },
): Promise<Answer | Refusal> {
	const raw = (ctx.getRequestObject() as { rawBody?: Buffer }).rawBody?.toString('utf8') ?? '';
	if (!answerSignatureMatches(await tokenOf(ctx), raw, ctx.getHeaderData()[ANSWER_HEADER])) {
		return { status: 403, notice: 'This answer could not be verified.' };
	}
	let request: Partial<AnswerRequest>;
	try {
		request = JSON.parse(raw) as Partial<AnswerRequest>;
	} catch {
		return { status: 400, notice: 'This answer could not be read.' };
	}
	if (String(request.chatId).toLowerCase() !== place.chatId.toLowerCase() || request.messageId !== place.messageId) {
		return { status: 400, notice: 'This answer belongs to another question.' };
	}
	const userId = isObject(request.user) ? String(request.user.id ?? '').toLowerCase() : '';
	if (question.allowedUserIds.length > 0 && !question.allowedUserIds.includes(userId)) {
		return { status: 403, notice: 'You may not answer this question.' };
	}
	if (question.responseType === 'freeText') {
		if (typeof request.text !== 'string' || request.text.trim() === '') return { status: 400, notice: 'Reply to the question with your answer.' };
		return { text: request.text, user: request.user, via: 'chat' };
	}
	const { choice } = request;
	if (typeof choice !== 'number' || question.labels[choice] === undefined) return { status: 400, notice: 'This button is not valid anymore.' };
	return { choice, user: request.user, via: 'chat' };
}

/** The answer given on the web (a link of the question, or the answer page's form), if any. */
function answerFromWeb(ctx: IWebhookFunctions, question: Question, method: string): Answer | undefined {
	const query = ctx.getQueryData() as IDataObject;
	const body = method === 'POST' ? ctx.getBodyData() : {};
	if (question.responseType === 'freeText') {
		const text = typeof body.text === 'string' ? body.text.trim() : '';
		return text === '' ? undefined : { text, via: 'web' };
	}
	const raw = method === 'POST' ? body.answer : query.answer;
	const choice = Number(raw);
	return raw !== undefined && Number.isInteger(choice) && question.labels[choice] !== undefined ? { choice, via: 'web' } : undefined;
}

export async function answerWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const query = this.getQueryData() as IDataObject;
	const place = { chatId: String(query.chat ?? ''), messageId: Number(query.message) };
	const question = readQuestion((name, fallback) => this.getNodeParameter(name, fallback), { node: this.getNode(), itemIndex: 0 });
	const method = this.getRequestObject().method.toUpperCase();
	const resume = async (answer: Answer): Promise<IWebhookResponseData> => {
		await updateQuestion(this, question, answer, place);
		return { noWebhookResponse: true, workflowData: [[{ json: outputOf(question, answer, place) }]] };
	};

	if (method === 'POST' && this.getHeaderData()[ANSWER_HEADER] !== undefined) {
		const answer = await answerFromChat(this, question, place);
		if ('status' in answer) {
			reply(this, answer.status, { resumed: false, notice: answer.notice });
			return { noWebhookResponse: true };
		}
		reply(this, 200, { resumed: true, notice: decisionOf(question, { ...answer, user: undefined }) });
		return await resume(answer);
	}
	if (question.allowedUserIds.length > 0) {
		page(this, 403, noticePage('Only some people may answer this question: answer it in the chat.'));
		return { noWebhookResponse: true };
	}
	const answer = answerFromWeb(this, question, method);
	if (!answer) {
		page(this, 200, questionPage(question, String(this.getNodeParameter('message', ''))));
		return { noWebhookResponse: true };
	}
	page(this, 200, noticePage(`Thank you. Your answer: ${decisionOf(question, answer)}`));
	return await resume(answer);
}
