/**
 * The words for a credential the service cannot work with: a token it refuses, a base URL where it
 * is not. One home for the credential's own test (its 401/404 rules) and the triggers' publishing,
 * which name the credential and the field to fix, because n8n shows a publishing error as a bare
 * toast with no link to the credential.
 */
import type { IHookFunctions, ITriggerFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ServiceFailure } from './failure';
import { failureOf } from './failure';
import { publicationRefusal } from './publicationRefusal';
import { CREDENTIAL_TYPE } from './token';
import type { ServiceBotContext } from './types';

/** What the credential test says for a 401. */
export const TOKEN_REFUSED = 'The service rejected the access token (401). Check that the token is complete and still valid.';

/** What the credential test says for a 404 (also a Base URL that already ends in /bot<token>: "method not found"). */
export const NOTHING_AT_BASE_URL = 'Nothing answered at this address (404). Check the base URL (without /bot…) and the token.';

/** A refused connection: the credential field's hint says the same for the test's bare ECONNREFUSED. */
export const NOTHING_LISTENS =
	'Nothing listens at this address (connection refused): is the service running? (npm run dev starts the emulator at http://127.0.0.1:8081)';

/** An unknown host name. */
export const HOST_UNKNOWN = 'The host name of this address is unknown (ENOTFOUND): check its spelling.';

/** The credential field a failure points at, and what to say about it. */
export interface CredentialProblem {
	readonly field: 'Access Token' | 'Base URL';
	readonly advice: string;
	/** The service answered (401, 404): every attempt gets the same answer until the credential is fixed. */
	readonly answered: boolean;
}

/**
 * The credential's problem a failure shows, if it shows one: a 401, a 404 or an answer that is not
 * the service's (no JSON envelope), a connection refused or a host unknown. Anything else (5xx,
 * timeouts, other refusals) may pass and is left to the caller's own error.
 */
export function credentialProblemOf(failure: ServiceFailure | undefined): CredentialProblem | undefined {
	if (!failure) return undefined;
	if (failure.kind === 'refused' && failure.status === 401) return { field: 'Access Token', advice: TOKEN_REFUSED, answered: true };
	if ((failure.kind === 'refused' || failure.kind === 'malformed') && failure.status === 404) return { field: 'Base URL', advice: NOTHING_AT_BASE_URL, answered: true };
	if (failure.kind === 'network' && failure.code === 'ECONNREFUSED') return { field: 'Base URL', advice: NOTHING_LISTENS, answered: false };
	if (failure.kind === 'network' && (failure.code === 'ENOTFOUND' || failure.code === 'EAI_AGAIN')) return { field: 'Base URL', advice: HOST_UNKNOWN, answered: false };
	return undefined;
}

/** How n8n names the node's credential in its list ("Service Bot account"), or its type's name. */
function credentialName(ctx: ServiceBotContext): string {
	const name = ctx.getNode().credentials?.[CREDENTIAL_TYPE]?.name;
	return name ? `"${name}"` : '';
}

/** The message and description of a credential problem: the credential by name, the field, the credential test's words. */
function credentialWords(ctx: ServiceBotContext, problem: Pick<CredentialProblem, 'field' | 'advice'>): { message: string; description: string } {
	const name = credentialName(ctx);
	return {
		message: `Service Bot API credential ${name ? `${name} ` : ''}(${problem.field}): ${problem.advice}`,
		description: `Open the credential ${name || 'of this node'}, fix its ${problem.field} and test it, then publish again.`,
	};
}

/** The error of a credential problem: the credential by name, the field, the credential test's words. */
export function credentialError(ctx: ServiceBotContext, problem: Pick<CredentialProblem, 'field' | 'advice'>): NodeOperationError {
	const { message, description } = credentialWords(ctx, problem);
	return new NodeOperationError(ctx.getNode(), message, { description });
}

/**
 * `error` as a credential problem when it is one, else as it is. For the first call of a publication,
 * where such a failure can only be the credential's. One the service answered (401, 404) gets the same
 * answer until the credential is fixed: it refuses the publication (publicationRefusal.ts: at once while
 * a person publishes). One where nothing answered (a refused connection, an unknown host) is left to
 * n8n's retries: the service may be starting.
 */
export function asCredentialError(ctx: IHookFunctions | ITriggerFunctions, error: unknown): unknown {
	const problem = credentialProblemOf(failureOf(error));
	if (!problem) return error;
	if (!problem.answered) return credentialError(ctx, problem);
	const { message, description } = credentialWords(ctx, problem);
	return publicationRefusal(ctx, message, description);
}
