/**
 * Spec 4.1 Messages: send, forward, copy, edit and delete messages, and chat actions. Where the spec
 * says "not shown" (media field names, forward/edit parameters), Telegram's convention fills in.
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { LIMITS } from '../../shared/spec';
import { inputError } from '../read/errors';
import { splitText } from '../read/splitText';
import type { Method, Param, PreparedRequest } from './method';
import {
	EDIT_REMOVES_KEYBOARD,
	caption,
	chat,
	destinationChat,
	disableNotification,
	fromChat,
	messageId,
	parseMode,
	replyMarkup,
	replyTo,
} from './method';

const TEXT_LIMIT = LIMITS.messageText.max;

const splitLongText: INodeProperties = {
	displayName: 'Split Long Text',
	name: 'splitLongText',
	type: 'boolean',
	default: false,
	description: `Whether to send a text longer than ${TEXT_LIMIT.toLocaleString('en-US')} characters as several messages, in order, split at paragraphs, then lines, then spaces. Each sent message is an output item; the keyboard goes on the last one.`,
};

const sendMessage: Method = {
	name: 'sendMessage',
	resource: 'message',
	displayName: 'Send Message',
	action: 'Send a text message',
	description: 'Sends a text message, optionally with a keyboard',
	isDefault: true,
	idempotent: false,
	queue: 'chat',
	params: [
		chat(),
		{
			name: 'text',
			kind: 'text',
			required: true,
			displayName: 'Text',
			description: 'Text of the message',
			min: 1,
			max: TEXT_LIMIT,
			splitBy: { option: 'splitLongText', optionName: 'Split Long Text' },
		},
		parseMode(),
		{
			name: 'entities',
			kind: 'entities',
			required: false,
			displayName: 'Entities',
			description: 'Formatting entities as a JSON array, used instead of a parse mode',
		},
		replyTo(),
		disableNotification(),
		replyMarkup(),
	],
	output: { kind: 'object' },
	options: [splitLongText],
	/**
	 * Split Long Text: a text over the limit becomes several messages, each cut where its formatting
	 * stays whole (so the service never refuses a later part for a cut), the reply on the first part,
	 * the keyboard on the last, notification and parse mode on all.
	 */
	requests(body, { ctx, itemIndex }) {
		const text = body.text as string;
		if (text.length <= TEXT_LIMIT) return [{ method: 'sendMessage', body }];
		const at = { node: ctx.getNode(), itemIndex };
		if (body.entities !== undefined) {
			throw inputError(
				at,
				'Entities',
				`can't be combined with Split Long Text: the text is ${text.length} characters and would be split`,
				'Entity offsets refer to the whole text. Use a parse mode instead, or shorten the text.',
			);
		}
		const split = splitText(text, TEXT_LIMIT, body.parse_mode as string | undefined);
		if (!split.ok) {
			throw inputError(
				at,
				'Text',
				`${split.problem}, so it can't be split into messages without breaking its formatting: shorten that part or set Parse Mode to None`,
			);
		}
		return split.parts.map((part, index): PreparedRequest => {
			const partBody: IDataObject = { ...body, text: part };
			if (index > 0) delete partBody.reply_to_message_id;
			if (index < split.parts.length - 1) delete partBody.reply_markup;
			return { method: 'sendMessage', body: partBody };
		});
	},
};

/**
 * sendPhoto is the documented form; the spec does not show the media field of the other three, so
 * Telegram's (the method's noun: video, document, voice) is used.
 */
function sendMedia(name: string, field: string, noun: string, displayName: string): Method {
	const label = `${field.charAt(0).toUpperCase()}${field.slice(1)}`;
	const media: Param = {
		name: field,
		kind: 'media',
		required: true,
		displayName: `${label} ID`,
		description: `UUID of the ${noun} in the service's media storage: the file_id of a ${noun} in an update's message (e.g. {{ $json.message.${field}.file_id }}), or in the output of an earlier send`,
	};
	return {
		name,
		resource: 'message',
		displayName,
		action: `Send a ${noun}`,
		description: `Sends a ${noun} already uploaded to the service's media storage`,
		idempotent: false,
		queue: 'chat',
		// Spec 4.1: the media methods take `HTML` or `Markdown`.
		params: [chat(), media, caption(), parseMode(['HTML', 'Markdown']), replyTo(), disableNotification(), replyMarkup()],
		output: { kind: 'object' },
	};
}

