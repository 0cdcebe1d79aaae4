/**
 * What the transport's modules share of the nodes and of the service: the contexts that call it, and
 * the service's answer as n8n's HTTP client returns it.
 */
import type { IExecuteFunctions, IHookFunctions, ILoadOptionsFunctions, ITriggerFunctions, IWebhookFunctions } from 'n8n-workflow';

export type ServiceBotContext =
	| IExecuteFunctions
	| IHookFunctions
	| IWebhookFunctions
	| ITriggerFunctions
	| ILoadOptionsFunctions;

/** The service's JSON answer: `{ok, result}`, or `ok:false` with its own words. */
export interface Envelope {
	ok?: unknown;
	result?: unknown;
	error_code?: unknown;
	description?: unknown;
	parameters?: { retry_after?: unknown; migrate_to_chat_id?: unknown };
}

/** An answer as n8n's HTTP client returns it with `returnFullResponse`. */
export interface FullResponse {
	body: unknown;
	statusCode: number;
	headers?: Record<string, unknown>;
}
