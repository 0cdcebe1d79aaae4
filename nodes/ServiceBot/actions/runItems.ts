/**
 * Runs an operation whose items each make requests (every method of the table, and Call Method)
 * over all input items:
 * 1. Read and check every item first (its requests and its queue): bad input fails before any request
 *    is sent. With Continue On Fail the bad item gets an error item and the others still run.
 * 2. Send under the scheduler: items of one chat one after another in input order, different chats in
 *    parallel, at most "Concurrency" requests at a time, the earliest item first.
 * 3. Output in input order, every item paired with the input item it came from.
 * The node's "Options" that steer this (Concurrency, Split Into Items) are described here too.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { postedToChat } from '../../shared/chatPosts';
import { apiRequest } from '../../shared/transport/client';
import { failureOf, isRefusal, messageOf, refusalIn } from '../../shared/transport/failure';
import { tokenOf } from '../../shared/transport/token';
import { prepareBody, readBody } from '../parameters/body';
import type { ItemContext } from '../parameters/param';
import { HANDY_NAMES_SINCE, nodeParameter } from '../parameters/param';
import type { Method, PreparedRequest } from '../resources/method';
import { releasePlaceholder, takePlaceholder } from '../resources/placeholder';
import type { FileDelivery } from './fileOutput';
import { FILE_OPTIONS, downloadedFile, readFileDelivery } from './fileOutput';
import { errorItem, shapeResult } from './output';
import type { Outcome } from './scheduler';
import { schedule } from './scheduler';

export const DEFAULT_CONCURRENCY = 8;
export const MAX_CONCURRENCY = 100;

/** What running an operation's items needs to know of it. */
export interface ItemOperation extends Pick<Method, 'queue' | 'output' | 'idempotent' | 'longPollParam' | 'refusals' | 'moot' | 'runNotice' | 'postsToChat'> {
	/** Whether items have their own "Options" to read (the method's own, or Split Into Items). */
	readonly hasItemOptions: boolean;
	/** The requests of one item, read and checked; throws the input error before anything is sent. */
	readonly requests: (item: ItemContext) => PreparedRequest[];
}

/** An item read and checked: the requests it makes, in order, and the queue it waits in. */
export interface PreparedItem {
	readonly queueKey?: string;
	readonly requests: readonly PreparedRequest[];
	/** For list results: one output item per entry (option Split Into Items, on by default). */
	readonly splitIntoItems: boolean;
	/** For file results: where the file goes; undefined when it is not downloaded (fileOutput.ts). */
	readonly file?: FileDelivery;
}

/** A method of the table as an operation: its parameters read into one body, then its requests. */
export function methodOperation(method: Method, version: number): ItemOperation {
	return {
		...method,
		hasItemOptions: (method.options?.length ?? 0) > 0 || method.output.kind === 'list' || method.output.kind === 'file',
		requests(item) {
			// Prepared before a long text is split, so the parts are cut in the text as it is sent.
			const { body, fallbacks } = prepareBody(readBody(item, method.params, version), method.params, version);
			const requests = method.requests ? method.requests(body, item) : [{ method: method.name, body }];
			return fallbacks.length === 0 ? requests : requests.map((request) => ({ ...request, fallbacks }));
		},
	};
}

const concurrencyOption: INodeProperties = {
	displayName: 'Concurrency',
	name: 'concurrency',
	type: 'number',
	default: DEFAULT_CONCURRENCY,
	typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY, numberPrecision: 0 },
	description:
		'How many requests may run at the same time. Items for the same chat are always sent one after another, in input order; 1 sends every item sequentially.',
};

const splitIntoItemsOption: INodeProperties = {
	displayName: 'Split Into Items',
	name: 'splitIntoItems',
	type: 'boolean',
	default: true,
	description: 'Whether to output one item per entry of the list; when off, one item holds the whole list',
};

