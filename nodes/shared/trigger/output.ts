/** The item a received update becomes: the update as received, and on request handy top-level fields. */
import type { IDataObject } from 'n8n-workflow';

import type { ReceivedUpdate } from './update';

/**
 * `update_type`, `chat_id`, `message_id`, `user_id`, `user`, `text`, `callback_data`,
 * `callback_query_id` next to the update, so later nodes need no long expressions. A field the
 * update does not have is null, so the shape is the same for every update.
 */
export function outputItem(update: ReceivedUpdate, addHandyFields: boolean): IDataObject {
	if (!addHandyFields) return update.body;
	return {
		...update.body,
		update_type: update.type ?? null,
		chat_id: update.chatId ?? null,
		message_id: update.messageId ?? null,
		user_id: update.userId ?? null,
		user: update.user ?? null,
		text: update.text ?? null,
		callback_data: update.callbackData ?? null,
		callback_query_id: update.callbackQueryId ?? null,
	};
}
