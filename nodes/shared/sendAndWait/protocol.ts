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
 *   this process (`claimQuestion`, answeredQuestion.ts) and the node refuses the others. So the reply
 *   `{resumed: true}` is certain, and the trigger tells only that person their answer counted.
 * - What the person who answered is told comes from one table (`NOTICES`), whichever side tells it:
 *   the waiting execution in its reply (which the trigger passes on, or the answer page shows), or the
 *   trigger when no execution could say.
 *
 * Version 1 buttons (`w1:<execution>:<choice>:<tag>`, the tag an HMAC keyed by the bot token) of
 * questions asked before are still answered: their resume link is read from the question's keyboard.
 */
import { createHmac, timingSafeEqual } from 'crypto';

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

/**
 * What the person who answered is told: in the chat (the tap's notice, or a reply to their message)
 * or on the answer page.
 */
export const NOTICES = {
	// Told by the waiting execution (actions/sendAndWait/answerWebhook.ts).
	unverified: 'This answer could not be verified. If the bot token was changed, use the same credential in the trigger and in the Send and Wait node.',
	unreadable: 'This answer could not be read.',
	otherQuestion: 'This question was already answered or replaced by a newer one.',
	notAllowed: 'You may not answer this question.',
	replyToTheQuestion: 'Reply to the question with your answer.',
	invalidButton: 'This button is not valid anymore.',
	restrictedPage: 'Only some people may answer this question: answer it in the chat.',
	thanks: (decision: string) => `Thank you. Your answer: ${decision}`,
	// Told by the waiting execution, or by the trigger when another answer resumed it (trigger/answerDelivery.ts).
	alreadyAnswered: (decision: string) => `This question was already answered: ${decision}`,
	// Told by the trigger when no execution could say; `gone` also by the answer page when n8n refused the answer.
	forged: 'This button is not valid.',
	noLink: 'This question cannot be answered in the chat anymore: use the link of its answer page.',
	gone: 'This question was already answered or has expired.',
	failed: 'Your answer could not be delivered. Please try again.',
	replyToThisMessage: 'Reply to this message with your answer.',
	textOnly: 'Please answer with text.',
} as const;

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
