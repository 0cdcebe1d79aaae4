/**
 * "Placeholder While Thinking" (the polling trigger's option): the trigger posts a placeholder such as
 * "Thinking…" in the chat of a message as it hands the message to the workflow, and puts its id on the
 * item (`PLACEHOLDER_FIELD`); the workflow's first Send Message that answers in that chat edits it into
 * the answer, and the trigger deletes it when the execution ends without that.
 *
 * How the two sides agree on "replaced", also in queue mode (the execution runs on a worker, the
 * trigger in the main process): Send Message records it in the execution's custom data
 * (`REPLACED_KEY`, n8n's `$execution.customData`), which is part of the execution's run data. Every
 * later Send Message of the execution reads it there (only the first answer replaces), and the trigger
 * reads it in the run its emit's done promise settles with (n8n 2.41 hands a queue-mode run back with
 * its metadata; 1.123 reads the whole execution back). n8n keeps at most 10 custom data entries and
 * drops more without a word: Send Message reads its entry back and, when it is not there, sends a new
 * message instead, so the trigger never deletes an answer it could not see.
 */

/** The trigger item's field with the placeholder's message id (null when posting it failed). */
export const PLACEHOLDER_FIELD = 'placeholder_message_id';

/** The execution custom data entry Send Message sets once it replaced the placeholder. */
export const REPLACED_KEY = 'serviceBotPlaceholderReplaced';

/** The entry's value: which placeholder was replaced (a chat and a message of it). */
export function placeholderMark(chatId: string | number, messageId: number): string {
	return `${String(chatId)}:${messageId}`;
}

/** Whether the execution's custom data (n8n's run `data.resultData.metadata`) says this placeholder was replaced. */
export function wasReplaced(metadata: unknown, chatId: string | number, messageId: number): boolean {
	if (typeof metadata !== 'object' || metadata === null) return false;
	return (metadata as Record<string, unknown>)[REPLACED_KEY] === placeholderMark(chatId, messageId);
}
