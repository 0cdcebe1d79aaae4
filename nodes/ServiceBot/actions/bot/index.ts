import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../../helpers/operation';
import { operationSelector } from '../../helpers/operation';
import * as setMyName from './setMyName.operation';
import * as getMyName from './getMyName.operation';
import * as setMyDescription from './setMyDescription.operation';
import * as getMyDescription from './getMyDescription.operation';
import * as setMyShortDescription from './setMyShortDescription.operation';
import * as getMyShortDescription from './getMyShortDescription.operation';
import * as setMyCommands from './setMyCommands.operation';
import * as getMyCommands from './getMyCommands.operation';
import * as deleteMyCommands from './deleteMyCommands.operation';

/** The operations of the resource, by operation value (= method name). */
export const operations: Record<string, Operation> = {
	setMyName,
	getMyName,
	setMyDescription,
	getMyDescription,
	setMyShortDescription,
	getMyShortDescription,
	setMyCommands,
	getMyCommands,
	deleteMyCommands,
};

export const description: INodeProperties[] = [
	operationSelector('bot'),
	...setMyName.description,
	...getMyName.description,
	...setMyDescription.description,
	...getMyDescription.description,
	...setMyShortDescription.description,
	...getMyShortDescription.description,
	...setMyCommands.description,
	...getMyCommands.description,
	...deleteMyCommands.description,
];
