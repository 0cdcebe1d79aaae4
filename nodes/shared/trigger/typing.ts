/**
 * "Show Typing": the service's "typing…" in the chat of a message that starts the workflow (or that
 * Group Messages Within gathers for it), sent the moment the message is taken and not waited for, so
 * the execution starts as soon as without it. Only for messages: "typing…" says the bot is writing a
 * reply to what the user wrote, and a click usually ends in an edit or a toast, under which "typing…"
 * would linger for its five seconds. It never fails a delivery: a refusal (a chat the bot may not
 * write to) is logged at debug level.
 *
 * The service shows a chat action for about five seconds, and an AI agent thinks for longer; so while
 * the execution of the message runs, "typing…" is renewed (`keepTyping`) until the first of:
 * - the execution has run: the trigger hands over what tells it (the polling trigger its emit's done
 *   promise; the webhook trigger the end of its response when it holds the push for the run: Confirm
 *   Delivery "When the Run Ends", version 3's default, or Stream AI Answers. Answering the push as
 *   the execution starts, nothing tells it the end, and it shows "typing…" once);
 * - the workflow posted to that chat (../chatPosts.ts; only what this n8n process sends: in queue
 *   mode a worker's posts are not heard here, and the execution's end bounds it);
 * - the cap, `TYPING_TIMING.capMs`, whatever happened (an end n8n never reports).
 * A renewal that fails fails nothing: a 429 is waited out as long as it says, a refusal ends it.
 */

import { onPostToChat } from '../chatPosts';
import { apiRequest, pause } from '../transport/client';
import { failureOf, messageOf } from '../transport/failure';
import { tokenOf } from '../transport/token';
import type { TriggerContext } from './identity';
import type { ReceivedUpdate } from './update';

/** How long typing lasts; tests shorten it (`jest.replaceProperty`), n8n never changes it. */
export const TYPING_TIMING = {
	/** Below the service's five seconds of "typing…" (n8n's Agents module renews every 4 s too). */
	renewEveryMs: 4_000,
	/** The longest "typing…" one message gets, however long its execution runs. */
	capMs: 180_000,
};

const NO_RETRIES = { retry: { rateLimitRetries: 0, transientRetries: 0 } };

function typingChatOf(update: ReceivedUpdate): string | undefined {
	return update.type === 'message' && update.chatId !== undefined ? String(update.chatId) : undefined;
}

function logFailure(ctx: TriggerContext, chatId: string, error: unknown): void {
	ctx.logger.debug(`"${ctx.getNode().name}": could not show typing in chat ${chatId}: ${messageOf(error)}`);
}

/**
 * Shows "typing…" now in the chat of a message; with `ran` (settled once the execution has run), keeps
 * it shown until then (`keepTyping`).
 */
export function showTyping(ctx: TriggerContext, update: ReceivedUpdate, ran?: PromiseLike<unknown>): void {
	const chatId = typingChatOf(update);
	if (chatId === undefined) return;
	void apiRequest(ctx, 'sendChatAction', { chat_id: update.chatId, action: 'typing' }, NO_RETRIES).catch((error: unknown) => logFailure(ctx, chatId, error));
	if (ran) keepTyping(ctx, update, ran);
}

/**
 * Renews the "typing…" just shown in the chat of a message every `renewEveryMs` until `ran` settles,
 * the workflow posts to that chat, or the cap. Returns at once.
 */
export function keepTyping(ctx: TriggerContext, update: ReceivedUpdate, ran: PromiseLike<unknown>): void {
	const chatId = typingChatOf(update);
	if (chatId === undefined) return;
	const stop = new AbortController();
	const end = (): void => stop.abort();
	ran.then(end, end);
	void renew(ctx, update.chatId ?? chatId, chatId, stop).catch((error: unknown) => logFailure(ctx, chatId, error));
}

async function renew(ctx: TriggerContext, wireChatId: string | number, chatId: string, stop: AbortController): Promise<void> {
	const capAt = Date.now() + TYPING_TIMING.capMs;
	const token = await tokenOf(ctx);
	const stopListening = onPostToChat(token, chatId, () => stop.abort());
	try {
		let wait = TYPING_TIMING.renewEveryMs;
		for (;;) {
			await pause(Math.min(wait, capAt - Date.now()), stop.signal);
			if (stop.signal.aborted || Date.now() >= capAt) return;
			wait = TYPING_TIMING.renewEveryMs;
			try {
				await apiRequest(ctx, 'sendChatAction', { chat_id: wireChatId, action: 'typing' }, { ...NO_RETRIES, abortSignal: stop.signal });
			} catch (error) {
				if (stop.signal.aborted) return;
				const failure = failureOf(error);
				logFailure(ctx, chatId, error);
				if (failure?.kind === 'refused' && failure.status === 429) wait = Math.max(wait, (failure.retryAfterSeconds ?? 0) * 1000);
				// Refused otherwise (the bot may not write there): asking again changes nothing.
				else if (failure?.kind === 'refused') return;
			}
		}
	} finally {
		stopListening();
	}
}
