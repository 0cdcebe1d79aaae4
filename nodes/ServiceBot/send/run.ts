/**
 * Runs the chosen operation over all input items:
 * 1. Read and check every item first (its requests and its queue): bad input fails before any request
 *    is sent. With Continue On Fail the bad item gets an error item and the others still run.
 * 2. Send under the scheduler: items of one chat one after another in input order, different chats in
 *    parallel, at most "Concurrency" requests at a time, the earliest item first.
 * 3. Output in input order, every item paired with the input item it came from.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { callMethod } from '../../shared/transport';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from '../describe/fields';
import { methodOf } from '../methods';
import type { ItemContext, Method, PreparedItem, PreparedRequest } from '../methods/method';
import { nodeParameter, readBody } from '../read/parameters';
import { errorItem, shapeResult } from '../output/shape';
import type { Outcome } from './scheduler';
import { schedule } from './scheduler';

/** Queue of the calls that change or read the bot itself (profile, commands, webhook, updates). */
const BOT_QUEUE = '\u0000bot';

/**
 * Queue key of a chat: usernames are case-insensitive and a UUID means the same in either case, so
 * the key is lower-cased. A chat addressed by UUID in some items and by @username in others cannot
 * be recognised as one chat without asking the service, so those are two queues.
 */
function queueKeyOf(method: Method, body: IDataObject): string | undefined {
	if (method.queue === 'none') return undefined;
	const chat = body.chat_id;
	if (method.queue === 'chat' && (typeof chat === 'number' || (typeof chat === 'string' && chat !== ''))) {
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
	const text = error instanceof Error ? error.message : String(error);
	return new NodeOperationError(ctx.getNode(), `${text} [item ${itemIndex}]`, { itemIndex });
}

/** A refusal the method explains in its own words; the service's text stays in the description. */
function explained(method: Method, error: NodeApiError | NodeOperationError): NodeApiError | NodeOperationError {
	if (!(error instanceof NodeApiError)) return error;
	const refusal = method.refusals?.find(
		(candidate) => String(candidate.status) === error.httpCode && (!candidate.matches || candidate.matches.test(error.message)),
	);
	if (!refusal) return error;
	error.description = `The service said: ${error.message}. ${error.description ?? ''}`.trim();
	error.message = refusal.message;
	return error;
}

function readConcurrency(ctx: IExecuteFunctions): number {
	const options = nodeParameter(ctx, 'options', 0, {}) as IDataObject;
	const value = Number(options.concurrency ?? DEFAULT_CONCURRENCY);
	if (!Number.isFinite(value) || value < 1) return 1;
	return Math.min(MAX_CONCURRENCY, Math.floor(value));
}

/**
 * Reads and checks one item, without any request: the requests it makes and the queue it waits in.
 * Options that can differ per item are read per item, and only for methods that have them.
 */
export function readItem(ctx: IExecuteFunctions, method: Method, itemIndex: number): PreparedItem {
	const hasItemOptions = (method.options?.length ?? 0) > 0 || method.output.kind === 'list';
	const options = hasItemOptions ? (nodeParameter(ctx, 'options', itemIndex, {}) as IDataObject) : {};
	const item: ItemContext = { ctx, itemIndex, options };
	const splitIntoItems = options.splitIntoItems !== false;
	if (method.read) {
		const request = method.read(item);
		return { queueKey: queueKeyOf(method, request.body), requests: [request], splitIntoItems };
	}
	const body = readBody(item, method, ctx.getNode().typeVersion);
	return {
		queueKey: queueKeyOf(method, body),
		requests: method.requests ? method.requests(body, item) : [{ method: method.name, body }],
		splitIntoItems,
	};
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

export async function runOperation(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const method = methodOf(resource, operation);
	if (!method) {
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" of "${resource}" is not supported`);
	}
	if (method.run) return await method.run.call(this);
	const continueOnFail = this.continueOnFail();
	const errorOutput = this.getNode().onError === 'continueErrorOutput';

	// 1. Read and check every item before anything is sent. Kept per item: its requests and its queue
	// (one string per chat, shared by its items), so that a large input costs little until it is sent.
	const requests: Array<readonly PreparedRequest[] | undefined> = new Array(items.length);
	const queues: Array<string | undefined> = new Array(items.length);
	const listAsOneItem = new Set<number>();
	const queueNames = new Map<string, string>();
	const inputErrors = new Map<number, NodeApiError | NodeOperationError>();
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const prepared = readItem(this, method, itemIndex);
			requests[itemIndex] = prepared.requests;
			if (prepared.queueKey !== undefined) {
				const shared = queueNames.get(prepared.queueKey) ?? prepared.queueKey;
				queueNames.set(shared, shared);
				queues[itemIndex] = shared;
			}
			if (!prepared.splitIntoItems) listAsOneItem.add(itemIndex);
		} catch (error) {
			const nodeError = asNodeError(this, error, itemIndex);
			if (!continueOnFail) throw nodeError;
			inputErrors.set(itemIndex, nodeError);
		}
	}

	// 2. Send, ordered per chat, bounded overall. Outputs are appended as requests succeed, so a
	// split text that fails part-way still has the parts that went out.
	const outputs: Array<IDataObject[] | undefined> = new Array(items.length);
	const outcomes: Array<Outcome | undefined> = await schedule(
		{
			size: items.length,
			keyOf: (itemIndex) => (requests[itemIndex] ? queues[itemIndex] : null),
			run: async (itemIndex) => {
				for (const request of requests[itemIndex] ?? []) {
					const longPoll = method.longPollParam ? request.body[method.longPollParam] : undefined;
					const result = await callMethod(this, request.method, request.body, {
						itemIndex,
						idempotent: method.idempotent === true,
						longPollSeconds: typeof longPoll === 'number' ? longPoll : undefined,
					});
					const shaped = shapeResult(method.output, result, request.body, !listAsOneItem.has(itemIndex));
					(outputs[itemIndex] ??= []).push(...shaped);
				}
			},
		},
		{ concurrency: readConcurrency(this), stopOnError: !continueOnFail },
	);

	if (!continueOnFail) {
		// The first failure in input order; the items that did not go out are named.
		const failedAt = outcomes.findIndex((outcome) => outcome?.status === 'failed');
		if (failedAt >= 0) {
			const error = explained(method, asNodeError(this, (outcomes[failedAt] as { reason: unknown }).reason, failedAt));
			const notSent = outcomes.flatMap((outcome, position) => (position !== failedAt && outcome?.status !== 'done' ? [position] : []));
			// Input errors name their item already; a service error is named here when there are several items.
			const where = error instanceof NodeApiError && items.length > 1 ? ` [item ${failedAt}]` : '';
			const missing = notSent.length > 0 ? `; not sent: item${notSent.length > 1 ? 's' : ''} ${itemList(notSent)}` : '';
			error.message = `${error.message}${where}${missing}`;
			throw error;
		}
	}

	// 3. Output in input order, paired.
	const returnData: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const inputError = inputErrors.get(itemIndex);
		if (inputError) {
			returnData.push(errorItem(inputError, itemIndex, errorOutput));
			continue;
		}
		const sent = outputs[itemIndex] ?? [];
		for (const json of sent) returnData.push({ json, pairedItem: { item: itemIndex } });
		const outcome = outcomes[itemIndex];
		if (outcome?.status === 'failed') {
			const error = explained(method, asNodeError(this, outcome.reason, itemIndex));
			const total = requests[itemIndex]?.length ?? 1;
			returnData.push(errorItem(error, itemIndex, errorOutput, { sent: sent.length, total }));
		}
	}
	return [returnData];
}
