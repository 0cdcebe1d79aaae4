import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../../helpers/operation';
import { operationSelector } from '../../helpers/operation';
import * as answerCallbackQuery from './answerCallbackQuery.operation';

/** The operations of the resource, by operation value (= method name). */
export const operations: Record<string, Operation> = {
	answerCallbackQuery,
};

export const description: INodeProperties[] = [
	operationSelector('callback'),
	...answerCallbackQuery.description,
];
