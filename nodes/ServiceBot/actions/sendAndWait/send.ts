/**
 * Send and Wait for Response: sends the question, then puts the execution to wait (n8n keeps
 * nothing in memory; the wait survives a restart). The answer resumes it through the node's waiting
 * webhooks (answerWebhook.ts): from the Service Bot Trigger for a tap or a reply in the chat, or from the
 * answer page. Like n8n's own send-and-wait nodes it asks once per run, with the first item.
 *
 * The question goes out in two calls: the message, then its keyboard, made once the message ID is
 * known: the links carry the chat and the message in n8n's signed resume URL, and the execution
 * keeps the question's chat and message, so that an answer to any other message resumes nothing.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { WAIT_INDEFINITELY } from 'n8n-workflow';

import type { Choice } from '../../../shared/sendAndWait/protocol';
import { answerButtonData, FREE_TEXT, resumeTokenOf } from '../../../shared/sendAndWait/protocol';
import { LIMITS } from '../../../shared/spec';
import { apiRequest } from '../../../shared/transport/client';
import { checkValue, readParam } from '../../parameters/body';
import { checkFixedValue } from '../../parameters/fixed';
import type { At } from '../../parameters/errors';
import { inputError, show } from '../../parameters/errors';
import type { ReadItem } from '../../parameters/kind';
import type { Param } from '../../parameters/param';
import { HANDY_NAMES_SINCE, nodeParameter } from '../../parameters/param';
import { QUESTION_CHAT } from './fields';
import type { Question } from './question';
import { ASKED_QUESTION_FIELD, askedQuestion, readQuestion } from './question';
import { checkAnswersCanArrive } from './receivers';

const MESSAGE: Param = {
	name: 'text',
	kind: 'text',
	required: true,
	displayName: 'Message',
	description: 'The question',
	min: 1,
	max: LIMITS.messageText.max,
};

const UNITS_MS: Record<string, number> = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 };

/** When to stop waiting: the "Limit Wait Time" option, or never. */
function waitTillOf(at: At, options: IDataObject): Date {
	const limit = ((options.limitWaitTime as IDataObject | undefined)?.values ?? undefined) as IDataObject | undefined;
	if (!limit) return WAIT_INDEFINITELY;
	if (limit.limitType === 'atSpecifiedTime') {
		const date = new Date(String(limit.maxDateAndTime ?? ''));
		if (Number.isNaN(date.getTime())) throw inputError(at, 'Limit Wait Time → Max Date and Time', `${show(limit.maxDateAndTime)} is not a date`);
		return date;
	}
	const amount = Number(limit.resumeAmount ?? 1);
	const unit = UNITS_MS[String(limit.resumeUnit ?? 'hours')];
	if (!Number.isFinite(amount) || amount <= 0 || unit === undefined) {
		throw inputError(at, 'Limit Wait Time → Amount', `${show(limit.resumeAmount)} is not a positive amount of time`);
	}
	return new Date(Date.now() + amount * unit);
}

type Button = Record<string, string>;

interface Place {
	chatId: string;
	messageId: number;
}

/** This execution's `$execution.resumeUrl` (with n8n's resume token as its `signature`, on an n8n that has one). */
function resumeUrlOf(ctx: IExecuteFunctions): string {
	return String(ctx.evaluateExpression('{{ $execution.resumeUrl }}', 0) ?? '');
}

/** The callback data of each answer button of this execution; fails, before anything is sent, where it cannot fit. */
function answerButtons(ctx: IExecuteFunctions, at: At, resumeUrl: string): (choice: Choice) => string {
	const executionId = ctx.getExecutionId();
	const token = resumeTokenOf(resumeUrl);
	const data = (choice: Choice): string | undefined => answerButtonData(executionId, choice, token);
	if (data(999) === undefined) {
		throw inputError(at, 'Collect Answers', 'this n8n\'s resume links do not fit into an answer button (64 bytes); set it to On a Web Page');
	}
	return (choice) => data(choice) ?? '';
}

