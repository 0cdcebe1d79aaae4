/**
 * Answers in the chat to a waiting Send and Wait for Response (the protocol: shared/answers.ts).
 * A tap on an answer button, or a reply to a free-text question, does not start this trigger's
 * workflow: the trigger checks the button's signature, brings the answer to the waiting execution's
 * resume URL, and tells the user what happened (the callback query's notice, or a reply for a
 * refused text). Everything here is keyed by the bot token; a button that fails the check resumes
 * nothing and only earns a notice.
 */
import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import type { AnswerReply, AnswerRequest } from '../../shared/answers';
import { ANSWER_HEADER, FREE_TEXT, isAnswerData, readAnswerData, signAnswer } from '../../shared/answers';
import { isObject } from '../../shared/json';
import { LIMITS } from '../../shared/spec';
import { callMethod } from '../../shared/transport';
import type { TriggerContext } from '../identity';
import type { ReceivedUpdate } from './update';

/** What the trigger needs to bring answers: a context to send with, and the bot token. */
export interface AnswerDesk {
	readonly ctx: TriggerContext;
	readonly token: string;
	/**
	 * False for a polling test, which acknowledges nothing and would bring the same answer at every
	 * look: it only recognises answers (they never start its workflow) and leaves them to the
	 * published trigger.
	 */
	readonly brings: boolean;
}

const NOTICES = {
	forged: 'This button is not valid.',
	noLink: 'This question cannot be answered in the chat anymore.',
	gone: 'This question was already answered or has expired.',
	failed: 'Your answer could not be delivered. Please try again.',
	replyWithText: 'Reply to this message with your answer.',
	textOnly: 'Please answer with text.',
} as const;

type Button = IDataObject & { callback_data?: unknown; url?: unknown };

function buttonsOf(message: unknown): Button[] {
	if (!isObject(message) || !isObject(message.reply_markup)) return [];
	const rows = message.reply_markup.inline_keyboard;
	if (!Array.isArray(rows)) return [];
	return rows.flatMap((row: unknown) => (Array.isArray(row) ? row.filter(isObject) : []));
}

/**
 * The waiting execution's resume URL, from the link button of the question (a URL cannot fit into
 * the 64 bytes of callback data). Only a URL of the execution the signed button names is taken:
 * the bot set the keyboard, so it is n8n's own signed URL.
 */
