/**
 * The answer to a waiting Send and Wait for Response, received by the node's waiting webhooks:
 * - `…/<execution>/answer` (POST, `X-Service-Bot-Answer`): an answer in the chat, brought by the
 *   Service Bot Trigger and signed with the bot token (shared/sendAndWait/protocol.ts); GET: which
 *   question the execution waits on;
 * - `…/<execution>/<node id>?chat&message[&answer]&signature` (n8n's signed URL): the answer page
 *   (GET) and an answer given on it (POST); and answers in the chat to questions of version 1.
 *
 * Only an answer to the question the execution waits on resumes it: an execution that asks again
 * (a loop) keeps the chat and message of its newest question as the node's input, and answers to an
 * earlier question are refused.
 *
 * n8n 2.x resumes at most one answer per wait: it sends the reply of `webhook()` only after it has
 * marked the execution running, and answers every other request for the same wait with an error. So
 * nothing here tells a person their answer counted, nor updates the question, before n8n sends that
 * reply: both happen when n8n serializes it (`AcceptedAnswer.toJSON`). n8n 1.x resumes every answer
 * that gets this far, so an answer first claims the question in this process (`claimQuestion`), and
 * one arriving while another holds it is told which answer counted.
 *
 * Everything the answer is judged by and the question's update are read within `webhook()`, from the
 * question as the execution keeps it (question.ts): by the time n8n serializes the reply it has
 * released the expression engine, and a field given as an expression can no longer be read.
 */
