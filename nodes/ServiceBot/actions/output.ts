/**
 * The node's output items: a method's `result` shaped by its definition's output, and the item of an
 * input item that failed.
 */
import type { IDataObject, INodeExecutionData, NodeApiError, NodeOperationError } from 'n8n-workflow';

import { isObject } from '../../shared/json';
import type { Output } from '../resources/method';

function asItem(value: unknown): IDataObject {
	return isObject(value) ? value : { result: value as IDataObject[keyof IDataObject] };
}

/** The clicked message's chat and id, when `input` is the update of the click `callbackQueryId`. */
function clickedMessage(input: IDataObject, callbackQueryId: unknown): IDataObject {
	const click = isObject(input.callback_query) ? input.callback_query : undefined;
	const message = click && isObject(click.message) ? click.message : undefined;
	const chat = message && isObject(message.chat) ? message.chat : undefined;
	if (!click || String(click.id) !== String(callbackQueryId) || !message || !chat) return {};
	return { chat_id: chat.id as IDataObject[keyof IDataObject], message_id: message.message_id as IDataObject[keyof IDataObject] };
}

/** The `file_id` of the message's media in `field`: an object, or (Telegram's photo) a list of sizes, largest last. */
function fileIdOf(message: IDataObject, field: string): IDataObject {
	const media = message[field];
	const file = Array.isArray(media) ? media[media.length - 1] : media;
	return isObject(file) && file.file_id !== undefined ? { file_id: file.file_id as IDataObject[keyof IDataObject] } : {};
}

/** The json of the output items of one request (for `input`, the item it was read from). An empty list gives no item. */
export function shapeResult(output: Output, result: unknown, body: IDataObject, splitIntoItems: boolean, input: IDataObject = {}): IDataObject[] {
	switch (output.kind) {
		case 'list': {
			const list = Array.isArray(result) ? (result as unknown[]) : [];
			return splitIntoItems ? list.map(asItem) : [{ [output.key]: list as IDataObject[] }];
		}
		case 'flag':
			return [typeof result === 'boolean' ? { [output.key]: result } : asItem(result)];
		case 'count':
			return [{ count: result as number }];
		case 'copiedMessage':
			return [isObject(result) ? { ...result, chat_id: body.chat_id } : { message_id: result as number, chat_id: body.chat_id }];
		case 'clickAnswer':
			return [typeof result === 'boolean' ? { answered: result, ...clickedMessage(input, body.callback_query_id) } : asItem(result)];
		case 'sentMedia':
			return [isObject(result) ? { ...result, ...fileIdOf(result, output.field) } : asItem(result)];
		case 'object':
			return [asItem(result)];
	}
}

/**
 * The output item of an input item that failed; `parts` when a split text failed part-way.
 * - "Continue (using error output)": `{error, details}`. n8n moves an item to the error output only
 *   when its json has no keys but `error`, `message` and `details` (n8n-core's handleNodeErrorOutput;
 *   setting `item.error` instead would make n8n replace the json by `{error}` and lose the details).
 * - "Continue (using regular output)": `{error, description, sentParts?, totalParts?}`, as version 1
 *   always gave it, so that saved workflows reading those fields keep working.
 */
export function errorItem(
	error: NodeApiError | NodeOperationError,
	itemIndex: number,
	errorOutput: boolean,
	parts?: { sent: number; total: number },
): INodeExecutionData {
	const details: IDataObject = {};
	if (error.description) details.description = error.description;
	if (parts && parts.total > 1) {
		details.sentParts = parts.sent;
		details.totalParts = parts.total;
	}
	const json: IDataObject = errorOutput ? { error: error.message, details } : { error: error.message, ...details };
	return { json, pairedItem: { item: itemIndex } };
}
