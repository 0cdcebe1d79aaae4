import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../../helpers/operation';
import { operationSelector } from '../../helpers/operation';
import * as getUpdates from './getUpdates.operation';

/** The operations of the resource, by operation value (= method name). */
export const operations: Record<string, Operation> = {
	getUpdates,
};

export const description: INodeProperties[] = [
	operationSelector('update'),
	...getUpdates.description,
];
