/**
 * Answers given in the chat to a waiting "Send and Wait for Response": the protocol between the
 * action node, which asks and waits, and the trigger, which receives the tap (or the reply) and
 * brings it to the waiting execution. The two nodes share the bot token (the credential) and n8n;
 * nothing else.
 *
 * - An answer button's `callback_data` is `w2:<execution>:<choice>:<resume key>` (at most 64 bytes,
 *   spec part 8): the execution id (base 36 when it is a number), the answer's index (or `t` on the
 *   button of a free-text question), and the key n8n needs to resume that execution: its resume token
 *   (the `signature` of `$execution.resumeUrl`, 32 bytes, here in base64url; empty on an n8n without
 *   one). So the trigger can reach the execution from the tap alone: the spec promises nothing of a
 *   click's message but its `message_id` and `chat.id`, and a service may leave out the content of
 *   old messages, buttons included.
 * - The trigger POSTs the answer as JSON to `<n8n's webhook-waiting base>/<execution>/answer`, the
 *   action node's waiting webhook for chat answers, with `X-Service-Bot-Answer` = HMAC-SHA256 of the
 *   body under a key derived from the bot token: the node resumes nothing it cannot verify, so the
 *   resume key alone (which any chat member could read from the button) answers nothing. The node
 *   compares the tapped message with the one the execution waits on: a button of an earlier question
 *   (a loop that asks again) resumes nothing.
 * - n8n 2.x decides which answer resumes: it sends the node's reply only after it has marked the
 *   execution running, and refuses every other answer to the same wait. n8n 1.x resumes every answer
 *   that reaches the node while the execution waits, so the first answer also claims its question in
 *   this process (`claimQuestion`) and the node refuses the others. So the reply `{resumed: true}` is
 *   certain, and the trigger tells only that person their answer counted.
 *
 * Version 1 buttons (`w1:<execution>:<choice>:<tag>`, the tag an HMAC keyed by the bot token) of
 * questions asked before are still answered: their resume link is read from the question's keyboard.
 */
import { createHmac, timingSafeEqual } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import type { ServiceBotContext } from './transport';
import { callMethod, failureOf, messageOf } from './transport';

export const ANSWER_HEADER = 'x-service-bot-answer';
/** The path of the action node's waiting webhook for answers from the chat. */
export const CHAT_ANSWER_PATH = 'answer';
/** The query parameter n8n reads the resume token (or a URL signature) from. */
const RESUME_TOKEN_PARAM = 'signature';

/** The "choice" of a free-text question's button: a reply to the message is the answer. */
export const FREE_TEXT = 't';
export type Choice = number | typeof FREE_TEXT;

const V2 = 'w2:';
const V1 = 'w1:';
const DOMAIN = 'n8n-nodes-service-bot:answer:v1';
const V1_TAG_BYTES = 16;
/** Spec part 8: callback_data is 1 to 64 UTF-8 bytes. */
const CALLBACK_DATA_MAX_BYTES = 64;

/** What the trigger sends to the waiting execution. */
export interface AnswerRequest {
	/** The index of the chosen button (approval: 0 approve, 1 decline), or the text of a reply. */
	choice?: number;
	text?: string;
	/** The question the answer was given to: the tapped or replied-to message. */
	chatId: string;
	messageId: number;
	user: { id: string; first_name?: string; username?: string };
}

/** What the action node answers: whether this answer resumed the execution, and what to tell the person. */
export interface AnswerReply {
	resumed: boolean;
	notice: string;
}

/** What the action node answers to a look at its chat-answer webhook: the question it waits on. */
export interface WaitingReply {
	waiting: { chatId: string; messageId: number };
}

/** An answer button, as the trigger reads it from a tap. */
export interface AnswerButton {
	readonly version: 1 | 2;
	readonly executionId: string;
	readonly choice: Choice;
	/** Version 2: n8n's resume token of the execution (hex), '' when that n8n has none. */
	readonly resumeToken: string;
}

function keyOf(token: string): Buffer {
	return createHmac('sha256', token).update(DOMAIN, 'utf8').digest();
}

function compactExecutionId(executionId: string): string {
	return /^[1-9]\d{0,14}$/.test(executionId) ? Number(executionId).toString(36) : `_${executionId}`;
}

function fullExecutionId(compact: string): string | undefined {
	if (compact.startsWith('_')) {
		const raw = compact.slice(1);
		return /^[A-Za-z0-9-]{1,40}$/.test(raw) ? raw : undefined;
	}
	if (!/^[0-9a-z]{1,10}$/.test(compact)) return undefined;
	const value = parseInt(compact, 36);
	return Number.isSafeInteger(value) && value > 0 ? String(value) : undefined;
}

