/**
 * Send Message's side of the polling trigger's "Placeholder While Thinking" (../../shared/placeholder.ts
 * says how the two sides agree): the first Send Message of an execution that answers in the chat of
 * the trigger's message edits the placeholder into the answer (`editMessageText`, the same converted
 * text and inline keyboard) instead of sending a new message; its output is the edited message, whose
 * `message_id` is the placeholder's.
 *
 * "First": the first item, in input order, of the first Send Message node whose item follows back to
 * the trigger's item (paired items, whatever its Chat mode) and names the same chat. Every later one
 * sends as before: the execution's custom data says the placeholder was taken, and that travels with
 * the execution (a queue-mode worker too).
 *
 * Where an edit cannot carry the send, the message is sent as before and the trigger deletes the
 * placeholder when the execution has run: a reply keyboard, Force Reply or Remove Keyboard (an edit
 * carries only an inline keyboard), Reply To (an edit cannot make a message a reply), Entities (not a
 * parameter of editMessageText in the spec). Split Long Text: the first part replaces the placeholder,
 * the rest are sent after it.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { PLACEHOLDER_FIELD, REPLACED_KEY, placeholderMark } from '../../shared/placeholder';
import { pollingTriggerItemOf } from '../parameters/fromTrigger';
import type { ItemContext } from '../parameters/param';
import type { PlaceholderReplacement, PreparedRequest } from './method';

/** The part of n8n's `$execution.customData` this uses. */
interface CustomData {
	get(key: string): unknown;
	set(key: string, value: string): void;
}

function customDataOf(ctx: IExecuteFunctions, itemIndex: number): CustomData | undefined {
	const execution = (ctx.getWorkflowDataProxy(itemIndex) as { $execution?: { customData?: unknown } }).$execution;
	const data = execution?.customData as Partial<CustomData> | undefined;
	return typeof data?.get === 'function' && typeof data.set === 'function' ? (data as CustomData) : undefined;
}

/** Node runs (their contexts) whose item replacing the placeholder is chosen: one per run at most. */
const chosen = new WeakSet<IExecuteFunctions>();

/** Whether an edit can carry the send's keyboard: none, or an inline keyboard. */
function editCarries(markup: unknown): boolean {
	if (markup === undefined) return true;
	let value: unknown = markup;
	if (typeof markup === 'string') {
		try {
			value = JSON.parse(markup) as unknown;
		} catch {
			return false;
		}
	}
	return typeof value === 'object' && value !== null && 'inline_keyboard' in value;
}

/**
 * The item's requests with its first send turned into the edit of the trigger's placeholder, when this
 * item is the first answer in that chat (see above); else the requests as they were. Reads only.
 */
export function replacingPlaceholder(requests: PreparedRequest[], item: ItemContext): PreparedRequest[] {
	const [first, ...rest] = requests;
	if (first?.method !== 'sendMessage' || chosen.has(item.ctx)) return requests;
	const { body } = first;
	if (body.reply_to_message_id !== undefined || body.entities !== undefined || !editCarries(body.reply_markup)) return requests;
	const trigger = pollingTriggerItemOf(item);
	const messageId = trigger?.json[PLACEHOLDER_FIELD];
	const chatId = trigger?.update.chatId;
	if (typeof messageId !== 'number' || chatId === undefined || String(chatId) !== String(body.chat_id)) return requests;
	// Taken already in this execution (by an earlier node), or n8n keeps no custom data here.
	if (customDataOf(item.ctx, item.itemIndex)?.get(REPLACED_KEY) !== undefined) return requests;
	chosen.add(item.ctx);
	const edit: IDataObject = { ...body, message_id: messageId };
	// An edit neither notifies nor takes the field.
	delete edit.disable_notification;
	const replacement: PlaceholderReplacement = { mark: placeholderMark(chatId, messageId), send: first };
	return [{ ...first, method: 'editMessageText', body: edit, replacesPlaceholder: replacement }, ...rest];
}

/**
 * Takes the placeholder for `request` before it is edited: recorded in the execution's custom data,
 * read back. The request to send: the edit, or (n8n kept no entry: its limit of 10 reached) the send
 * it stands for, so the trigger, seeing no entry, deletes the placeholder rather than the answer.
 */
export function takePlaceholder(ctx: IExecuteFunctions, itemIndex: number, request: PreparedRequest): PreparedRequest {
	const replacement = request.replacesPlaceholder;
	if (!replacement) return request;
	const customData = customDataOf(ctx, itemIndex);
	try {
		customData?.set(REPLACED_KEY, replacement.mark);
	} catch {
		// Refused (a manual run reports what n8n drops): read back below.
	}
	if (customData?.get(REPLACED_KEY) === replacement.mark) return request;
	return replacement.send;
}

/** The edit failed: the placeholder is no longer taken (the trigger deletes it after the run). */
export function releasePlaceholder(ctx: IExecuteFunctions, itemIndex: number): void {
	try {
		customDataOf(ctx, itemIndex)?.set(REPLACED_KEY, '-');
	} catch {
		// Nothing more to do: the entry names this placeholder, which then stays.
	}
}