const forwardMessage: Method = {
	name: 'forwardMessage',
	resource: 'message',
	displayName: 'Forward Message',
	action: 'Forward a message',
	description: 'Forwards a message and keeps the original sender attribution',
	idempotent: false,
	queue: 'chat',
	params: [destinationChat(), fromChat(), messageId('Sequence number of the message to forward'), disableNotification()],
	output: { kind: 'object' },
};

const copyMessage: Method = {
	name: 'copyMessage',
	resource: 'message',
	displayName: 'Copy Message',
	action: 'Copy a message',
	description: 'Copies a text or media message without a forward header',
	idempotent: false,
	queue: 'chat',
	params: [
		destinationChat(),
		fromChat(),
		messageId('Sequence number of the message to copy'),
		caption(),
		parseMode(),
		replyTo(),
		disableNotification(),
		// Spec 4.1: "a new reply markup may be given", so every kind; None keeps the original's keyboard.
		replyMarkup(),
	],
	output: { kind: 'copiedMessage' },
};

const editMessageText: Method = {
	name: 'editMessageText',
	resource: 'message',
	displayName: 'Edit Message Text',
	action: 'Edit the text of a message',
	description: 'Replaces the text of a message the bot sent',
	idempotent: false,
	queue: 'chat',
	params: [
		chat(),
		messageId('Sequence number of the message to edit'),
		{ name: 'text', kind: 'text', required: true, displayName: 'Text', description: 'New text of the message', min: 1, max: TEXT_LIMIT },
		parseMode(),
		replyMarkup(EDIT_REMOVES_KEYBOARD),
	],
	output: { kind: 'object' },
};

const editMessageCaption: Method = {
	name: 'editMessageCaption',
	resource: 'message',
	displayName: 'Edit Message Caption',
	action: 'Edit the caption of a message',
	description: 'Replaces the caption of a media message the bot sent',
	idempotent: false,
	queue: 'chat',
	params: [
		chat(),
		messageId('Sequence number of the message to edit'),
		// Version 1 kept the caption under Additional Fields, where its default (none) erased it.
		{ ...caption(), versions: { to: 1 } },
		{ ...caption('New caption of the media'), required: true, min: 1, removable: 'Caption', versions: { from: 2 } },
		parseMode(),
		replyMarkup(EDIT_REMOVES_KEYBOARD),
	],
	output: { kind: 'object' },
};

const editMessageReplyMarkup: Method = {
	name: 'editMessageReplyMarkup',
	resource: 'message',
	displayName: 'Edit Message Reply Markup',
	action: 'Edit the inline keyboard of a message',
	description: 'Replaces or removes the inline keyboard of a message without changing its text',
	idempotent: false,
	queue: 'chat',
	params: [
		chat(),
		messageId('Sequence number of the message to edit'),
		replyMarkup({ kinds: 'inline', none: { name: 'Remove Keyboard', description: 'Remove the inline keyboard from the message' } }),
	],
	output: { kind: 'object' },
};

const deleteMessage: Method = {
	name: 'deleteMessage',
	resource: 'message',
	displayName: 'Delete Message',
	action: 'Delete a message',
	description: 'Deletes a message from a chat',
	idempotent: false,
	queue: 'chat',
	params: [chat(), messageId('Sequence number of the message to delete')],
	output: { kind: 'flag', key: 'deleted' },
};

const sendChatAction: Method = {
	name: 'sendChatAction',
	resource: 'message',
	displayName: 'Send Chat Action',
	action: 'Send a chat action such as typing',
	description: 'Shows a temporary status such as "typing" to the chat',
	idempotent: false,
	queue: 'chat',
	params: [
		chat(),
		{
			// The spec lists the actions but not the field name: Telegram's `action`.
			name: 'action',
			kind: 'chatAction',
			required: true,
			displayName: 'Action',
			description: 'Status to show',
			values: [
				'typing',
				'upload_photo',
				'record_video',
				'upload_video',
				'record_voice',
				'upload_voice',
				'upload_document',
				'choose_sticker',
				'find_location',
			],
		},
	],
	output: { kind: 'flag', key: 'sent' },
};

export const messageMethods: readonly Method[] = [
	sendMessage,
	sendMedia('sendPhoto', 'photo', 'photo', 'Send Photo'),
	sendMedia('sendVideo', 'video', 'video', 'Send Video'),
	sendMedia('sendDocument', 'document', 'document', 'Send Document'),
	sendMedia('sendVoice', 'voice', 'voice note', 'Send Voice'),
	forwardMessage,
	copyMessage,
	editMessageText,
	editMessageCaption,
	editMessageReplyMarkup,
	deleteMessage,
	sendChatAction,
];
