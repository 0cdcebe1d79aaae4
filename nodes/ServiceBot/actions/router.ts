/**
 * Runs the chosen operation over all input items.
 *
 * 1. Prepare every item first (read and check its parameters): bad input fails before any request
 *    is sent. With Continue On Fail the bad item gets an error output and the others still run.
 * 2. Send under the bulk scheduler: items of one chat one after another in input order, different
 *    chats in parallel, at most "Concurrency" requests at a time.
 * 3. Output in input order, every item paired with the input item it came from.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { BulkTask, Settled } from '../helpers/bulk';
import { runOrdered } from '../helpers/bulk';
import type { Operation, PreparedItem } from '../helpers/operation';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY, readOptions } from '../helpers/operation';
import { itemLabel } from '../helpers/validation';
import * as bot from './bot';
import * as callback from './callback';
import * as chat from './chat';
import * as message from './message';
import * as other from './other';
import * as update from './update';
import * as webhook from './webhook';

const RESOURCES: Record<string, Record<string, Operation>> = {
	message: message.operations,
	chat: chat.operations,
	callback: callback.operations,
	bot: bot.operations,
	webhook: webhook.operations,
	update: update.operations,
	other: other.operations,
};

/** Every error leaves the node as a NodeApiError or NodeOperationError that knows its item. */
function asNodeError(ctx: IExecuteFunctions, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	const text = error instanceof Error ? error.message : String(error);
	return new NodeOperationError(ctx.getNode(), `${itemLabel(itemIndex)}: ${text}`, { itemIndex });
}

function errorItem(
	error: NodeApiError | NodeOperationError,
	itemIndex: number,
	parts?: { sent: number; total: number },
): INodeExecutionData {
	const json: IDataObject = { error: error.message };
	if (error.description) json.description = error.description;
	if (parts && parts.total > 1) {
		// A split text failed part-way: the parts before were sent (and are output before this item).
		json.sentParts = parts.sent;
		json.totalParts = parts.total;
	}
	return { json, pairedItem: { item: itemIndex } };
}

function readConcurrency(ctx: IExecuteFunctions): number {
	const value = Number(readOptions(ctx, 0).concurrency ?? DEFAULT_CONCURRENCY);
	if (!Number.isFinite(value) || value < 1) return 1;
	return Math.min(MAX_CONCURRENCY, Math.floor(value));
}

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operationName = this.getNodeParameter('operation', 0) as string;
	const operation = RESOURCES[resource]?.[operationName];
	if (!operation) {
		throw new NodeOperationError(this.getNode(), `The operation "${operationName}" of "${resource}" is not supported`);
	}
	const continueOnFail = this.continueOnFail();

	// 1. Prepare (and check) every item before anything is sent.
	const prepared: Array<PreparedItem | undefined> = new Array(items.length);
	const inputErrors: Array<NodeApiError | NodeOperationError | undefined> = new Array(items.length);
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			prepared[itemIndex] = await operation.prepare.call(this, itemIndex);
		} catch (error) {
			const nodeError = asNodeError(this, error, itemIndex);
			if (!continueOnFail) throw nodeError;
			inputErrors[itemIndex] = nodeError;
		}
	}

	// 2. Send, ordered per chat, bounded overall.
	const outputs: IDataObject[][] = prepared.map(() => []);
	const tasks = prepared.map((item, itemIndex): BulkTask<void> | undefined =>
		item
			? {
					key: item.queueKey,
					run: async () => await operation.execute.call(this, itemIndex, item, outputs[itemIndex]),
				}
			: undefined,
	);
	const settled: Array<Settled<void> | undefined> = await runOrdered(tasks, {
		concurrency: readConcurrency(this),
		stopOnError: !continueOnFail,
	});

	if (!continueOnFail) {
		// The first failure in input order; items after it that had not started were not sent.
		const failedAt = settled.findIndex((result) => result?.status === 'rejected');
		if (failedAt >= 0) {
			const failure = settled[failedAt] as { status: 'rejected'; reason: unknown };
			throw asNodeError(this, failure.reason, failedAt);
		}
	}

	// 3. Output in input order, paired.
	const returnData: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const inputError = inputErrors[itemIndex];
		if (inputError) {
			returnData.push(errorItem(inputError, itemIndex));
			continue;
		}
		const result = settled[itemIndex];
		for (const json of outputs[itemIndex]) returnData.push({ json, pairedItem: { item: itemIndex } });
		if (result?.status === 'rejected') {
			const total = prepared[itemIndex]?.requests.length ?? 1;
			returnData.push(
				errorItem(asNodeError(this, result.reason, itemIndex), itemIndex, { sent: outputs[itemIndex].length, total }),
			);
		}
	}
	return [returnData];
}
