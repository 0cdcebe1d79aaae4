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

/**
 * A message the service returned with the names the trigger's items use (`chat_id`, `message_id`)
 * first, so that the next node maps a sent message as it maps a received one; anything else as it is.
 */
function withHandyNames(result: IDataObject): IDataObject {
	const chat = isObject(result.chat) ? result.chat : undefined;
	if (chat?.id === undefined || result.message_id === undefined) return result;
	const handy = { chat_id: chat.id as IDataObject[keyof IDataObject], message_id: result.message_id };
	return { ...handy, ...result, ...handy };
}

/**
 * The json of the output items of one request (for `input`, the item it was read from). An empty list
 * gives no item. `handyNames` (from HANDY_NAMES_SINCE): a message also has `chat_id` first.
 */
export function shapeResult(output: Output, result: unknown, body: IDataObject, splitIntoItems: boolean, input: IDataObject = {}, handyNames = false): IDataObject[] {
	const shaped = shapeOf(output, result, body, splitIntoItems, input);
	return handyNames ? shaped.map(withHandyNames) : shaped;
}

function shapeOf(output: Output, result: unknown, body: IDataObject, splitIntoItems: boolean, input: IDataObject): IDataObject[] {
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
		case 'file':
			return [asItem(result)];
	}
}

/** The texts given, each ending as a sentence, in one line. */
function sentences(...texts: Array<string | undefined>): string {
	return texts
		.filter((text): text is string => Boolean(text))
		.map((text) => (/[.!?]$/.test(text) ? text : `${text}.`))
		.join(' ');
}

/**
 * The output item of an input item that failed; `parts` when a split text failed part-way.
 * - "Continue (using error output)": `{error, message}`, `message` saying what to do and how many parts
 *   went out. n8n moves an item to the error output by its json's keys, and n8n before 2.35.2 (all of
 *   1.x) only when they are `error` or `error` and `message`; any other key keeps it on the success
 *   output there. Setting `item.error` instead makes n8n replace the json by `{error}`.
 * - "Continue (using regular output)": `{error, description, sentParts?, totalParts?}`, as version 1
 *   always gave it, so that saved workflows reading those fields keep working.
 */
export function errorItem(
	error: NodeApiError | NodeOperationError,
	itemIndex: number,
	errorOutput: boolean,
	parts?: { sent: number; total: number },
): INodeExecutionData {
	const split = parts && parts.total > 1 ? parts : undefined;
	if (errorOutput) {
		const message = sentences(error.description ?? undefined, split && `${split.sent} of ${split.total} parts were sent`);
		return { json: message ? { error: error.message, message } : { error: error.message }, pairedItem: { item: itemIndex } };
	}
	const json: IDataObject = { error: error.message };
	if (error.description) json.description = error.description;
	if (split) {
		json.sentParts = split.sent;
		json.totalParts = split.total;
	}
	return { json, pairedItem: { item: itemIndex } };
}