/**
 * The question's keyboard: answer buttons (in the chat) or answer links (web page), and the link to
 * the answer page — left out when only some people may answer, as the page cannot tell who answers.
 */
function keyboardOf(ctx: IExecuteFunctions, question: Question, place: Place, answerData: (choice: Choice) => string): Button[][] {
	const link = (extra: Record<string, string> = {}) =>
		ctx.getSignedResumeUrl({ chat: place.chatId, message: String(place.messageId), ...extra });
	const restricted = question.allowedUserIds.length > 0;
	const page: Button[][] = restricted ? [] : [[{ text: question.webLabel, url: link() }]];
	if (question.responseType === 'freeText') {
		if (question.collect === 'webPage') return [[{ text: question.answerLabel, url: link() }]];
		return [[{ text: question.answerLabel, callback_data: answerData(FREE_TEXT) }], ...page];
	}
	const buttons = question.labels.map((text, index): Button =>
		question.collect === 'webPage' ? { text, url: link({ answer: String(index) }) } : { text, callback_data: answerData(index) },
	);
	const perRow = question.responseType === 'approval' ? buttons.length : question.perRow;
	const rows: Button[][] = [];
	for (let index = 0; index < buttons.length; index += perRow) rows.push(buttons.slice(index, index + perRow));
	return question.collect === 'webPage' ? rows : [...rows, ...page];
}

export async function sendAndWait(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const at: At = { node: this.getNode(), itemIndex: 0 };
	const options = nodeParameter(this, 'options', 0, {}) as IDataObject;
	const item: ReadItem = { ctx: this, itemIndex: 0, options, at, version: this.getNode().typeVersion };
	// Everything is read and checked before the first request.
	const chatId = readParam(item, QUESTION_CHAT) as string;
	checkFixedValue(item, MESSAGE, 'message');
	const text = checkValue(item, MESSAGE, nodeParameter(this, 'message', 0, '')) as string;
	const question = readQuestion((name, fallback) => nodeParameter(this, name, 0, fallback), at);
	const waitTill = waitTillOf(at, options);
	if (question.collect === 'webPage' && question.allowedUserIds.length > 0) {
		throw inputError(
			at,
			'Restrict to User IDs',
			'cannot be checked on a web page, which does not know who answers; set Collect Answers to In the Chat (the service tells who tapped), or remove the restriction',
		);
	}
	const resumeUrl = resumeUrlOf(this);
	const answerData = question.collect === 'inChat' ? answerButtons(this, at, resumeUrl) : () => '';
	if (question.collect === 'inChat') await checkAnswersCanArrive(this, at, resumeUrl);

	const sent = await apiRequest<IDataObject>(this, 'sendMessage', {
		chat_id: chatId,
		text,
		...(question.parseMode ? { parse_mode: question.parseMode } : {}),
	});
	const place = { chatId: String((sent.chat as IDataObject | undefined)?.id ?? chatId), messageId: Number(sent.message_id) };
	await apiRequest(this, 'editMessageReplyMarkup', {
		chat_id: place.chatId,
		message_id: place.messageId,
		reply_markup: { inline_keyboard: keyboardOf(this, question, place, answerData) },
	});

	// n8n resumes a wait that runs out by passing the node's input on without running the node, so the
	// input it keeps says that no answer came (with the input's own fields), and keeps the question as
	// it was asked, which the answer is judged by (question.ts).
	const [asked] = this.getInputData();
	const handy = this.getNode().typeVersion >= HANDY_NAMES_SINCE ? { chat_id: place.chatId, message_id: place.messageId } : {};
	const timedOut = {
		...asked?.json,
		timedOut: true,
		...handy,
		chatId: place.chatId,
		messageId: place.messageId,
		[ASKED_QUESTION_FIELD]: askedQuestion(question, text),
	};
	this.getExecuteData().data = { main: [[{ json: timedOut, pairedItem: { item: 0 } }]] };
	await this.putExecutionToWait(waitTill);
	return [this.getInputData()];
}
