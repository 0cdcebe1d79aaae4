/**
 * Spec 4.1 Messages: send, forward, copy, edit and delete messages, and chat actions. Where the spec
 * says "not shown" (media field names, forward/edit parameters), Telegram's convention fills in.
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { LIMITS } from '../../shared/spec';
import { inputError } from '../parameters/errors';
import { splitText } from '../../shared/splitText';
import type { ItemContext, Param } from '../parameters/param';
import { MARKDOWN_FROM_AI } from '../parameters/parseMode';
import type { Method, MethodOfResource, PreparedRequest } from './method';
import { replacingPlaceholder } from './placeholder';
import {
	EDIT_REMOVES_KEYBOARD,
	about,
	caption,
	chat,
	destinationChat,
	disableNotification,
	fromChat,
	inResource,
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

/**
 * Split Long Text: a text over the limit becomes several messages, each cut where its formatting
 * stays whole (so the service never refuses a later part for a cut), the reply on the first part,
 * the keyboard on the last, notification and parse mode on all.
 */
function splitLongTextRequests(body: IDataObject, item: ItemContext): PreparedRequest[] {
	return replacingPlaceholder(splitTextRequests(body, item), item);
}

function splitTextRequests(body: IDataObject, { ctx, itemIndex }: ItemContext): PreparedRequest[] {
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
}

/**
 * sendPhoto is the documented form; the spec does not show the media field of the other three, so
 * Telegram's (the method's noun: video, document, voice) is used. Spec 4.1: media captions take
 * `HTML` or `Markdown`. A file of the input item is uploaded in the same field (Telegram's
 * convention; the spec does not show uploads).
 */
function sendMedia(name: string, field: string, noun: string, onlyMimeTypes?: Param['onlyMimeTypes']): MethodOfResource {
	const media: Param = {
		name: field,
		kind: 'media',
		required: true,
		displayName: `${field.charAt(0).toUpperCase()}${field.slice(1)} ID`,
		description: `UUID of the ${noun} in the service's media storage: the file_id of a ${noun} in an update's message (e.g. {{ $json.message.${field}.file_id }}), or in the output of an earlier send`,
		...(onlyMimeTypes ? { onlyMimeTypes } : {}),
	};
	return {
		...about(name, `Send a ${noun}`, `Sends a ${noun}: a file of the input item, or one already in the service's media storage`),
		params: [chat(), media, caption(), parseMode(['HTML', 'Markdown', MARKDOWN_FROM_AI]), replyTo(), disableNotification(), replyMarkup()],
		output: { kind: 'sentMedia', field },
		postsToChat: true,
	};
}

/** A message of the bot's: after a click, the clicked message (the trigger's item, or Answer Callback Query's output). */
const editedMessage = (description: string): Param => ({
	...messageId(`Sequence number of the message to ${description}`, 'After a button click (the trigger, or Answer Callback Query): {{ $json.message_id }}'),
	fromTrigger: true,
});

export const messageMethods: readonly Method[] = inResource('message', [
	{
		...about('sendMessage', 'Send a text message', 'Sends a text message, optionally with a keyboard'),
		isDefault: true,
		postsToChat: true,
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
		requests: splitLongTextRequests,
	},
	sendMedia('sendPhoto', 'photo', 'photo', { prefix: 'image/', noun: 'an image', otherwise: 'Send Document' }),
	sendMedia('sendVideo', 'video', 'video'),
	sendMedia('sendDocument', 'document', 'document'),
	sendMedia('sendVoice', 'voice', 'voice note'),
	{
		...about('forwardMessage', 'Forward a message', 'Forwards a message and keeps the original sender attribution'),
		params: [destinationChat(), fromChat(), messageId('Sequence number of the message to forward'), disableNotification()],
		output: { kind: 'object' },
		postsToChat: true,
	},
	{
		...about('copyMessage', 'Copy a message', 'Copies a text or media message without a forward header'),
		// Spec 4.1: "a new reply markup may be given", so every kind; None keeps the original's keyboard.
		params: [destinationChat(), fromChat(), messageId('Sequence number of the message to copy'), caption(), parseMode(), replyTo(), disableNotification(), replyMarkup()],
		output: { kind: 'copiedMessage' },
		postsToChat: true,
	},
	{
		...about('editMessageText', 'Edit the text of a message', 'Replaces the text of a message the bot sent'),
		params: [
			chat(),
			editedMessage('edit'),
			{ name: 'text', kind: 'text', required: true, displayName: 'Text', description: 'New text of the message', min: 1, max: TEXT_LIMIT },
			parseMode(),
			replyMarkup(EDIT_REMOVES_KEYBOARD),
		],
		output: { kind: 'object' },
	},
	{
		...about('editMessageCaption', 'Edit the caption of a message', 'Replaces the caption of a media message the bot sent'),
		params: [
			chat(),
			editedMessage('edit'),
			// Version 1 kept the caption under Additional Fields, where its default (none) erased it.
			{ ...caption(), versions: { to: 1 } },
			{ ...caption('New caption of the media'), required: true, min: 1, removable: 'Caption', versions: { from: 2 } },
			parseMode(),
			replyMarkup(EDIT_REMOVES_KEYBOARD),
		],
		output: { kind: 'object' },
	},
	{
		...about(
			'editMessageReplyMarkup',
			'Edit the inline keyboard of a message',
			'Replaces or removes the inline keyboard of a message without changing its text',
		),
		params: [
			chat(),
			editedMessage('edit'),
			replyMarkup({ kinds: 'inline', none: { name: 'Remove Keyboard', description: 'Remove the inline keyboard from the message' } }),
		],
		output: { kind: 'object' },
	},
	{
		...about('deleteMessage', 'Delete a message', 'Deletes a message from a chat'),
		params: [chat(), editedMessage('delete')],
		output: { kind: 'flag', key: 'deleted' },
	},
	{
		...about(
			'sendChatAction',
			'Send a chat action such as typing',
			'Shows a status such as "typing" in the chat for a few seconds: send it before a step that takes a while (an AI agent preparing an answer, a file being made) so the user sees the bot is working',
		),
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
	},
]);
