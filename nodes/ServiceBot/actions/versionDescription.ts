/**
 * The fields of version 1 of the node: the resource choice, then each resource's operation choice
 * and operation fields. The node class (ServiceBot.node.ts) holds the rest of the description as a
 * literal, because n8n's lint reads the icon, subtitle and flags from the class itself.
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { RESOURCES } from '../../shared/catalogue';
import * as bot from './bot';
import * as callback from './callback';
import * as chat from './chat';
import * as message from './message';
import * as other from './other';
import * as update from './update';
import * as webhook from './webhook';

const RESOURCE_OPTIONS: INodePropertyOptions[] = RESOURCES.map(
	({ name, value, description }): INodePropertyOptions => ({ name, value, description }),
).concat({
	name: 'Other',
	value: 'other',
	description: 'Call any method by name, for methods without an operation here',
});

export const versionProperties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: RESOURCE_OPTIONS,
		default: 'message',
	},
	...message.description,
	...chat.description,
	...callback.description,
	...bot.description,
	...webhook.description,
	...update.description,
	...other.description,
];
