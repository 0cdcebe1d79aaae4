/** Spec 4.2 Chats and members: chat information, members, pinned messages. */
import type { Method } from './method';
import { chat, disableNotification, messageId } from './method';

const getChat: Method = {
	name: 'getChat',
	resource: 'chat',
	displayName: 'Get Chat',
	action: 'Get a chat',
	description: 'Returns the chat: ID, type, title, description and member count',
	isDefault: true,
	idempotent: true,
	queue: 'chat',
	params: [chat()],
	output: { kind: 'object' },
};

const getChatMember: Method = {
	name: 'getChatMember',
	resource: 'chat',
	displayName: 'Get Chat Member',
	action: 'Get a member of a chat',
	description: "Returns a member's status in a chat",
	idempotent: true,
	queue: 'chat',
	params: [chat(), { name: 'user_id', kind: 'user', required: true, displayName: 'User ID', description: 'UUID of the user' }],
	output: { kind: 'object' },
};

const getChatAdministrators: Method = {
	name: 'getChatAdministrators',
	resource: 'chat',
	displayName: 'Get Chat Administrators',
	action: 'Get the administrators of a chat',
	description: 'Returns the creator and administrators of a chat, one item each',
	idempotent: true,
	queue: 'chat',
	params: [chat()],
	output: { kind: 'list', key: 'administrators' },
};

const getChatMemberCount: Method = {
	name: 'getChatMemberCount',
	resource: 'chat',
	displayName: 'Get Chat Member Count',
	action: 'Get the member count of a chat',
	description: 'Returns the number of members of a chat',
	idempotent: true,
	queue: 'chat',
	params: [chat()],
	output: { kind: 'count' },
};

const pinChatMessage: Method = {
	name: 'pinChatMessage',
	resource: 'chat',
	displayName: 'Pin Chat Message',
	action: 'Pin a message in a chat',
	description: 'Pins a message at the top of the chat',
	idempotent: false,
	queue: 'chat',
	params: [chat(), messageId('Sequence number of the message to pin'), disableNotification()],
	output: { kind: 'flag', key: 'pinned' },
};

const unpinChatMessage: Method = {
	name: 'unpinChatMessage',
	resource: 'chat',
	displayName: 'Unpin Chat Message',
	action: 'Unpin a message in a chat',
	description: 'Unpins one pinned message of the chat',
	idempotent: false,
	queue: 'chat',
	params: [chat(), messageId('Sequence number of the message to unpin')],
	output: { kind: 'flag', key: 'unpinned' },
};

const unpinAllChatMessages: Method = {
	name: 'unpinAllChatMessages',
	resource: 'chat',
	displayName: 'Unpin All Chat Messages',
	action: 'Unpin all messages in a chat',
	description: 'Unpins every pinned message of the chat',
	idempotent: false,
	queue: 'chat',
	params: [chat()],
	output: { kind: 'flag', key: 'unpinned' },
};

export const chatMethods: readonly Method[] = [
	getChat,
	getChatMember,
	getChatAdministrators,
	getChatMemberCount,
	pinChatMessage,
	unpinChatMessage,
	unpinAllChatMessages,
];
