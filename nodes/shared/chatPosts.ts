/**
 * The bot's posts to a chat, as this n8n process makes them: Show Typing's renewal
 * (trigger/typing.ts) stops once the workflow has posted to the chat it shows "typing…" in, as the
 * service's own "typing…" ends at the bot's next message. The action node tells it after the service
 * took a request of a method that posts to a chat (`Method.postsToChat`).
 *
 * Process-local, like the trigger holders: in queue mode the action node runs on a worker and the
 * process of the trigger never hears of its posts; there the execution's end and Show Typing's cap
 * bound the typing. Holds only the chats someone listens to now: nothing grows with the posts made.
 */
import { createHmac } from 'node:crypto';

const listeners = new Map<string, Set<() => void>>();

/** A one-way key of the bot and the chat (the token itself is never kept). */
function keyOf(token: string, chatId: string): string {
	return createHmac('sha256', token).update(JSON.stringify(['n8n-nodes-service-bot:chat-posts:v1', chatId]), 'utf8').digest('base64url');
}

/** Calls `listener` when the bot of `token` next posts to `chatId` in this process; returns what stops listening. */
export function onPostToChat(token: string, chatId: string, listener: () => void): () => void {
	const key = keyOf(token, chatId);
	const chat = listeners.get(key) ?? new Set<() => void>();
	listeners.set(key, chat);
	chat.add(listener);
	return () => {
		chat.delete(listener);
		if (chat.size === 0 && listeners.get(key) === chat) listeners.delete(key);
	};
}

/** The bot of `token` posted to `chatId`: whoever listens for it is told, once. */
export function postedToChat(token: string, chatId: string): void {
	const key = keyOf(token, chatId);
	const chat = listeners.get(key);
	if (!chat) return;
	listeners.delete(key);
	for (const listener of chat) listener();
}
