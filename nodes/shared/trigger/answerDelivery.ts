/**
 * The trigger's delivery of answers in the chat to a waiting Send and Wait for Response (the protocol:
 * shared/sendAndWait/protocol.ts).
 * A tap on an answer button, or a reply to a free-text question, does not start this trigger's
 * workflow: the trigger brings the answer to the waiting execution and tells the person what
 * happened (the callback query's notice, or a reply for a refused text).
 *
 * n8n lets one answer resume a wait: the execution's reply `{resumed: true}` comes only for that
 * one, after n8n has marked the execution running; every other answer to the same wait gets an
 * error from n8n, and its person is told the question was already answered (by whom, when the
 * winning answer went through this n8n process).
 */
import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { isObject } from '../json';
import { rememberedDecision, resendQuestionUpdate } from '../sendAndWait/answeredQuestion';
import type { AnswerButton, AnswerReply, AnswerRequest, WaitingReply } from '../sendAndWait/protocol';
import { ANSWER_HEADER, FREE_TEXT, NOTICES, chatAnswerUrl, isAnswerData, readAnswerData, signAnswer, waitingBaseOf } from '../sendAndWait/protocol';
import { LIMITS } from '../spec';
import { apiRequest } from '../transport/client';
import { CREDENTIAL_TYPE } from '../transport/token';
import type { TriggerContext } from './identity';
import type { ReceivedUpdate } from './update';

/** What the trigger needs to bring answers: a context to send with, and where n8n takes answers. */
export interface AnswerDesk {
	readonly ctx: TriggerContext;
	/**
	 * False for a polling test, which acknowledges nothing and would bring the same answer at every
	 * look: it only recognises answers (they never start its workflow) and leaves them to the
	 * published trigger.
	 */
	readonly brings: boolean;
	/** n8n's webhook-waiting base URL (undefined where n8n gives none). */
	readonly waitingBase: () => string | undefined;
}

/**
 * The desk of a trigger, made while n8n runs the trigger's function (its activation, or a webhook
 * request): n8n evaluates expressions only then — a poll loop that evaluated one later would get "No
 * bridge acquired for this context" from n8n 2.41's expression engine. So the polling trigger reads
 * n8n's waiting base `now`, at activation; a webhook call reads it `whenAsked`, within the same call,
 * since most pushes are not answers and the evaluation costs n8n several milliseconds of CPU.
 */
export function answerDesk(ctx: TriggerContext, brings: boolean, read: 'now' | 'whenAsked'): AnswerDesk {
	if (read === 'now') {
		const waitingBase = waitingBaseFrom(ctx);
		return { ctx, brings, waitingBase: () => waitingBase };
	}
	let asked: { value: string | undefined } | undefined;
	return { ctx, brings, waitingBase: () => (asked ??= { value: waitingBaseFrom(ctx) }).value };
}

type Button = IDataObject & { callback_data?: unknown; url?: unknown };

function buttonsOf(message: unknown): Button[] {
	if (!isObject(message) || !isObject(message.reply_markup)) return [];
	const rows = message.reply_markup.inline_keyboard;
	if (!Array.isArray(rows)) return [];
	return rows.flatMap((row: unknown) => (Array.isArray(row) ? row.filter(isObject) : []));
}

/**
 * Version 1 buttons: the waiting execution's resume URL, from the link button of the question (only
 * a URL of the execution the signed button names: the bot set the keyboard, so it is n8n's own).
 */
function legacyResumeUrl(message: unknown, executionId: string): string | undefined {
	for (const { url } of buttonsOf(message)) {
		if (typeof url !== 'string') continue;
		try {
			const parsed = new URL(url);
			if (['http:', 'https:'].includes(parsed.protocol) && parsed.pathname.includes(`/webhook-waiting/${executionId}/`)) return url;
		} catch {
			// Not a URL: not the resume link.
		}
	}
	return undefined;
}

/** n8n's webhook-waiting base, from `$execution.resumeUrl` as n8n gives it to every node. */
function waitingBaseFrom(ctx: TriggerContext): string | undefined {
	if (!('evaluateExpression' in ctx) || typeof ctx.evaluateExpression !== 'function') return undefined;
	const resumeUrl: unknown = ctx.evaluateExpression('{{ $execution.resumeUrl }}', 0);
	return typeof resumeUrl === 'string' ? waitingBaseOf(resumeUrl) : undefined;
}

/** Where an answer to `button` goes, or undefined when it cannot be reached from this tap. */
function answerUrl(desk: AnswerDesk, button: AnswerButton, message: unknown): string | undefined {
	if (button.version === 1) return legacyResumeUrl(message, button.executionId);
	const waitingBase = desk.waitingBase();
	return waitingBase === undefined ? undefined : chatAnswerUrl(waitingBase, button);
}

/** The bot token as the credential holds it now (a changed token is used at once). */
async function currentToken(desk: AnswerDesk): Promise<string> {
	const credentials: IDataObject = await desk.ctx.getCredentials(CREDENTIAL_TYPE);
	return typeof credentials.accessToken === 'string' ? credentials.accessToken : '';
}

