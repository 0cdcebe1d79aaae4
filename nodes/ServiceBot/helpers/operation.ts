/**
 * What an operation is, and the factory that makes one from a catalogue method.
 *
 * The router runs an operation in two phases: `prepare` for every item first (read and check the
 * parameters, build the request bodies; no I/O, so bad input fails before anything is sent), then
 * `execute` per item under the bulk scheduler (send, shape the output).
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { MethodSpec, Resource } from '../../shared/catalogue';
import { getMethod, methodsOf } from '../../shared/catalogue';
import { callMethod } from '../../shared/transport';
import { methodProperties, readBody } from './fields';
import { isListResult, shapeResult } from './output';

export interface PreparedRequest {
	readonly method: string;
	readonly body: IDataObject;
}

export interface PreparedItem {
	/** Items with the same key run one after another in input order (the chat, or the bot's settings). */
	readonly queueKey?: string;
	/** The calls of this item, in order: several when a long text is split. */
	readonly requests: readonly PreparedRequest[];
}

export interface Operation {
	readonly description: INodeProperties[];
	prepare(this: IExecuteFunctions, itemIndex: number): Promise<PreparedItem>;
	/** Sends the item's requests; appends its output items (json) to `output` as they come. */
	execute(this: IExecuteFunctions, itemIndex: number, prepared: PreparedItem, output: IDataObject[]): Promise<void>;
}

export const OPTIONS = 'options';

export const DEFAULT_CONCURRENCY = 8;
export const MAX_CONCURRENCY = 100;

/** Queue of the calls that change or read the bot itself (profile, commands, webhook, updates). */
export const BOT_QUEUE = '\u0000bot';

/**
 * Queue key of a chat: usernames are case-insensitive and a UUID means the same in either case, so
 * the key is lower-cased. A chat addressed by UUID in some items and by @username in others cannot
 * be recognised as one chat without asking the service, so those are two queues.
 */
export function chatQueueKey(chatId: unknown): string | undefined {
	if (typeof chatId === 'number') return `chat:${chatId}`;
	return typeof chatId === 'string' && chatId !== '' ? `chat:${chatId.toLowerCase()}` : undefined;
}

export const concurrencyOption: INodeProperties = {
	displayName: 'Concurrency',
	name: 'concurrency',
	type: 'number',
	default: DEFAULT_CONCURRENCY,
	typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY, numberPrecision: 0 },
	description:
		'How many requests may run at the same time. Items for the same chat are always sent one after another, in input order; 1 sends every item sequentially.',
};

export const splitIntoItemsOption: INodeProperties = {
	displayName: 'Split Into Items',
	name: 'splitIntoItems',
	type: 'boolean',
	default: true,
	description: 'Whether to output one item per entry of the list; when off, one item holds the whole list',
};

export function methodOf(name: string): MethodSpec {
	const method = getMethod(name);
	if (!method) throw new Error(`Service Bot: no method ${name} in the catalogue`);
	return method;
}

/** Whether a method's items may run in parallel (and so whether the Concurrency option applies). */
export function isParallel(method: MethodSpec): boolean {
	return method.params.some((spec) => spec.name === 'chat_id') || method.name === 'answerCallbackQuery';
}

export function queueKeyOf(method: MethodSpec, body: IDataObject): string | undefined {
	if (method.params.some((spec) => spec.name === 'chat_id')) return chatQueueKey(body.chat_id);
	// A callback answer acts on nothing another item could race with.
	if (method.name === 'answerCallbackQuery') return undefined;
	return BOT_QUEUE;
}

/** The node's "Options" of a method: behaviour of the node, not parameters of the request. */
export function optionsCollection(method: MethodSpec, extra: INodeProperties[] = []): INodeProperties[] {
	const options: INodeProperties[] = [...extra];
	if (isParallel(method)) options.push(concurrencyOption);
	if (isListResult(method)) options.push(splitIntoItemsOption);
	if (options.length === 0) return [];
	return [
		{
			displayName: 'Options',
			name: OPTIONS,
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			options: options.sort((a, b) => a.displayName.localeCompare(b.displayName)),
		},
	];
}

export function readOptions(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
	return ctx.getNodeParameter(OPTIONS, itemIndex, {}, { skipValidation: true }) as IDataObject;
}

/**
 * Sends the prepared requests of one item in order and appends the shaped results to `output` as
 * they come, so that when a later request fails (a split text) the router still has the earlier ones.
 */
export async function sendPrepared(
	ctx: IExecuteFunctions,
	method: MethodSpec,
	itemIndex: number,
	prepared: PreparedItem,
	output: IDataObject[],
	splitIntoItems = true,
): Promise<void> {
	for (const request of prepared.requests) {
		const result = await callMethod(ctx, request.method, request.body, {
			itemIndex,
			idempotent: method.readOnly,
			longPollSeconds: method.name === 'getUpdates' && typeof request.body.timeout === 'number' ? request.body.timeout : undefined,
		});
		output.push(...shapeResult(method, result, request.body, splitIntoItems));
	}
}

export interface OperationOverrides {
	/** Extra entries of the "Options" collection. */
	options?: INodeProperties[];
}

/** The fields of an operation, shown only for its resource and operation. */
export function operationDescription(method: MethodSpec, properties: INodeProperties[]): INodeProperties[] {
	return updateDisplayOptions({ show: { resource: [method.resource], operation: [method.name] } }, properties);
}

/**
 * An operation made from a catalogue method: fields from its parameters, checks from their kinds,
 * one request, output by its result shape.
 */
export function catalogueOperation(name: string, overrides: OperationOverrides = {}): Operation {
	const method = methodOf(name);
	const properties = [...methodProperties(method), ...optionsCollection(method, overrides.options)];
	return {
		description: operationDescription(method, properties),
		async prepare(this: IExecuteFunctions, itemIndex: number): Promise<PreparedItem> {
			const body = readBody(this, method, itemIndex);
			return { queueKey: queueKeyOf(method, body), requests: [{ method: method.name, body }] };
		},
		async execute(
			this: IExecuteFunctions,
			itemIndex: number,
			prepared: PreparedItem,
			output: IDataObject[],
		): Promise<void> {
			const splitIntoItems = isListResult(method) ? readOptions(this, itemIndex).splitIntoItems !== false : true;
			await sendPrepared(this, method, itemIndex, prepared, output, splitIntoItems);
		},
	};
}

/** Default operation of each resource: the one a new node shows first. */
const DEFAULT_OPERATION: Record<Resource, string> = {
	message: 'sendMessage',
	chat: 'getChat',
	callback: 'answerCallbackQuery',
	bot: 'getMyName',
	webhook: 'getWebhookInfo',
	update: 'getUpdates',
};

/** The "Operation" field of a resource: its methods, values = method names, with their action sentences. */
export function operationSelector(resource: Resource): INodeProperties {
	const defaultOperation = DEFAULT_OPERATION[resource];
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		options: methodsOf(resource)
			.map((method) => ({
				name: method.displayName,
				value: method.name,
				action: method.action,
				description: method.description,
			}))
			.sort((a, b) => a.name.localeCompare(b.name)),
		default: defaultOperation,
	};
}
