/**
 * What went wrong with a call to the service, in two forms: the typed failure callers decide on
 * (`failureOf`), and the `NodeApiError` users read, in the service's own words where it gave any,
 * with what to do where a user can act (the one table of refusal advice), never with the token in it.
 * Both forms are made in one place here (`apiError`, where every text and the failure are redacted);
 * the errors of each way a call fails (cancelled, unanswered, refused) are built on it in callErrors.ts.
 */
import type { JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { redact } from './token';
import type { ServiceBotContext } from './types';

/** What went wrong with a call, as callers decide on it. */
export type ServiceFailure =
	/** The caller aborted the call (its signal) before the service answered. */
	| { readonly kind: 'cancelled' }
	/** The service could not be reached; `nothingSent` when the request provably did not leave. */
	| { readonly kind: 'network'; readonly code?: string; readonly nothingSent: boolean }
	/** No answer in time: the service may have acted. */
	| { readonly kind: 'timeout' }
	/** The service refused (a 4xx, or ok:false) with its own description; 429 carries its retry_after. */
	| { readonly kind: 'refused'; readonly status: number; readonly description: string; readonly retryAfterSeconds?: number }
	/** A 5xx: the service (or a proxy before it) had a problem and may have acted. */
	| { readonly kind: 'serverError'; readonly status: number }
	/** The service answered, but not with its JSON envelope (a proxy's page, an empty body). */
	| { readonly kind: 'malformed'; readonly status: number };

const failures = new WeakMap<NodeApiError, ServiceFailure>();

/** The message of anything thrown, for log lines and errors of our own. */
export function messageOf(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

/** The typed failure of an error thrown by `apiRequest` or `downloadFile`; undefined for any other error. */
export function failureOf(error: unknown): ServiceFailure | undefined {
	return error instanceof NodeApiError ? failures.get(error) : undefined;
}

/** The status of a refusal (`refused`), else undefined. */
export function refusalStatus(error: unknown): number | undefined {
	const failure = failureOf(error);
	return failure?.kind === 'refused' ? failure.status : undefined;
}

/**
 * A refusal of the service, known by its status and the service's own words. The descriptions are the
 * Telegram-compatible ones the service answers with (the spec shows none).
 */
export interface KnownRefusal {
	readonly status: number;
	readonly matches: RegExp;
}

/**
 * A refusal a user can act on, and what to do about it. The transport appends the advice of its table
 * to the error's message, because n8n's toast shows only the message; the service's own words stay
 * first (and alone in the typed failure). A method's own refusals (`Method.refusals`) are written the
 * same way, their advice in the node's words (made from the request where it names a value).
 */
export interface RefusalAdvice<Advice = string> extends KnownRefusal {
	readonly advice: Advice;
}

/** Whether a failure is the refusal `known` describes. */
export function isRefusal(known: KnownRefusal, failure: ServiceFailure | undefined): failure is Extract<ServiceFailure, { kind: 'refused' }> {
	return failure?.kind === 'refused' && failure.status === known.status && known.matches.test(failure.description);
}

/** The entry of `table` that a failure is, if any. */
export function refusalIn<T extends KnownRefusal>(table: readonly T[] | undefined, failure: ServiceFailure | undefined): T | undefined {
	return table?.find((known) => isRefusal(known, failure));
}

/**
 * A click answered twice, or too late (Telegram's "query is too old and response timeout expired or
 * query ID is invalid"): a click takes one answer, within seconds of the tap.
 */
export const CLICK_ANSWER_REFUSED: KnownRefusal = { status: 400, matches: /query is too old|query ID is invalid/i };

/** Refusals that any call can meet, and what to do about each. */
const REFUSAL_ADVICE: readonly RefusalAdvice[] = [
	{
		status: 400,
		matches: /chat not found/i,
		advice:
			"Check the Chat ID: use the chat_id of an update the bot received (the trigger's chat_id field) or the @username of a public group or channel; the bot must be in that chat",
	},
	{
		status: 403,
		matches: /bot is not a member|bot was kicked|not enough rights|have no rights|administrator rights/i,
		advice: 'Add the bot to the chat (as an administrator where posting needs it, such as a channel), then run the workflow again',
	},
	{
		status: 403,
		matches: /blocked by the user/i,
		advice: 'The user blocked the bot: it can write to them again once they start it again',
	},
	{
		status: 400,
		matches: /message can't be edited/i,
		advice:
			"Only messages the bot sent can be edited: check the Message ID (a trigger's message_id is the user's message; a click's callback_query.message is the bot's)",
	},
	{
		status: 400,
		matches: /message to (edit|delete|pin|unpin|forward|copy) not found|message to be replied not found/i,
		advice: 'Check the Message ID: it must be a message of this chat that still exists',
	},
	{
		...CLICK_ANSWER_REFUSED,
		advice: 'Answer a button click once, within seconds of the tap (Answer Callback Query right after the trigger)',
	},
];

/** The service's description with what to do, when the refusal is one a user can act on. */
export function withAdvice(failure: Extract<ServiceFailure, { kind: 'refused' }>): string {
	const found = refusalIn(REFUSAL_ADVICE, failure);
	return found ? `${failure.description.replace(/[.\s]+$/, '')}. ${found.advice}` : failure.description;
}

/** The failure with the token out of the service's words: callers build their texts from them. */
function redactedFailure(failure: ServiceFailure, token: string): ServiceFailure {
	return failure.kind === 'refused' ? { ...failure, description: redact(failure.description, token) } : failure;
}

/**
 * The error of a failed call, and the one place a failure and its texts are made: every text of the
 * error (message, description, the service's words, the stack) and the typed failure's description
 * are redacted here, so what callers build from them (Get File's "does not know file ID … (the
 * service's words)", a method's advice) cannot carry the token, whatever the service quoted back.
 */
export function apiError(
	ctx: ServiceBotContext,
	token: string,
	failure: ServiceFailure,
	details: {
		method: string;
		message: string;
		/** The service's own words, when they differ from the message. */
		said?: string;
		description: string;
		httpCode: number;
		errorCode?: number;
		itemIndex?: number;
		retryAfter?: number;
	},
): NodeApiError {
	const response: JsonObject = {
		ok: false,
		method: details.method,
		error_code: details.errorCode ?? details.httpCode,
		description: redact(details.said ?? details.message, token),
	};
	if (details.retryAfter !== undefined) response.parameters = { retry_after: details.retryAfter };
	const error = new NodeApiError(ctx.getNode(), response, {
		message: redact(details.message, token),
		description: redact(details.description, token),
		httpCode: String(details.httpCode),
		itemIndex: details.itemIndex,
	});
	// The stack is built from the message above, which is already redacted; keep it that way.
	error.stack = redact(error.stack ?? '', token);
	failures.set(error, redactedFailure(failure, token));
	return error;
}
