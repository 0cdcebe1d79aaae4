/**
 * "Show Typing": the service's "typing…" in the chat of a message that starts the workflow (or that
 * Group Messages Within gathers for it), sent the moment the message is taken and not waited for, so
 * the execution starts as soon as without it. Only for messages: "typing…" says the bot is writing a
 * reply to what the user wrote, and a click usually ends in an edit or a toast, under which "typing…"
 * would linger for its five seconds. It never fails a delivery: a refusal (a chat the bot may not
 * write to) is logged at debug level.
 */
import { apiRequest } from '../transport/client';
import { messageOf } from '../transport/failure';
import type { TriggerContext } from './identity';
import type { ReceivedUpdate } from './update';

export function showTyping(ctx: TriggerContext, update: ReceivedUpdate): void {
	const { chatId } = update;
	if (chatId === undefined || update.type !== 'message') return;
	void apiRequest(ctx, 'sendChatAction', { chat_id: chatId, action: 'typing' }, { retry: { rateLimitRetries: 0, transientRetries: 0 } }).catch(
		(error: unknown) => {
			ctx.logger.debug(`"${ctx.getNode().name}": could not show typing in chat ${chatId}: ${messageOf(error)}`);
		},
	);
}