function resumeUrlIn(buttons: Button[], executionId: string): string | undefined {
	for (const { url } of buttons) {
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

/** Brings the answer to the execution; the notice for the user, whatever n8n answers. */
async function bringAnswer(desk: AnswerDesk, url: string, request: AnswerRequest): Promise<AnswerReply> {
	const body = JSON.stringify(request);
	const options: IHttpRequestOptions = {
		method: 'POST',
		url,
		body,
		headers: { 'content-type': 'application/json', [ANSWER_HEADER]: signAnswer(desk.token, body) },
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: 30_000,
	};
	let response: { statusCode?: number; body?: unknown };
	try {
		response = (await desk.ctx.helpers.httpRequest(options)) as { statusCode?: number; body?: unknown };
	} catch (error) {
		desk.ctx.logger.warn(
			`Service Bot Trigger "${desk.ctx.getNode().name}": an answer in the chat could not reach the waiting execution: ${(error as Error).message}`,
		);
		return { resumed: false, notice: NOTICES.failed };
	}
	let reply: unknown = response.body;
	if (typeof reply === 'string') {
		try {
			reply = JSON.parse(reply) as unknown;
		} catch {
			// n8n answers with a page for a send-and-wait that no longer waits.
		}
	}
	if (isObject(reply) && typeof reply.resumed === 'boolean' && typeof reply.notice === 'string') {
		return { resumed: reply.resumed, notice: reply.notice };
	}
	// 404: no such execution; 409 or n8n's "no action required" page: it finished or timed out.
	return { resumed: false, notice: NOTICES.gone };
}

async function notify(desk: AnswerDesk, callbackQueryId: string, text: string): Promise<void> {
	try {
		await callMethod(desk.ctx, 'answerCallbackQuery', {
			callback_query_id: callbackQueryId,
			text: text.slice(0, LIMITS.callbackAnswerText.max),
		});
	} catch (error) {
		desk.ctx.logger.debug(`Service Bot Trigger "${desk.ctx.getNode().name}": the tap could not be answered: ${(error as Error).message}`);
	}
}

async function replyTo(desk: AnswerDesk, chatId: string, messageId: number, text: string): Promise<void> {
	try {
		await callMethod(desk.ctx, 'sendMessage', { chat_id: chatId, text, reply_to_message_id: messageId });
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
	const chatId = update.chatId;
	const messageId = update.messageId;
	const button = chatId === undefined ? undefined : readAnswerData(desk.token, data, chatId);
	if (!button || chatId === undefined || messageId === undefined) {
		await notify(desk, callbackQueryId, NOTICES.forged);
		return 'a button with answer data that is not genuine';
	}
	if (button.choice === FREE_TEXT) {
		await notify(desk, callbackQueryId, NOTICES.replyWithText);
		return `the answer button of a free-text question (execution ${button.executionId})`;
	}
	const message = isObject(update.body.callback_query) ? update.body.callback_query.message : undefined;
	const url = resumeUrlIn(buttonsOf(message), button.executionId);
	if (!url) {
		await notify(desk, callbackQueryId, NOTICES.noLink);
		return `an answer to execution ${button.executionId} whose question has no resume link`;
	}
	const reply = await bringAnswer(desk, url, { choice: button.choice, chatId, messageId, user: userOf(update) });
	await notify(desk, callbackQueryId, reply.notice);
	return `an answer to execution ${button.executionId} (${reply.resumed ? 'resumed' : 'not resumed'})`;
}

interface FreeTextQuestion {
	executionId: string;
	messageId: number;
	url: string;
}

/**
 * The free-text question a message replies to: the replied-to message carries the question's signed
 * answer button and its resume link. Undefined when the message is anything else.
 */
function repliedQuestion(desk: AnswerDesk, update: ReceivedUpdate): FreeTextQuestion | undefined {
	const message = isObject(update.body.message) ? update.body.message : undefined;
	const question = message?.reply_to_message;
	const chatId = update.chatId;
	if (!isObject(question) || typeof question.message_id !== 'number' || chatId === undefined) return undefined;
	const buttons = buttonsOf(question);
	const signed = buttons
		.map(({ callback_data: data }) => (isAnswerData(data) ? readAnswerData(desk.token, data, chatId) : undefined))
		.find((button) => button?.choice === FREE_TEXT);
	const url = signed && resumeUrlIn(buttons, signed.executionId);
	return signed && url ? { executionId: signed.executionId, messageId: question.message_id, url } : undefined;
}

/** A reply to a free-text question: its text is the answer. */
async function answerReply(desk: AnswerDesk, update: ReceivedUpdate, question: FreeTextQuestion): Promise<string> {
	const chatId = update.chatId ?? '';
	const of = `execution ${question.executionId}'s question`;
	if (update.messageId === undefined) return `a reply to ${of} without a message ID`;
	if (update.text === undefined || update.text.trim() === '') {
		await replyTo(desk, chatId, update.messageId, NOTICES.textOnly);
		return `a reply without text to ${of}`;
	}
	const reply = await bringAnswer(desk, question.url, { text: update.text, chatId, messageId: question.messageId, user: userOf(update) });
	if (!reply.resumed) await replyTo(desk, chatId, update.messageId, reply.notice);
	return `a reply to ${of} (${reply.resumed ? 'resumed' : 'not resumed'})`;
}

const LEFT_TO_PUBLISHED = 'it is an answer to a waiting execution; the published trigger brings it';

/**
 * Handles the update when it is an answer in the chat; returns why it then starts no workflow, or
 * undefined for any other update.
 */
export async function handleAnswer(update: ReceivedUpdate, desk: AnswerDesk): Promise<string | undefined> {
	if (update.type === 'callback_query' && isAnswerData(update.callbackData)) {
		return desk.brings ? `it is ${await answerTap(desk, update, update.callbackData)}` : LEFT_TO_PUBLISHED;
	}
	const question = update.type === 'message' ? repliedQuestion(desk, update) : undefined;
	if (!question) return undefined;
	return desk.brings ? `it is ${await answerReply(desk, update, question)}` : LEFT_TO_PUBLISHED;
}
