import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../../helpers/operation';
import * as callMethod from './callMethod.operation';

/** The operations of the resource, by operation value. */
export const operations: Record<string, Operation> = {
	callMethod,
};

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [callMethod.RESOURCE] } },
		options: [
			{
				name: 'Call Method',
				value: callMethod.OPERATION,
				action: 'Call any method of the bot API',
				description: 'Calls a method by name with a JSON body, for methods this node has no operation for',
			},
		],
		default: 'callMethod',
	},
	...callMethod.description,
];