/** The node's "Options" of an operation: behaviour of the node, not parameters of the request. */
export function optionsCollection(operation: Pick<Method, 'queue' | 'output' | 'options'>): INodeProperties[] {
	const options: INodeProperties[] = [...(operation.options ?? [])];
	if (operation.queue !== 'bot') options.push(concurrencyOption);
	if (operation.output.kind === 'list') options.push(splitIntoItemsOption);
	if (operation.output.kind === 'file') options.push(...FILE_OPTIONS);
	if (options.length === 0) return [];
	return [
		{
			displayName: 'Options',
			name: 'options',
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			options: options.sort((a, b) => a.displayName.localeCompare(b.displayName)),
		},
	];
}

/** Queue of the calls that change or read the bot itself (profile, commands, webhook, updates). */
const BOT_QUEUE = '\u0000bot';

/**
 * Queue key of a chat: usernames are case-insensitive and a UUID means the same in either case, so
 * the key is lower-cased. A chat addressed by UUID in some items and by @username in others cannot
 * be recognised as one chat without asking the service, so those are two queues.
 */
function queueKeyOf(operation: ItemOperation, body: IDataObject): string | undefined {
	if (operation.queue === 'none') return undefined;
	const chat = body.chat_id;
	if (operation.queue === 'chat' && (typeof chat === 'number' || (typeof chat === 'string' && chat !== ''))) {
		return `chat:${String(chat).toLowerCase()}`;
	}
	return BOT_QUEUE;
}

/** Every error leaves the node as a NodeApiError or NodeOperationError that knows its item. */
function asNodeError(ctx: IExecuteFunctions, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	const text = messageOf(error);
	return new NodeOperationError(ctx.getNode(), `${text} [item ${itemIndex}]`, { itemIndex });
}

/** A refusal the method explains in its own words (of the request's `body`); the service's text stays in the description. */
function explained(operation: ItemOperation, error: NodeApiError | NodeOperationError, body: IDataObject): NodeApiError | NodeOperationError {
	const failure = failureOf(error);
	const refusal = refusalIn(operation.refusals, failure);
	if (!(error instanceof NodeApiError) || failure?.kind !== 'refused' || !refusal) return error;
	const message = typeof refusal.advice === 'string' ? refusal.advice : refusal.advice({ body, said: failure.description });
	error.description = `The service said: ${error.message}. ${error.description ?? ''}`.trim();
	error.message = message;
	return error;
}

/**
 * A refusal that leaves nothing to do (`Method.moot`): the notice for it, and whether this node
 * version reports it on the item (else it fails, with the notice as its message where that names the
 * cause). Undefined for any other error.
 */
async function mootOutcome(ctx: IExecuteFunctions, operation: ItemOperation, error: unknown, body: IDataObject): Promise<{ notice: string; report: boolean } | undefined> {
	const { moot } = operation;
	const failure = failureOf(error);
	if (!moot || !isRefusal(moot, failure)) return undefined;
	const notice = moot.notice({ token: await tokenOf(ctx), body });
	const report = ctx.getNode().typeVersion >= moot.since;
	if (!report && notice.explains && error instanceof NodeApiError) {
		error.description = `The service said: ${failure.description}. ${error.description ?? ''}`.trim();
		error.message = notice.text;
	}
	return { notice: notice.text, report };
}

function readConcurrency(ctx: IExecuteFunctions): number {
	const options = nodeParameter(ctx, 'options', 0, {}) as IDataObject;
	const value = Number(options.concurrency ?? DEFAULT_CONCURRENCY);
	if (!Number.isFinite(value) || value < 1) return 1;
	return Math.min(MAX_CONCURRENCY, Math.floor(value));
}

/**
 * Reads and checks one item, without any request: the requests it makes and the queue it waits in.
 * Options that can differ per item are read per item, and only for operations that have them.
 */
export function readItem(ctx: IExecuteFunctions, operation: ItemOperation, itemIndex: number): PreparedItem {
	const options = operation.hasItemOptions ? (nodeParameter(ctx, 'options', itemIndex, {}) as IDataObject) : {};
	const requests = operation.requests({ ctx, itemIndex, options });
	const file = operation.output.kind === 'file' ? readFileDelivery(options, { node: ctx.getNode(), itemIndex }) : undefined;
	// A split text's parts go to one chat: the first request's chat is the item's queue.
	return { queueKey: queueKeyOf(operation, requests[0]?.body ?? {}), requests, splitIntoItems: options.splitIntoItems !== false, file };
}

