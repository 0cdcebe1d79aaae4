/** Spec 4.2 Chats and members: chat information, members, pinned messages. */
import type { Method } from './method';
import { about, chat, disableNotification, inResource, messageId } from './method';

export const chatMethods: readonly Method[] = inResource('chat', [
	{
		...about('getChat', 'Get a chat', 'Returns the chat: ID, type, title, description and member count'),
		isDefault: true,
		idempotent: true,
		params: [chat()],
		output: { kind: 'object' },
	},
	{
		...about('getChatMember', 'Get a member of a chat', "Returns a member's status in a chat"),
		idempotent: true,
		params: [chat(), { name: 'user_id', kind: 'user', required: true, displayName: 'User ID', description: 'UUID of the user' }],
		output: { kind: 'object' },
	},
	{
		...about('getChatAdministrators', 'Get the administrators of a chat', 'Returns the creator and administrators of a chat, one item each'),
		idempotent: true,
		params: [chat()],
		output: { kind: 'list', key: 'administrators' },
	},
	{
		...about('getChatMemberCount', 'Get the member count of a chat', 'Returns the number of members of a chat'),
		idempotent: true,
		params: [chat()],
		output: { kind: 'count' },
	},
	{
		...about('pinChatMessage', 'Pin a message in a chat', 'Pins a message at the top of the chat'),
		params: [chat(), messageId('Sequence number of the message to pin'), disableNotification()],
		output: { kind: 'flag', key: 'pinned' },
	},
	{
		...about('unpinChatMessage', 'Unpin a message in a chat', 'Unpins one pinned message of the chat'),
		params: [chat(), messageId('Sequence number of the message to unpin')],
		output: { kind: 'flag', key: 'unpinned' },
	},
	{
		...about('unpinAllChatMessages', 'Unpin all messages in a chat', 'Unpins every pinned message of the chat'),
		params: [chat()],
		output: { kind: 'flag', key: 'unpinned' },
	},
]);
