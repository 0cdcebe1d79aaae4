import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../../helpers/operation';
import { operationSelector } from '../../helpers/operation';
import * as sendMessage from './sendMessage.operation';
import * as sendPhoto from './sendPhoto.operation';
import * as sendVideo from './sendVideo.operation';
import * as sendDocument from './sendDocument.operation';
import * as sendVoice from './sendVoice.operation';
import * as forwardMessage from './forwardMessage.operation';
import * as copyMessage from './copyMessage.operation';
import * as editMessageText from './editMessageText.operation';
import * as editMessageCaption from './editMessageCaption.operation';
import * as editMessageReplyMarkup from './editMessageReplyMarkup.operation';
import * as deleteMessage from './deleteMessage.operation';
import * as sendChatAction from './sendChatAction.operation';

/** The operations of the resource, by operation value (= method name). */
export const operations: Record<string, Operation> = {
	sendMessage,
	sendPhoto,
	sendVideo,
	sendDocument,
	sendVoice,
	forwardMessage,
	copyMessage,
	editMessageText,
	editMessageCaption,
	editMessageReplyMarkup,
	deleteMessage,
	sendChatAction,
};

export const description: INodeProperties[] = [
	operationSelector('message'),
	...sendMessage.description,
	...sendPhoto.description,
	...sendVideo.description,
	...sendDocument.description,
	...sendVoice.description,
	...forwardMessage.description,
	...copyMessage.description,
	...editMessageText.description,
	...editMessageCaption.description,
	...editMessageReplyMarkup.description,
	...deleteMessage.description,
	...sendChatAction.description,
];