/** "1", "1 and 3", "1, 3–5": item positions as n8n counts them. */
function itemList(positions: number[]): string {
	const ranges: string[] = [];
	for (let start = 0; start < positions.length; ) {
		let end = start;
		while (end + 1 < positions.length && positions[end + 1] === positions[end] + 1) end++;
		ranges.push(end - start >= 2 ? `${positions[start]}–${positions[end]}` : positions.slice(start, end + 1).join(', '));
		start = end + 1;
	}
	return ranges.join(', ');
}

/**
 * The bot posts to a chat: a trigger of this process showing "typing…" there stops renewing it. Told
 * as the request begins (the chat as given) and once the service took it (the chat as the service
 * names it in the sent message: a `chat_id` may be a username).
 */
async function tellPosted(ctx: IExecuteFunctions, result: unknown, body: IDataObject): Promise<void> {
	const sentTo = typeof result === 'object' && result !== null ? (result as { chat?: { id?: unknown } }).chat?.id : undefined;
	const chatId = sentTo ?? body.chat_id;
	if (typeof chatId === 'string' || typeof chatId === 'number') postedToChat(await tokenOf(ctx), String(chatId));
}

/** Reads, sends and outputs every input item of `operation`. */
export async function runItems(this: IExecuteFunctions, operation: ItemOperation): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const continueOnFail = this.continueOnFail();
	const errorOutput = this.getNode().onError === 'continueErrorOutput';
	const handyNames = this.getNode().typeVersion >= HANDY_NAMES_SINCE;

	// 1. Read and check every item before anything is sent. Kept per item: its requests and its queue
	// (one string per chat, shared by its items), so that a large input costs little until it is sent.
	const requests: Array<readonly PreparedRequest[] | undefined> = new Array(items.length);
	const queues: Array<string | undefined> = new Array(items.length);
	const listAsOneItem = new Set<number>();
	const files = new Map<number, FileDelivery>();
	const queueNames = new Map<string, string>();
	const inputErrors = new Map<number, NodeApiError | NodeOperationError>();
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const prepared = readItem(this, operation, itemIndex);
			requests[itemIndex] = prepared.requests;
			if (prepared.queueKey !== undefined) {
				const shared = queueNames.get(prepared.queueKey) ?? prepared.queueKey;
				queueNames.set(shared, shared);
				queues[itemIndex] = shared;
			}
			if (!prepared.splitIntoItems) listAsOneItem.add(itemIndex);
			if (prepared.file) files.set(itemIndex, prepared.file);
		} catch (error) {
			const nodeError = asNodeError(this, error, itemIndex);
			if (!continueOnFail) throw nodeError;
			inputErrors.set(itemIndex, nodeError);
		}
	}

	// 2. Send, ordered per chat, bounded overall. Outputs are appended as requests succeed, so a
	// split text that fails part-way still has the parts that went out.
	const outputs: Array<INodeExecutionData[] | undefined> = new Array(items.length);
	const notices = new Set<string>();
	const outcomes: Array<Outcome | undefined> = await schedule(
		{
			size: items.length,
			keyOf: (itemIndex) => (requests[itemIndex] ? queues[itemIndex] : null),
			run: async (itemIndex) => {
				for (const planned of requests[itemIndex] ?? []) {
					// The edit of the trigger's placeholder, once taken for this item (else the send it stands for).
					const request = takePlaceholder(this, itemIndex, planned);
					const longPoll = operation.longPollParam ? request.body[operation.longPollParam] : undefined;
					const send = async (body: IDataObject, method = request.method): Promise<unknown> => {
						// Told before too: a renewal of "typing…" sent meanwhile would show it again after the post.
						if (operation.postsToChat) await tellPosted(this, undefined, body);
						return await apiRequest(this, method, body, {
							itemIndex,
							idempotent: operation.idempotent === true,
							longPollSeconds: typeof longPoll === 'number' ? longPoll : undefined,
						});
					};
					// A refusal of what a parameter kind prepared sent nothing: the request goes out as the
					// kind's fallback rather than not at all (kind.ts).
					const { result, fellBackTo, notice } = await send(request.body).then(
						(answer) => ({ result: answer, fellBackTo: undefined, notice: undefined }),
						async (error: unknown) => {
							const moot = await mootOutcome(this, operation, error, request.body);
							if (moot?.report) return { result: operation.moot?.result, fellBackTo: undefined, notice: moot.notice };
							const fallback = request.fallbacks?.find((candidate) => candidate.answers(error));
							const replaced = request.replacesPlaceholder;
							if (!fallback && replaced) {
								// The placeholder could not be edited (deleted meanwhile: a run that waited): the answer is sent as a new message.
								releasePlaceholder(this, itemIndex);
								if (failureOf(error)?.kind !== 'refused') return await Promise.reject(error);
								return { result: await send(replaced.send.body, replaced.send.method), fellBackTo: undefined, notice: undefined };
							}
							if (!fallback) return await Promise.reject(error);
							this.logger.warn(`Service Bot "${this.getNode().name}": ${fallback.warning(error, itemIndex)}`);
							return { result: await send(fallback.body(request.body)), fellBackTo: fallback, notice: undefined };
						},
					);
					if (operation.postsToChat) await tellPosted(this, result, request.body);
					const shaped = shapeResult(operation.output, result, request.body, !listAsOneItem.has(itemIndex), items[itemIndex].json, handyNames);
					if (fellBackTo) for (const json of shaped) json[fellBackTo.flag] = true;
					if (notice !== undefined) {
						for (const json of shaped) json.notice = notice;
						notices.add(notice);
					}
					const file = files.get(itemIndex);
					const binary = file ? await downloadedFile(this, result, request.body, file, itemIndex) : undefined;
					(outputs[itemIndex] ??= []).push(...shaped.map((json) => (binary ? { json, binary } : { json })));
				}
			},
		},
		{ concurrency: readConcurrency(this), stopOnError: !continueOnFail },
	);

	if (!continueOnFail) {
		// The first failure in input order; the items that did not go out are named.
		const failedAt = outcomes.findIndex((outcome) => outcome?.status === 'failed');
		if (failedAt >= 0) {
			const error = explained(operation, asNodeError(this, (outcomes[failedAt] as { reason: unknown }).reason, failedAt), requests[failedAt]?.[0]?.body ?? {});
			const notSent = outcomes.flatMap((outcome, position) => (position !== failedAt && outcome?.status !== 'done' ? [position] : []));
			// Input errors name their item already; a service error is named here when there are several items.
			const where = error instanceof NodeApiError && items.length > 1 ? ` [item ${failedAt}]` : '';
			const missing = notSent.length > 0 ? `; not sent: item${notSent.length > 1 ? 's' : ''} ${itemList(notSent)}` : '';
			error.message = `${error.message}${where}${missing}`;
			throw error;
		}
	}

	// What the items report instead of failing shows on the node's output in the editor (n8n 1.x too),
	// and what the run should know about the bot.
	const runNotice = operation.runNotice?.({ token: await tokenOf(this), workflowId: String(this.getWorkflow().id ?? '') });
	if (runNotice !== undefined) notices.add(runNotice);
	for (const notice of notices) this.addExecutionHints({ message: notice, type: 'warning', location: 'outputPane' });

	// 3. Output in input order, paired.
	const returnData: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const inputError = inputErrors.get(itemIndex);
		if (inputError) {
			returnData.push(errorItem(inputError, itemIndex, errorOutput));
			continue;
		}
		const sent = outputs[itemIndex] ?? [];
		for (const output of sent) returnData.push({ ...output, pairedItem: { item: itemIndex } });
		const outcome = outcomes[itemIndex];
		if (outcome?.status === 'failed') {
			const error = explained(operation, asNodeError(this, outcome.reason, itemIndex), requests[itemIndex]?.[0]?.body ?? {});
			const total = requests[itemIndex]?.length ?? 1;
			returnData.push(errorItem(error, itemIndex, errorOutput, { sent: sent.length, total }));
		}
	}
	return [returnData];
}
