/**
 * "Show Typing": the service's "typing…" in the chat of an update that starts the workflow, sent the
 * moment the update is taken and not waited for, so the execution starts as soon as without it. It
 * never fails a delivery: a refusal (a chat the bot may not write to) is logged at debug level.
 */
import { callMethod, messageOf } from '../transport';
import type { TriggerContext } from './identity';

export function showTyping(ctx: TriggerContext, chatId: string | undefined): void {
	if (chatId === undefined) return;
	void callMethod(ctx, 'sendChatAction', { chat_id: chatId, action: 'typing' }, { retry: { rateLimitRetries: 0, transientRetries: 0 } }).catch(
		(error: unknown) => {
			ctx.logger.debug(`"${ctx.getNode().name}": could not show typing in chat ${chatId}: ${messageOf(error)}`);
		},
	);
}
