/**
 * Call Method: any method by name with a JSON body, for methods the spec does not show. Its
 * parameters are unknown here, so it brings its own fields and reads them itself; the body is sent
 * as it is, but a chat_id in it still keeps that chat's items in order.
 */
import type { IDataObject } from 'n8n-workflow';

import { inputError, show } from '../read/errors';
import { readJson } from '../read/json';
import { readText } from '../read/parameters';
import { checkMethodBody } from '../read/schemas';
import type { Method } from './method';

/** A method name as the service's paths carry them. */
const METHOD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

const callMethod: Method = {
	name: 'callMethod',
	resource: 'other',
	displayName: 'Call Method',
	action: 'Call any method of the bot API',
	description: 'Calls a method by name with a JSON body, for methods this node has no operation for',
	isDefault: true,
	idempotent: false,
	queue: 'chat',
	params: [],
	output: { kind: 'object' },
	custom: {
		fields: [
			{
				displayName: 'Method',
				name: 'method',
				type: 'string',
				default: '',
				required: true,
				placeholder: 'e.g. getChatMemberCount',
				description: "Name of the Bot API method to call, as in the service's documentation",
			},
			{
				displayName: 'Body (JSON)',
				name: 'body',
				type: 'json',
				default: '{}',
				description:
					'Parameters of the method as a JSON object. Sent as they are, without the checks the other operations make. A chat_id in it keeps the items of one chat in order.',
			},
		],
		read({ ctx, itemIndex }) {
			const at = { node: ctx.getNode(), itemIndex };
			const method = readText(at, 'Method', ctx.getNodeParameter('method', itemIndex, '')).trim();
			if (method === '') throw inputError(at, 'Method', 'is required, e.g. getChatMemberCount');
			if (!METHOD_NAME.test(method)) {
				throw inputError(at, 'Method', `${show(method)} is not a method name (letters, digits and _, starting with a letter)`);
			}
			const body = checkMethodBody(readJson(at, 'Body (JSON)', ctx.getNodeParameter('body', itemIndex, '{}')) ?? {});
			if (!body.ok) throw inputError(at, 'Body (JSON)', body.problems);
			return { method, body: body.value as IDataObject };
		},
	},
};

export const otherMethods: readonly Method[] = [callMethod];