/** n8n's resume token of an execution: the `signature` of its `$execution.resumeUrl` ('' without one). */
export function resumeTokenOf(resumeUrl: string): string {
	try {
		return new URL(resumeUrl).searchParams.get(RESUME_TOKEN_PARAM) ?? '';
	} catch {
		return '';
	}
}

/**
 * The callback_data of an answer button, or undefined when it cannot fit into 64 bytes (an n8n
 * whose resume token or execution ids have another form; the question then needs the web page).
 */
export function answerButtonData(executionId: string, choice: Choice, resumeToken: string): string | undefined {
	const key = /^[0-9a-f]{64}$/.test(resumeToken) ? Buffer.from(resumeToken, 'hex').toString('base64url') : resumeToken === '' ? '' : undefined;
	if (key === undefined) return undefined;
	const data = `${V2}${compactExecutionId(executionId)}:${String(choice)}:${key}`;
	return Buffer.byteLength(data, 'utf8') <= CALLBACK_DATA_MAX_BYTES ? data : undefined;
}

/** Whether callback data looks like an answer button's (before any check). */
export function isAnswerData(data: unknown): data is string {
	return typeof data === 'string' && (data.startsWith(V2) || data.startsWith(V1));
}

function readChoice(value: string): Choice | undefined {
	if (value === FREE_TEXT) return FREE_TEXT;
	return /^\d{1,3}$/.test(value) ? Number(value) : undefined;
}

function same(a: string, b: string): boolean {
	const left = Buffer.from(a, 'utf8');
	const right = Buffer.from(b, 'utf8');
	return left.length === right.length && timingSafeEqual(left, right);
}

function legacyTag(token: string, executionId: string, choice: string, chatId: string): string {
	return createHmac('sha256', keyOf(token))
		.update(JSON.stringify(['callback', executionId, choice, chatId.toLowerCase()]), 'utf8')
		.digest()
		.subarray(0, V1_TAG_BYTES)
		.toString('base64url');
}

/**
 * The answer button a tap's data names, or undefined when it is not one. Version 2 needs no check
 * here (the waiting execution checks the answer); version 1 carries a tag keyed by the bot token
 * and the chat, checked in constant time.
 */
export function readAnswerData(data: string, chatId: string, token: string): AnswerButton | undefined {
	const version = data.startsWith(V2) ? 2 : data.startsWith(V1) ? 1 : undefined;
	if (version === undefined) return undefined;
	const parts = data.slice(V2.length).split(':');
	if (parts.length !== 3) return undefined;
	const [execution, value, last] = parts;
	const choice = readChoice(value);
	if (choice === undefined) return undefined;
	if (version === 2) {
		const executionId = fullExecutionId(execution);
		if (executionId === undefined || !/^([A-Za-z0-9_-]{43})?$/.test(last)) return undefined;
		return { version, executionId, choice, resumeToken: last === '' ? '' : Buffer.from(last, 'base64url').toString('hex') };
	}
	if (!/^[A-Za-z0-9_-]{1,24}$/.test(execution)) return undefined;
	if (!same(last, legacyTag(token, execution, value, chatId))) return undefined;
	return { version, executionId: execution, choice, resumeToken: '' };
}

/** The URL a version 2 answer goes to, from n8n's webhook-waiting base (`$execution.resumeUrl` without its last segment). */
export function chatAnswerUrl(waitingBase: string, button: AnswerButton): string {
	const url = new URL(`${waitingBase.replace(/\/+$/, '')}/${encodeURIComponent(button.executionId)}/${CHAT_ANSWER_PATH}`);
	if (button.resumeToken !== '') url.searchParams.set(RESUME_TOKEN_PARAM, button.resumeToken);
	return url.toString();
}

/** n8n's webhook-waiting base from a `$execution.resumeUrl` (of any execution, or of none). */
export function waitingBaseOf(resumeUrl: string): string | undefined {
	try {
		const url = new URL(resumeUrl);
		url.search = '';
		url.pathname = url.pathname.replace(/\/[^/]*\/?$/, '');
		return url.toString().replace(/\/+$/, '');
	} catch {
		return undefined;
	}
}

export function signAnswer(token: string, body: string): string {
	return createHmac('sha256', keyOf(token)).update(body, 'utf8').digest('hex');
}

export function answerSignatureMatches(token: string, body: string, signature: unknown): boolean {
	return typeof signature === 'string' && same(signature, signAnswer(token, body));
}

