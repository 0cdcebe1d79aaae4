/**
 * The error of each way a call to the service fails: cancelled, unanswered, refused (and a refusal
 * read from the response). Each is made by `apiError` (failure.ts), the one place where an error's
 * texts and its typed failure are redacted.
 */
import type { NodeApiError } from 'n8n-workflow';

import type { ServiceFailure } from './failure';
import { apiError, withAdvice } from './failure';
import { redact } from './token';
import type { Envelope, FullResponse, ServiceBotContext } from './types';

/** What a failed request was, for its error. */
export interface FailedRequest {
	/** The method named in the error's response (`file` for a download). */
	readonly method: string;
	/** What the request does, in messages: the method's name, or "the download of file …". */
	readonly subject: string;
	readonly itemIndex?: number;
}

/** The call was aborted (its signal) before the service answered, or while it waited to retry. */
export function cancelledError(ctx: ServiceBotContext, token: string, request: FailedRequest): NodeApiError {
	return apiError(ctx, token, { kind: 'cancelled' }, {
		method: request.method,
		httpCode: 499,
		message: `${request.subject} was cancelled`,
		description: 'The request was aborted before the service answered.',
		itemIndex: request.itemIndex,
	});
}

/** A network error's message with its cause's (Node puts the useful part, ECONNREFUSED …, there). */
function messageWithCause(error: unknown): string {
	if (error instanceof Error) {
		const cause = (error as { cause?: unknown }).cause;
		const causeMessage = cause instanceof Error ? cause.message : '';
		return causeMessage && causeMessage !== error.message ? `${error.message}: ${causeMessage}` : error.message;
	}
	return String(error);
}

/** No answer came (`broken`, the error of the connection or of a body cut off) after `attempts`. */
export function unansweredError(
	ctx: ServiceBotContext,
	token: string,
	request: FailedRequest & { readonly readOnly: boolean },
	broken: unknown,
	connection: { readonly code?: string; readonly nothingSent: boolean },
	attempts: number,
): NodeApiError {
	const { code, nothingSent } = connection;
	const timedOut = code === 'ETIMEDOUT' || code === 'ECONNABORTED';
	const failure: ServiceFailure = timedOut ? { kind: 'timeout' } : { kind: 'network', code, nothingSent };
	// The httpCode only labels the error in n8n's panel (no HTTP status came); callers use `failure`.
	return apiError(ctx, token, failure, {
		method: request.method,
		httpCode: timedOut ? 504 : 503,
		message: timedOut
			? `The service did not answer ${request.subject} in time`
			: `Could not reach the service for ${request.subject}: ${messageWithCause(broken)}`,
		description: nothingSent
			? 'Check the base URL in the Service Bot API credential and that the service is reachable.'
			: request.readOnly
				? `Gave up after ${attempts} attempts.`
				: 'The request may have reached the service, so it was not repeated: check before sending again.',
		itemIndex: request.itemIndex,
	});
}

function describeUnknown(value: unknown, token: string): string {
	let text: string;
	if (typeof value === 'string') text = value;
	else {
		try {
			text = JSON.stringify(value) ?? String(value);
		} catch {
			text = String(value);
		}
	}
	// Redacted before it is cut: a token cut in half would no longer be recognised.
	text = redact(text, token).replace(/\s+/g, ' ').trim();
	return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function hintFor(statusCode: number, method: string): string {
	if (statusCode === 401) return 'The access token was not accepted. Check the token in the Service Bot API credential.';
	if (statusCode === 404)
		return `Nothing answered ${method} at this address. Check the base URL and the token in the credential.`;
	if (statusCode === 403) return 'The bot may not do this here, for example because it is not a member of the chat.';
	if (statusCode === 409) return 'This conflicts with the bot\'s current state, for example polling while a webhook is set.';
	if (statusCode === 429) return 'The service is rate-limiting the bot. Lower the concurrency or try again later.';
	if (statusCode >= 500) return 'The service had a problem. It may have acted anyway, so check before sending again.';
	return `The service refused ${method} (HTTP ${statusCode}).`;
}

/** A refusal or an unreadable answer, in the service's own words or a plain explanation. */
export interface RefusedAnswer {
	readonly message: string;
	readonly description: string;
	readonly errorCode?: number;
	readonly retryAfter?: number;
	/** Whether the service answered with its JSON envelope. */
	readonly envelope: boolean;
	/** The status the refusal stands for: the HTTP status, or a 2xx answer's error_code (else 502). */
	readonly status: number;
}

/** Turns a non-2xx or unparseable response into the service's own words, or a plain explanation. */
export function refusalOf(subject: string, response: FullResponse, token: string): RefusedAnswer {
	const { body, statusCode } = response;
	const success = statusCode >= 200 && statusCode < 300;
	if (body && typeof body === 'object' && !Array.isArray(body)) {
		const envelope = body as Envelope;
		const description = typeof envelope.description === 'string' ? envelope.description : '';
		const errorCode = typeof envelope.error_code === 'number' ? envelope.error_code : undefined;
		const retryAfter =
			typeof envelope.parameters?.retry_after === 'number' ? envelope.parameters.retry_after : undefined;
		return {
			message: description || `The service refused ${subject} (HTTP ${statusCode})`,
			description: hintFor(statusCode, subject),
			errorCode,
			retryAfter,
			envelope: true,
			status: success ? (errorCode ?? 502) : statusCode,
		};
	}
	const excerpt = describeUnknown(body, token);
	// A success status with an unreadable body: the service most likely did what was asked.
	const hint = success
		? 'The service answered with a success status, so it has probably acted: check before sending again.'
		: hintFor(statusCode, subject);
	return {
		message: `The service sent an answer to ${subject} that is not the expected JSON (HTTP ${statusCode})`,
		description: `${hint} Start of the answer: ${excerpt || '(empty)'}`.trim(),
		envelope: false,
		status: success ? 502 : statusCode,
	};
}

/** The error of a refusal the exchange does not wait out or repeat. */
export function refusedError(ctx: ServiceBotContext, token: string, request: FailedRequest, response: FullResponse, refusal: RefusedAnswer): NodeApiError {
	const { status } = refusal;
	const failure: ServiceFailure =
		response.statusCode >= 500
			? { kind: 'serverError', status }
			: refusal.envelope
				? { kind: 'refused', status, description: refusal.message, retryAfterSeconds: refusal.retryAfter }
				: { kind: 'malformed', status: response.statusCode };
	return apiError(ctx, token, failure, {
		method: request.method,
		httpCode: status,
		errorCode: refusal.errorCode,
		said: refusal.message,
		// What to do, where the user can act: n8n's toast shows only the message.
		message: failure.kind === 'refused' ? withAdvice(failure) : refusal.message,
		description: refusal.description,
		itemIndex: request.itemIndex,
		retryAfter: refusal.retryAfter,
	});
}