type Response = { statusCode?: number; body?: unknown };

async function post(desk: AnswerDesk, url: string, request: AnswerRequest): Promise<Response> {
	const body = JSON.stringify(request);
	const options: IHttpRequestOptions = {
		method: 'POST',
		url,
		body,
		headers: { 'content-type': 'application/json', accept: 'application/json', [ANSWER_HEADER]: signAnswer(await currentToken(desk), body) },
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: 30_000,
	};
	return (await desk.ctx.helpers.httpRequest(options)) as Response;
}

function parsed(body: unknown): unknown {
	if (typeof body !== 'string') return body;
	try {
		return JSON.parse(body) as unknown;
	} catch {
		// n8n answers with a page for a send-and-wait that no longer waits.
		return body;
	}
}

function isReply(value: unknown): value is AnswerReply {
	return isObject(value) && typeof value.resumed === 'boolean' && typeof value.notice === 'string';
}

/**
 * Whether the execution still waits on this question: asked after n8n refused an answer for a reason
 * it does not tell (a second answer to the same wait and a database that is not ready look alike).
 */
async function stillWaitsOn(desk: AnswerDesk, url: string, request: AnswerRequest): Promise<boolean> {
	try {
		const response = (await desk.ctx.helpers.httpRequest({ method: 'GET', url, returnFullResponse: true, ignoreHttpStatusErrors: true, timeout: 10_000 })) as Response;
		const reply = parsed(response.body);
		if (response.statusCode !== 200 || !isObject(reply) || !isObject(reply.waiting)) return false;
		const { waiting } = reply as unknown as WaitingReply;
		return String(waiting.chatId).toLowerCase() === request.chatId.toLowerCase() && waiting.messageId === request.messageId;
	} catch {
		return false;
	}
}

function alreadyAnswered(executionId: string, messageId: number): string {
	const decision = rememberedDecision(executionId, messageId);
	return decision === undefined ? NOTICES.gone : NOTICES.alreadyAnswered(decision);
}

/**
 * The fix when n8n's SSRF protection (N8N_SSRF_PROTECTION_ENABLED) refused the request: the trigger
 * calls n8n's own resume URL, which an n8n on a private or loopback address must allow.
 */
function ssrfHint(error: unknown): string {
	const name = error instanceof Error ? error.name : '';
	if (!name.startsWith('SsrfBlocked')) return '';
	return ". n8n's SSRF protection blocks the address of n8n's own webhook URL, where answers in the chat go: add its host name to N8N_SSRF_ALLOWED_HOSTNAMES (or its address to N8N_SSRF_ALLOWED_IP_RANGES) and restart n8n";
}

/** Brings the answer to the execution; what to tell the person, whatever n8n answers. */
async function bringAnswer(desk: AnswerDesk, button: AnswerButton, url: string, request: AnswerRequest): Promise<AnswerReply> {
	let response: Response;
	try {
		response = await post(desk, url, request);
	} catch (error) {
		desk.ctx.logger.warn(
			`Service Bot Trigger "${desk.ctx.getNode().name}": an answer in the chat could not reach the waiting execution: ${(error as Error).message}${ssrfHint(error)}`,
		);
		return { resumed: false, notice: NOTICES.failed };
	}
	const status = response.statusCode ?? 0;
	const reply = parsed(response.body);
	// The execution's own reply: it resumed with this answer, or it refused it.
	if (isReply(reply) && (status < 500 || reply.resumed)) return { resumed: reply.resumed && status >= 200 && status < 300, notice: reply.notice };
	// 401: n8n refused the resume key (a made-up button); 404: no such execution; n8n's page: it has finished.
	if (status === 401) return { resumed: false, notice: NOTICES.forged };
	if (status === 404 || (status === 200 && typeof reply === 'string')) return { resumed: false, notice: NOTICES.gone };
	// 409 (running) or 500 (another answer resumed it first) — or n8n failed for another reason.
	if (button.version === 2 && status >= 500 && (await stillWaitsOn(desk, url, request))) return { resumed: false, notice: NOTICES.failed };
	return { resumed: false, notice: alreadyAnswered(button.executionId, request.messageId) };
}

async function notify(desk: AnswerDesk, callbackQueryId: string, text: string): Promise<void> {
	try {
		await apiRequest(desk.ctx, 'answerCallbackQuery', {
			callback_query_id: callbackQueryId,
			text: Array.from(text).slice(0, LIMITS.callbackAnswerText.max).join(''),
		});
	} catch (error) {
		desk.ctx.logger.debug(`Service Bot Trigger "${desk.ctx.getNode().name}": the tap could not be answered: ${(error as Error).message}`);
	}
}