/**
 * The decisions this n8n process has seen resume an execution, so that a person whose answer lost
 * can be told which answer won (when the winning answer went through this process). Bounded.
 */
const DECISIONS_KEPT = 1000;
const decisions = new Map<string, string>();

function decisionKey(executionId: string, messageId: number): string {
	return `${executionId}:${messageId}`;
}

function keepBounded(map: Map<string, unknown>): void {
	if (map.size < DECISIONS_KEPT) return;
	const oldest = map.keys().next().value;
	if (oldest !== undefined) map.delete(oldest);
}

export function rememberDecision(executionId: string, messageId: number, decision: string): void {
	const key = decisionKey(executionId, messageId);
	claims.delete(key);
	keepBounded(decisions);
	decisions.set(key, decision);
}

/**
 * Answers this process is resuming and n8n has not accepted yet. n8n 1.x has no guard of its own:
 * two answers at once would both resume the execution (the rest of the workflow twice), until it has
 * marked the execution running (milliseconds; then it refuses answers before the node sees them). A
 * claim lapses after `CLAIM_LAPSE_MS`, so that a question whose resume failed can be answered again.
 */
const CLAIM_LAPSE_MS = 5_000;
const claims = new Map<string, { at: number; decision: string }>();

/**
 * Claims the question for an answer with `decision`. Returns the decision of the answer that holds or
 * resumed it instead, if any: then this answer must not resume the execution.
 */
export function claimQuestion(executionId: string, messageId: number, decision: string): string | undefined {
	const key = decisionKey(executionId, messageId);
	const taken = decisions.get(key) ?? claims.get(key);
	if (typeof taken === 'string') return taken;
	if (taken !== undefined && Date.now() - taken.at < CLAIM_LAPSE_MS) return taken.decision;
	claims.delete(key);
	keepBounded(claims);
	claims.set(key, { at: Date.now(), decision });
	return undefined;
}

export function rememberedDecision(executionId: string, messageId: number): string | undefined {
	return decisions.get(decisionKey(executionId, messageId));
}

/**
 * The edit that shows the answer in the question (or only removes its buttons), made when the answer
 * arrives and sent once n8n has accepted it.
 */
export interface QuestionUpdate {
	readonly method: 'editMessageText' | 'editMessageReplyMarkup';
	readonly body: IDataObject;
}

/** Which question an update is for, and who sends it, as log lines name it (`Service Bot "Ask"`). */
export interface QuestionRef {
	readonly executionId: string;
	readonly messageId: number;
	readonly by: string;
}

/**
 * An edit is sent again after a network error or a 5xx more patiently than a node's request: nobody
 * waits for it (the workflow has gone on), and a question that keeps its buttons after its answer
 * resumed the workflow misleads everyone in the chat. Repeating it cannot act twice.
 */
const QUESTION_UPDATE_RETRY = { transientRetries: 5, backoffBaseMs: 500 } as const;

/** Updates this process could not send: the next tap on such a question sends it again. Bounded. */
const unsentUpdates = new Map<string, QuestionUpdate>();

/** Telegram's answer to an edit that changes nothing: the question already shows the answer. */
function alreadyShown(error: unknown): boolean {
	const failure = failureOf(error);
	return failure?.kind === 'refused' && failure.status === 400 && /message is not modified/i.test(failure.description);
}

/**
 * Sends the question's update. A failure changes nothing else (the answer has resumed the workflow):
 * it is logged and kept, so that the next tap on the question sends it again (`resendQuestionUpdate`).
 */
export async function sendQuestionUpdate(ctx: ServiceBotContext, question: QuestionRef, update: QuestionUpdate): Promise<boolean> {
	const key = decisionKey(question.executionId, question.messageId);
	try {
		await callMethod(ctx, update.method, update.body, { idempotent: true, retry: QUESTION_UPDATE_RETRY });
	} catch (error) {
		if (!alreadyShown(error)) {
			keepBounded(unsentUpdates);
			unsentUpdates.set(key, update);
			ctx.logger.warn(
				`${question.by}: the answer resumed the workflow, but the question (message ${question.messageId}) could not be updated: ${messageOf(error)}. It is updated at the next tap on it.`,
			);
			return false;
		}
	}
	unsentUpdates.delete(key);
	return true;
}

/**
 * Sends again the update of an answered question that this process could not send before (a tap on
 * its buttons shows they are still there). False when there is none.
 */
export async function resendQuestionUpdate(ctx: ServiceBotContext, question: QuestionRef): Promise<boolean> {
	const update = unsentUpdates.get(decisionKey(question.executionId, question.messageId));
	return update === undefined ? false : await sendQuestionUpdate(ctx, question, update);
}
