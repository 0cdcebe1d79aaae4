import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { callMethod } from '../../../shared/transport';
import type { PreparedItem } from '../../helpers/operation';
import { BOT_QUEUE, chatQueueKey, concurrencyOption, OPTIONS } from '../../helpers/operation';
import type { CheckContext } from '../../helpers/validation';
import { inputError, isEmpty, METHOD_NAME_PATTERN, parseJson, show, toText } from '../../helpers/validation';

export const RESOURCE = 'other';
export const OPERATION = 'callMethod';

const properties: INodeProperties[] = [
	{
		displayName: 'Method',
		name: 'method',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. getMe',
		description: 'Name of the Bot API method to call, as in the service\'s documentation',
	},
	{
		displayName: 'Body (JSON)',
		name: 'body',
		type: 'json',
		default: '{}',
		description:
			'Parameters of the method as a JSON object. Sent as they are, without the checks the other operations make. A chat_id in it keeps the items of one chat in order.',
	},
	{
		displayName: 'Options',
		name: OPTIONS,
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [concurrencyOption],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: [RESOURCE], operation: [OPERATION] } },
	properties,
);

function isObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export async function prepare(this: IExecuteFunctions, itemIndex: number): Promise<PreparedItem> {
	const check: CheckContext = { node: this.getNode(), itemIndex };
	const rawMethod = this.getNodeParameter('method', itemIndex, '', { skipValidation: true });
	if (isEmpty(rawMethod)) throw inputError(check, 'Method', 'is required, e.g. getMe');
	const method = toText(check, 'Method', rawMethod).trim();
	if (!METHOD_NAME_PATTERN.test(method)) {
		throw inputError(check, 'Method', `${show(method)} is not a method name (letters, digits and _, starting with a letter)`);
	}
	const rawBody = parseJson(check, 'Body (JSON)', this.getNodeParameter('body', itemIndex, '{}', { skipValidation: true }));
	const body = rawBody === undefined || rawBody === null ? {} : rawBody;
	if (!isObject(body)) throw inputError(check, 'Body (JSON)', `must be a JSON object, got ${show(body)}`);
	// Sent unchecked (the method is unknown to this node), but a chat_id still orders its chat's items.
	return {
		queueKey: chatQueueKey(body.chat_id) ?? BOT_QUEUE,
		requests: [{ method, body }],
	};
}

/** The result as the item when it is an object; otherwise `{result}` (true, a number, a list…). */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	prepared: PreparedItem,
	output: IDataObject[],
): Promise<void> {
	for (const request of prepared.requests) {
		const result = await callMethod(this, request.method, request.body, { itemIndex });
		output.push(isObject(result) ? result : { result: result as IDataObject[keyof IDataObject] });
	}
}
