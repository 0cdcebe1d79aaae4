/**
 * Answers given in the chat to a waiting "Send and Wait for Response": the protocol between the
 * action node, which asks and waits, and the trigger, which receives the tap (or the reply) and
 * resumes the waiting execution. Both nodes hold the bot token and nothing else in common, so the
 * token keys everything here; nobody without it can forge an answer.
 *
 * - The question's buttons carry `callback_data` = `w1:<executionId>:<choice>:<tag>` (at most 64
 *   bytes, spec part 8): `<choice>` is the answer's index, or `t` on the button of a free-text
 *   question; `<tag>` = HMAC-SHA256 over the execution, the choice and the chat, keyed by a key
 *   derived from the bot token, 128 bits in base64url. A copied, tampered or made-up reference fails
 *   the check (constant time); one of a finished or timed-out wait is refused by n8n when resumed.
 * - The question also has a link button to the execution's signed resume URL (n8n's own signature;
 *   the action node's answer page). A tap's callback query carries the question message with its
 *   keyboard, so the trigger finds the resume URL there: the URL cannot fit into 64 bytes, and only
 *   n8n's signed URL resumes a waiting execution.
 * - The trigger POSTs the answer as JSON to that URL with `X-Service-Bot-Answer` = HMAC-SHA256 of the
 *   body under the same key; the action node's webhook checks it before it resumes anything.
 */
import { createHmac, timingSafeEqual } from 'crypto';

export const ANSWER_HEADER = 'x-service-bot-answer';

const PREFIX = 'w1:';
/** The "choice" of a free-text question's button: a reply to the message is the answer. */
export const FREE_TEXT = 't';
const DOMAIN = 'n8n-nodes-service-bot:answer:v1';
const TAG_BYTES = 16;

/** What the trigger sends to the resume URL. */
export interface AnswerRequest {
	/** The index of the chosen button (approval: 0 approve, 1 decline), or the text of a reply. */
	choice?: number;
	text?: string;
	chatId: string;
	messageId: number;
	user: { id: string; first_name?: string; username?: string };
}

/** What the action node answers the trigger: whether the execution resumed, and a notice for the user. */
export interface AnswerReply {
	resumed: boolean;
	notice: string;
}

function keyOf(token: string): Buffer {
	return createHmac('sha256', token).update(DOMAIN, 'utf8').digest();
}

function tagOf(token: string, executionId: string, choice: string, chatId: string): string {
	return createHmac('sha256', keyOf(token))
		.update(JSON.stringify(['callback', executionId, choice, chatId.toLowerCase()]), 'utf8')
		.digest()
		.subarray(0, TAG_BYTES)
		.toString('base64url');
}

/** The callback_data of an answer button (choice: an index, or FREE_TEXT). */
export function answerButtonData(token: string, executionId: string, choice: number | typeof FREE_TEXT, chatId: string): string {
	const value = String(choice);
	return `${PREFIX}${executionId}:${value}:${tagOf(token, executionId, value, chatId)}`;
}

/** Whether callback data looks like an answer button's (before any check). */
export function isAnswerData(data: unknown): data is string {
	return typeof data === 'string' && data.startsWith(PREFIX);
}

function same(a: string, b: string): boolean {
	const left = Buffer.from(a, 'utf8');
	const right = Buffer.from(b, 'utf8');
	return left.length === right.length && timingSafeEqual(left, right);
}

/** The execution and choice of a genuine answer button in `chatId`, or undefined when forged or copied. */
export function readAnswerData(
	token: string,
	data: string,
	chatId: string,
): { executionId: string; choice: number | typeof FREE_TEXT } | undefined {
	const parts = data.slice(PREFIX.length).split(':');
	if (parts.length !== 3) return undefined;
	const [executionId, value, tag] = parts;
	if (!/^[A-Za-z0-9_-]{1,24}$/.test(executionId) || !/^(t|\d{1,3})$/.test(value)) return undefined;
	if (!same(tag, tagOf(token, executionId, value, chatId))) return undefined;
	return { executionId, choice: value === FREE_TEXT ? FREE_TEXT : Number(value) };
}

export function signAnswer(token: string, body: string): string {
	return createHmac('sha256', keyOf(token)).update(body, 'utf8').digest('hex');
}

export function answerSignatureMatches(token: string, body: string, signature: unknown): boolean {
	return typeof signature === 'string' && same(signature, signAnswer(token, body));
}