import type { IDataObject, IWebhookDescription, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { isObject } from '../../../shared/json';
import type { QuestionUpdate } from '../../../shared/sendAndWait/answeredQuestion';
import { claimQuestion, rememberDecision, sendQuestionUpdate } from '../../../shared/sendAndWait/answeredQuestion';
import type { AnswerReply, AnswerRequest, WaitingReply } from '../../../shared/sendAndWait/protocol';
import { ANSWER_HEADER, CHAT_ANSWER_PATH, NOTICES, answerSignatureMatches } from '../../../shared/sendAndWait/protocol';
import { LIMITS } from '../../../shared/spec';
import { tokenOf } from '../../../shared/transport/token';
import { splitText } from '../../../shared/splitText';
import { HANDY_NAMES_SINCE } from '../../parameters/param';
import { noticePage, questionPage } from './page';
import type { AskedQuestion, Question } from './question';
import { ASKED_QUESTION_FIELD, askedQuestion, escapeFor, readAskedQuestion, readQuestion } from './question';

const waitingWebhook = (httpMethod: 'GET' | 'POST', path: string): IWebhookDescription => ({
	name: 'default',
	httpMethod,
	responseMode: 'onReceived',
	// Empty, so that n8n sends what webhook() returns as `webhookResponse` (n8n's default would replace it).
	responseData: '',
	path,
	restartWebhook: true,
	isFullPath: true,
});

/**
 * Where a waiting execution's answers arrive: n8n's resume URLs of the node (restart webhooks, as
 * n8n's own send-and-wait nodes have; they are not registered anywhere while no execution waits).
 */
export const answerWebhooks: IWebhookDescription[] = [
	waitingWebhook('GET', '={{ $nodeId }}'),
	waitingWebhook('POST', '={{ $nodeId }}'),
	waitingWebhook('GET', CHAT_ANSWER_PATH),
	waitingWebhook('POST', CHAT_ANSWER_PATH),
];

interface Place {
	chatId: string;
	messageId: number;
}

interface Answer {
	choice?: number;
	text?: string;
	user?: AnswerRequest['user'];
	via: 'chat' | 'web';
}

/** The question the execution waits on: the chat and message the node keeps as its input while it waits. */
function waitingPlace(ctx: IWebhookFunctions): Place | undefined {
	const chatId = ctx.evaluateExpression('{{ $json.chatId }}', 0);
	const messageId = Number(ctx.evaluateExpression('{{ $json.messageId }}', 0));
	return typeof chatId === 'string' && chatId !== '' && Number.isInteger(messageId) ? { chatId, messageId } : undefined;
}

/**
 * The question as it was asked, as the execution keeps it; for a question asked by an earlier version
 * of this package, its fields read again (which works for fixed values and for expressions of the
 * node's input, read here, while n8n evaluates expressions).
 */
function waitingQuestion(ctx: IWebhookFunctions): AskedQuestion {
	const kept = readAskedQuestion(ctx.evaluateExpression(`{{ $json.${ASKED_QUESTION_FIELD} }}`, 0));
	if (kept) return kept;
	const question = readQuestion((name, fallback) => ctx.getNodeParameter(name, fallback), { node: ctx.getNode(), itemIndex: 0 });
	return askedQuestion(question, String(ctx.getNodeParameter('message', '')));
}

function samePlace(a: Place | undefined, b: Place): boolean {
	return a !== undefined && a.chatId.toLowerCase() === b.chatId.toLowerCase() && a.messageId === b.messageId;
}

/**
 * The node's output on an answer: what was answered, by whom, in which message. `handyNames` (from
 * HANDY_NAMES_SINCE): also named as the trigger's items name them (`chat_id`, `message_id`,
 * `user_id`), after the answer (what users drag first); `chatId` and `messageId` stay, as
 * expressions written for older versions read them.
 */
function outputOf(question: Question, answer: Answer, place: Place, handyNames: boolean): IDataObject {
	const output: IDataObject = {};
	if (question.responseType === 'approval') output.approved = answer.choice === 0;
	if (answer.choice !== undefined) {
		output.answer = question.labels[answer.choice];
		if (question.responseType === 'choice') output.answerIndex = answer.choice;
	}
	if (answer.text !== undefined) output.text = answer.text;
	const user = (answer.user as IDataObject | undefined) ?? null;
	const handy = handyNames ? { chat_id: place.chatId, message_id: place.messageId, user_id: user?.id ?? null } : {};
	return {
		...output,
		...handy,
		user,
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

/**
 * The question with the answer added, within the service's limit: the question is shortened where
 * a part of Split Long Text could end (never inside a character, a tag or an entity).
 */
function answeredText(asked: string, line: string, parseMode: string | undefined): string {
	const max = LIMITS.messageText.max;
	const full = `${asked}\n\n${line}`;
	if (full.length <= max) return full;
	const room = max - line.length - 3;
	const cut = room > 0 ? splitText(asked, room, parseMode) : undefined;
	const head = cut?.ok ? cut.parts[0] : '';
	return head === '' ? line.slice(0, max) : `${head}…\n\n${line}`;
}

/** The request that shows the answer in the question, as the "After the Answer" option says; none for "leave". */
function questionUpdate(question: AskedQuestion, answer: Answer, place: Place): QuestionUpdate | undefined {
	const message = { chat_id: place.chatId, message_id: place.messageId };
	if (question.afterAnswer === 'leave') return undefined;
	if (question.afterAnswer === 'removeButtons') return { method: 'editMessageReplyMarkup', body: message };
	const line = escapeFor(question.parseMode, decisionOf(question, answer));
	// An edit without reply_markup removes the buttons.
	return {
		method: 'editMessageText',
		body: { ...message, text: answeredText(question.text, line, question.parseMode), ...(question.parseMode ? { parse_mode: question.parseMode } : {}) },
	};
}

/**
 * The reply to the answer that resumes the execution. n8n serializes it only once it has marked the
 * execution running with this answer (and never for an answer it refuses), so that is when the
 * question is updated and the decision remembered.
 */
class AcceptedAnswer {
	private accepted = false;

	constructor(
		private readonly reply: AnswerReply,
		private readonly onAccepted: () => void,
	) {}

	toJSON(): AnswerReply {
		if (!this.accepted) {
			this.accepted = true;
			this.onAccepted();
		}
		return this.reply;
	}
}

function resume(ctx: IWebhookFunctions, question: AskedQuestion, answer: Answer, place: Place): IWebhookResponseData {
	const decision = decisionOf(question, answer);
	const executionId = ctx.getExecutionId();
	const counted = claimQuestion(executionId, place.messageId, decision);
	if (counted !== undefined) {
		const notice = NOTICES.alreadyAnswered(counted);
		return answer.via === 'web' ? page(ctx, 409, noticePage(notice)) : reply(ctx, 409, { resumed: false, notice });
	}
	const notice = answer.via === 'web' ? NOTICES.thanks(decision) : decisionOf(question, { ...answer, user: undefined });
	const update = questionUpdate(question, answer, place);
	const accepted = new AcceptedAnswer({ resumed: true, notice }, () => {
		rememberDecision(executionId, place.messageId, decision);
		if (update) void sendQuestionUpdate(ctx, { executionId, messageId: place.messageId, by: `Service Bot "${ctx.getNode().name}"` }, update);
	});
	// Paired with the item the question was asked for, so later nodes follow it back (Chat From Trigger).
	const json = outputOf(question, answer, place, ctx.getNode().typeVersion >= HANDY_NAMES_SINCE);
	return { workflowData: [[{ json, pairedItem: { item: 0 } }]], webhookResponse: accepted };
}

function reply(ctx: IWebhookFunctions, status: number, body: AnswerReply | WaitingReply): IWebhookResponseData {
	ctx.getResponseObject().status(status).json(body);
	return { noWebhookResponse: true };
}

function page(ctx: IWebhookFunctions, status: number, html: string): IWebhookResponseData {
	ctx.getResponseObject().status(status).type('html').send(html);
	return { noWebhookResponse: true };
}

/** An answer the trigger brought that resumes nothing: the HTTP status and what the person is told. */
interface Refusal {
	status: number;
	notice: string;
}

/** The answer of a request from the trigger, or why it resumes nothing. */
async function answerFromChat(ctx: IWebhookFunctions, question: Question, waiting: Place | undefined, signed: Place | undefined): Promise<{ answer: Answer; place: Place } | Refusal> {
	const raw = (ctx.getRequestObject() as { rawBody?: Buffer }).rawBody?.toString('utf8') ?? '';
	if (!answerSignatureMatches(await tokenOf(ctx), raw, ctx.getHeaderData()[ANSWER_HEADER])) {
		return { status: 403, notice: NOTICES.unverified };
	}
	let request: Partial<AnswerRequest>;
	try {
		request = JSON.parse(raw) as Partial<AnswerRequest>;
	} catch {
		return { status: 400, notice: NOTICES.unreadable };
	}
	const place = { chatId: String(request.chatId ?? ''), messageId: Number(request.messageId) };
	// A version 1 link names its question too, signed by n8n.
	if (!samePlace(waiting, place) || (signed !== undefined && !samePlace(signed, place))) {
		return { status: 409, notice: NOTICES.otherQuestion };
	}
	const userId = isObject(request.user) ? String(request.user.id ?? '').toLowerCase() : '';
	if (question.allowedUserIds.length > 0 && !question.allowedUserIds.includes(userId)) {
		return { status: 403, notice: NOTICES.notAllowed };
	}
	if (question.responseType === 'freeText') {
		if (typeof request.text !== 'string' || request.text.trim() === '') return { status: 400, notice: NOTICES.replyToTheQuestion };
		return { answer: { text: request.text, user: request.user, via: 'chat' }, place };
	}
	const { choice } = request;
	if (typeof choice !== 'number' || question.labels[choice] === undefined) return { status: 400, notice: NOTICES.invalidButton };
	return { answer: { choice, user: request.user, via: 'chat' }, place };
}

/** The answer given on the answer page (its form, or a link of a web page question), if any. */
function answerFromWeb(ctx: IWebhookFunctions, question: Question): Answer | undefined {
	const body = ctx.getBodyData();
	if (question.responseType === 'freeText') {
		const text = typeof body.text === 'string' ? body.text.trim() : '';
		return text === '' ? undefined : { text, via: 'web' };
	}
	const choice = Number(body.answer);
	return body.answer !== undefined && Number.isInteger(choice) && question.labels[choice] !== undefined ? { choice, via: 'web' } : undefined;
}

function isChatAnswerPath(ctx: IWebhookFunctions): boolean {
	const path = ctx.getRequestObject().path ?? new URL(ctx.getRequestObject().url ?? '/', 'http://n8n').pathname;
	return path.replace(/\/+$/, '').endsWith(`/${CHAT_ANSWER_PATH}`);
}

export async function answerWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const question = waitingQuestion(this);
	const method = this.getRequestObject().method.toUpperCase();
	const waiting = waitingPlace(this);
	const fromChat = method === 'POST' && this.getHeaderData()[ANSWER_HEADER] !== undefined;

	if (isChatAnswerPath(this)) {
		if (method === 'GET') return waiting ? reply(this, 200, { waiting }) : reply(this, 404, { resumed: false, notice: NOTICES.otherQuestion });
		if (!fromChat) return reply(this, 403, { resumed: false, notice: NOTICES.unverified });
		const result = await answerFromChat(this, question, waiting, undefined);
		return 'status' in result ? reply(this, result.status, { resumed: false, notice: result.notice }) : resume(this, question, result.answer, result.place);
	}

	// n8n's signed URL of the answer page (and of version 1 answer buttons) names the question.
	const query = this.getQueryData() as IDataObject;
	const signed = { chatId: String(query.chat ?? ''), messageId: Number(query.message) };
	if (fromChat) {
		const result = await answerFromChat(this, question, waiting, signed);
		return 'status' in result ? reply(this, result.status, { resumed: false, notice: result.notice }) : resume(this, question, result.answer, result.place);
	}
	if (!samePlace(waiting, signed)) return page(this, 409, noticePage(NOTICES.otherQuestion));
	if (question.allowedUserIds.length > 0) return page(this, 403, noticePage(NOTICES.restrictedPage));
	if (method !== 'POST') {
		const preselected = Number(query.answer);
		const choice = question.labels[preselected] !== undefined ? preselected : undefined;
		return page(this, 200, questionPage(question, choice));
	}
	const answer = answerFromWeb(this, question);
	if (!answer) return page(this, 400, questionPage(question));
	return resume(this, question, answer, signed);
}
