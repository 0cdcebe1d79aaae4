/**
 * The item a received update becomes: the update as received, on request handy top-level fields, and
 * (version 2) the two fields n8n's AI Agent and memory nodes read in their automatic modes.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { PhotoSize } from './files';
import { fileFields, fileOfUpdate } from './files';
import type { ReceivedUpdate } from './update';

export interface OutputShape {
	readonly addHandyFields: boolean;
	/** The photo size the handy file fields describe. */
	readonly photoSize: PhotoSize;
	/** Download Files: every item says whether its file could be downloaded (`file_error`, files.ts). */
	readonly downloadFiles: boolean;
	/** `sessionId` and `chatInput` on every item (trigger version 2). */
	readonly agentInput: boolean;
	/** One output per kind of update (outputKinds) instead of one for all. */
	readonly separateOutputs: boolean;
	/** Separate Outputs by Kind has a Files output (trigger version 3). */
	readonly filesOutput: boolean;
}

/** What a run is, for Separate Outputs by Kind. */
type Kind = 'message' | 'file' | 'command' | 'click';

/**
 * The outputs of Separate Outputs by Kind, in order, by node version. A command is a message whose
 * text starts with "/" (the service's convention for bot commands); a click is a callback query; a
 * file a message carrying one (a photo, document, voice note or video: `file_kind` not null); anything
 * else the trigger runs for is a message. Version 3 gives files their own output, so a voice bot sends
 * them to a transcription and the texts straight on; versions 1 and 2 (saved workflows) keep three
 * outputs, a file on Messages (or Commands, captioned "/…").
 */
const OUTPUTS_WITH_FILES: ReadonlyArray<{ displayName: string; kind: Kind }> = [
	{ displayName: 'Messages', kind: 'message' },
	{ displayName: 'Files', kind: 'file' },
	{ displayName: 'Commands', kind: 'command' },
	{ displayName: 'Clicks', kind: 'click' },
];

const OUTPUTS_WITHOUT_FILES = OUTPUTS_WITH_FILES.filter((output) => output.kind !== 'file');

/** The first node version whose Separate Outputs by Kind has a Files output. */
export const FILES_OUTPUT_SINCE = 3;

export function outputKinds(filesOutput: boolean): ReadonlyArray<{ displayName: string; kind: Kind }> {
	return filesOutput ? OUTPUTS_WITH_FILES : OUTPUTS_WITHOUT_FILES;
}

export function isCommand(update: ReceivedUpdate): boolean {
	return update.type === 'message' && (update.text?.startsWith('/') ?? false);
}

/**
 * The kind of a run of `updates` (one, or the messages Group Messages Within gathered, the last
 * the one replied to). A file wins over a command: a captioned file is a file (its caption is on the
 * item), so no file reaches a path that does not expect one; in a group, any message's file counts,
 * as the item carries the first file (groupedItem).
 */
function kindOf(updates: readonly ReceivedUpdate[], filesOutput: boolean): Kind {
	const last = updates[updates.length - 1];
	if (last.type === 'callback_query') return 'click';
	if (filesOutput && updates.some((update) => update.media !== undefined)) return 'file';
	return isCommand(last) ? 'command' : 'message';
}

/**
 * What the trigger emits for one item: on the one output, or on the output of its kind. `together`
 * are the updates the item stands for (Group Messages Within), `update` the last of them.
 */
export function routed(update: ReceivedUpdate, item: INodeExecutionData, shape: OutputShape, together: readonly ReceivedUpdate[] = [update]): INodeExecutionData[][] {
	if (!shape.separateOutputs) return [[item]];
	const kind = kindOf(together, shape.filesOutput);
	return outputKinds(shape.filesOutput).map((output) => (output.kind === kind ? [item] : []));
}

/**
 * `update_type`, `chat_id`, `message_id`, `user_id`, `user`, `text`, `callback_data`,
 * `callback_query_id` and the file's handy fields (files.ts) before the update, so later nodes need no long expressions. A field the update does
 * not have is null, so the shape is the same for every update. With `agentInput`:
 * `sessionId` (the conversation: the chat id) and `chatInput` (the text or caption; for a click, its
 * data), the names n8n's AI Agent (`$json.chatInput`) and memory (`$json.sessionId`) take by default.
 */
export function outputItem(update: ReceivedUpdate, shape: OutputShape): IDataObject {
	if (!shape.addHandyFields && !shape.agentInput && !shape.downloadFiles) return update.body;
	const added: IDataObject = {};
	if (shape.addHandyFields) {
		Object.assign(added, {
			update_type: update.type ?? null,
			chat_id: update.chatId ?? null,
			message_id: update.messageId ?? null,
			user_id: update.userId ?? null,
			user: update.user ?? null,
			text: update.text ?? null,
			callback_data: update.callbackData ?? null,
			callback_query_id: update.callbackQueryId ?? null,
			...fileFields(fileOfUpdate(update, shape.photoSize)),
		});
	}
	if (shape.agentInput) {
		Object.assign(added, { sessionId: update.chatId ?? null, chatInput: update.text ?? update.callbackData ?? null });
	}
	// Null until a download fails, so every item has it (files.ts); only where Download Files is on.
	if (shape.downloadFiles) added.file_error = null;
	// n8n's schema view lists an item's keys in order, and people drag what they see first: the
	// added fields lead, the update as received follows, and an added field keeps its value over a
	// key of the same name the service might put in an update.
	return { ...added, ...update.body, ...added };
}

/**
 * One item for messages grouped into one execution (the polling trigger's Group Messages Within):
 * the last message's item (its message_id, to reply to), the texts (and captions) joined in order
 * with a newline as `text` and `chatInput`, the file fields of the first message with a file (the
 * one Download Files puts in `data`), and every update as received in `updates`.
 */
export function groupedItem(updates: readonly ReceivedUpdate[], shape: OutputShape): IDataObject {
	const item: IDataObject = { ...outputItem(updates[updates.length - 1], shape) };
	const text = updates.flatMap((update) => (update.text === undefined ? [] : [update.text])).join('\n');
	if (shape.addHandyFields) {
		item.text = text;
		Object.assign(item, fileFields(updates.map((update) => fileOfUpdate(update, shape.photoSize)).find((file) => file !== undefined)));
	}
	if (shape.agentInput) item.chatInput = text;
	item.updates = updates.map((update) => update.body);
	return item;
}
