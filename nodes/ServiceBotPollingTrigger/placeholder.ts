/**
 * The trigger's side of "Placeholder While Thinking" (../shared/placeholder.ts says how the two sides
 * agree): the placeholder posted in the chat of a message before the message is handed to the
 * workflow (its id goes on the item, so it must exist first), and deleted once the execution has run
 * unless the workflow replaced it.
 *
 * Posting it never fails the delivery and delays it by one request at most: no retries, a short
 * timeout (`PLACEHOLDER_TIMING.postTimeoutMs`); a refusal or a timeout hands the message over with
 * the id null. Only for messages: a click ends in an edit or a toast, not in an answer to replace.
 */
import type { IDataObject, ITriggerFunctions } from 'n8n-workflow';

import { PLACEHOLDER_FIELD, wasReplaced } from '../shared/placeholder';
import { apiRequest } from '../shared/transport/client';
import { messageOf } from '../shared/transport/failure';
import type { ReceivedUpdate } from '../shared/trigger/update';

export const PLACEHOLDER_TIMING = {
	/** The longest the delivery waits for the placeholder's post. */
	postTimeoutMs: 5_000,
};

const ONE_TRY = { retry: { rateLimitRetries: 0, transientRetries: 0 } };

function describe(ctx: ITriggerFunctions, what: string, chatId: string | number, error: unknown): void {
	ctx.logger.debug(`"${ctx.getNode().name}": could not ${what} the placeholder in chat ${String(chatId)}: ${messageOf(error)}`);
}

/**
 * Posts `text` in the chat of the message `update` and returns `json` with the placeholder's id (null
 * when it could not be posted); `json` itself for anything but a message.
 */
export async function withPlaceholder(ctx: ITriggerFunctions, text: string, update: ReceivedUpdate, json: IDataObject): Promise<IDataObject> {
	const chatId = update.chatId;
	if (text === '' || update.type !== 'message' || chatId === undefined) return json;
	let messageId: number | null = null;
	try {
		const sent = await apiRequest<{ message_id?: unknown }>(ctx, 'sendMessage', { chat_id: chatId, text }, { ...ONE_TRY, timeoutMs: PLACEHOLDER_TIMING.postTimeoutMs });
		if (typeof sent?.message_id === 'number') messageId = sent.message_id;
	} catch (error) {
		describe(ctx, 'post', chatId, error);
	}
	return { ...json, [PLACEHOLDER_FIELD]: messageId };
}

/** The placeholder an item carries: its chat and message, if one was posted. */
export function placeholderOf(update: ReceivedUpdate, json: IDataObject): { chatId: string | number; messageId: number } | undefined {
	const messageId = json[PLACEHOLDER_FIELD];
	if (typeof messageId !== 'number' || update.chatId === undefined) return undefined;
	return { chatId: update.chatId, messageId };
}

/** The part of n8n's run the done promise settles with that this reads. */
interface EndedRun {
	data?: { resultData?: { metadata?: unknown; runData?: unknown } };
}

/**
 * Whether any node's output in the run is the placeholder itself (its chat and message id): the edited
 * message Send Message outputs. A second witness beside the custom data mark, so a run handed back
 * without its metadata (queue mode reads the execution back from the database) never has its answer
 * deleted.
 */
function outputIsPlaceholder(runData: unknown, chatId: string | number, messageId: number): boolean {
	if (typeof runData !== 'object' || runData === null) return false;
	for (const tasks of Object.values(runData as Record<string, unknown>)) {
		for (const task of Array.isArray(tasks) ? (tasks as unknown[]) : []) {
			const main = (task as { data?: { main?: unknown } } | null)?.data?.main;
			for (const branch of Array.isArray(main) ? (main as unknown[]) : []) {
				for (const item of Array.isArray(branch) ? (branch as unknown[]) : []) {
					const json = (item as { json?: { message_id?: unknown; chat?: { id?: unknown } } } | null)?.json;
					if (json?.message_id === messageId && String(json.chat?.id) === String(chatId)) return true;
				}
			}
		}
	}
	return false;
}

/**
 * Once the execution has run (`ran` settles with its run; with nothing when n8n refused it as a
 * duplicate, rejected when it could not start it), deletes the placeholder unless the run says the
 * workflow replaced it. An execution that waits (Wait, Send and Wait) counts as run: the placeholder
 * goes, and an answer after the wait is sent as a new message. Never deleted when the run shows it
 * replaced: the custom data mark, or a node's output that is the placeholder's message.
 */
export function deleteUnlessReplaced(ctx: ITriggerFunctions, placeholder: { chatId: string | number; messageId: number }, ran: PromiseLike<unknown>): void {
	const { chatId, messageId } = placeholder;
	const ended = (run: unknown): void => {
		const settled = run as EndedRun | undefined;
		const resultData = settled?.data?.resultData;
		// A run handed back without what it did cannot show the placeholder unreplaced: it stays rather than risk the answer.
		if (settled !== undefined && resultData === undefined) return;
		if (wasReplaced(resultData?.metadata, chatId, messageId) || outputIsPlaceholder(resultData?.runData, chatId, messageId)) return;
		void apiRequest(ctx, 'deleteMessage', { chat_id: chatId, message_id: messageId }, { idempotent: true }).catch((error: unknown) => describe(ctx, 'delete', chatId, error));
	};
	ran.then(ended, () => ended(undefined));
}
