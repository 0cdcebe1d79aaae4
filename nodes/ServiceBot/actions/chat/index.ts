import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../../helpers/operation';
import { operationSelector } from '../../helpers/operation';
import * as getChat from './getChat.operation';
import * as getChatMember from './getChatMember.operation';
import * as getChatAdministrators from './getChatAdministrators.operation';
import * as getChatMemberCount from './getChatMemberCount.operation';
import * as pinChatMessage from './pinChatMessage.operation';
import * as unpinChatMessage from './unpinChatMessage.operation';
import * as unpinAllChatMessages from './unpinAllChatMessages.operation';

/** The operations of the resource, by operation value (= method name). */
export const operations: Record<string, Operation> = {
	getChat,
	getChatMember,
	getChatAdministrators,
	getChatMemberCount,
	pinChatMessage,
	unpinChatMessage,
	unpinAllChatMessages,
};

export const description: INodeProperties[] = [
	operationSelector('chat'),
	...getChat.description,
	...getChatMember.description,
	...getChatAdministrators.description,
	...getChatMemberCount.description,
	...pinChatMessage.description,
	...unpinChatMessage.description,
	...unpinAllChatMessages.description,
];
