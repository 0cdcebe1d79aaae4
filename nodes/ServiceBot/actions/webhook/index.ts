import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../../helpers/operation';
import { operationSelector } from '../../helpers/operation';
import * as setWebhook from './setWebhook.operation';
import * as getWebhookInfo from './getWebhookInfo.operation';
import * as deleteWebhook from './deleteWebhook.operation';

/** The operations of the resource, by operation value (= method name). */
export const operations: Record<string, Operation> = {
	setWebhook,
	getWebhookInfo,
	deleteWebhook,
};

export const description: INodeProperties[] = [
	operationSelector('webhook'),
	...setWebhook.description,
	...getWebhookInfo.description,
	...deleteWebhook.description,
];