async function replyTo(desk: AnswerDesk, chatId: string, messageId: number, text: string): Promise<void> {
	try {
		await apiRequest(desk.ctx, 'sendMessage', { chat_id: chatId, text, reply_to_message_id: messageId });
	} catch (error) {
		desk.ctx.logger.debug(`Service Bot Trigger "${desk.ctx.getNode().name}": the notice could not be sent: ${(error as Error).message}`);
	}
}

function userOf(update: ReceivedUpdate): AnswerRequest['user'] {
	const user = update.user ?? {};
	return {
		id: update.userId ?? '',
		...(typeof user.first_name === 'string' ? { first_name: user.first_name } : {}),
		...(typeof user.username === 'string' ? { username: user.username } : {}),
	};
}

/** A tap on a button whose data looks like an answer's. */
async function answerTap(desk: AnswerDesk, update: ReceivedUpdate, data: string): Promise<string> {
	const callbackQueryId = update.callbackQueryId ?? '';
	const { chatId, messageId } = update;
	const button = chatId === undefined ? undefined : readAnswerData(data, chatId, await currentToken(desk));
	if (!button || chatId === undefined || messageId === undefined) {
		await notify(desk, callbackQueryId, NOTICES.forged);
		return 'a button with answer data that is not genuine';
	}
	if (button.choice === FREE_TEXT) {
		await notify(desk, callbackQueryId, NOTICES.replyToThisMessage);
		return `the answer button of a free-text question (execution ${button.executionId})`;
	}
	const message = isObject(update.body.callback_query) ? update.body.callback_query.message : undefined;
	const url = answerUrl(desk, button, message);
	if (!url) {
		await notify(desk, callbackQueryId, NOTICES.noLink);
		return `an answer to execution ${button.executionId} whose question has no resume link`;
	}
	const reply = await bringAnswer(desk, button, url, { choice: button.choice, chatId, messageId, user: userOf(update) });
	await notify(desk, callbackQueryId, reply.notice);
	// A tap on a question that no longer waits: its answer's update, if this process could not send
	// it, goes out now (the buttons being tapped show it is missing).
	if (!reply.resumed) await resendQuestionUpdate(desk.ctx, { executionId: button.executionId, messageId, by: `Service Bot Trigger "${desk.ctx.getNode().name}"` });
	return `an answer to execution ${button.executionId} (${reply.resumed ? 'resumed' : 'not resumed'})`;
}

interface FreeTextQuestion {
	button: AnswerButton;
	messageId: number;
	url: string;
}

/**
 * The free-text question a message replies to: the replied-to message (as the service includes it,
 * by Telegram's convention) carries the question's answer button. Undefined when the message is
 * anything else.
 */
async function repliedQuestion(desk: AnswerDesk, update: ReceivedUpdate): Promise<FreeTextQuestion | undefined> {
	const message = isObject(update.body.message) ? update.body.message : undefined;
	const question = message?.reply_to_message;
	const chatId = update.chatId;
	if (!isObject(question) || typeof question.message_id !== 'number' || chatId === undefined) return undefined;
	const data = buttonsOf(question)
		.map(({ callback_data: candidate }) => candidate)
		.filter(isAnswerData);
	if (data.length === 0) return undefined;
	const token = await currentToken(desk);
	const button = data.map((candidate) => readAnswerData(candidate, chatId, token)).find((candidate) => candidate?.choice === FREE_TEXT);
	const url = button && answerUrl(desk, button, question);
	return button && url ? { button, messageId: question.message_id, url } : undefined;
}

/** A reply to a free-text question: its text is the answer. */
async function answerReply(desk: AnswerDesk, update: ReceivedUpdate, question: FreeTextQuestion): Promise<string> {
	const chatId = update.chatId ?? '';
	const of = `execution ${question.button.executionId}'s question`;
	if (update.messageId === undefined) return `a reply to ${of} without a message ID`;
	if (update.text === undefined || update.text.trim() === '') {
		await replyTo(desk, chatId, update.messageId, NOTICES.textOnly);
		return `a reply without text to ${of}`;
	}
	const reply = await bringAnswer(desk, question.button, question.url, { text: update.text, chatId, messageId: question.messageId, user: userOf(update) });
	if (!reply.resumed) await replyTo(desk, chatId, update.messageId, reply.notice);
	return `a reply to ${of} (${reply.resumed ? 'resumed' : 'not resumed'})`;
}

/** An answer in the chat, recognised: `bring` takes it to the waiting execution and says what happened. */
export interface ChatAnswer {
	bring(): Promise<string>;
}

/** The update as an answer in the chat to a waiting execution, or undefined for any other update. */
export async function recogniseAnswer(update: ReceivedUpdate, desk: AnswerDesk): Promise<ChatAnswer | undefined> {
	if (update.type === 'callback_query' && isAnswerData(update.callbackData)) {
		const data = update.callbackData;
		return { bring: async () => `it is ${await answerTap(desk, update, data)}` };
	}
	const question = update.type === 'message' ? await repliedQuestion(desk, update) : undefined;
	if (!question) return undefined;
	return { bring: async () => `it is ${await answerReply(desk, update, question)}` };
}
