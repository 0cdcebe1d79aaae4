/**
 * Call Method: any method by name with a JSON body, for methods the spec does not show. Its
 * parameters are unknown here, so it brings its own fields and reads them itself; the body is sent
 * as it is.
 */
import type { IDataObject } from 'n8n-workflow';

import { inputError, show } from '../read/errors';
import { readJson } from '../read/json';
import { nodeParameter, readText } from '../read/parameters';
import { checkMethodBody } from '../read/schemas';
import type { Method } from './method';
import { about, inResource } from './method';

/** A method name as the service's paths carry them. */
const METHOD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

export const otherMethods: readonly Method[] = inResource('other', [
	{
		...about('callMethod', 'Call any method of the bot API', 'Calls a method by name with a JSON body, for methods this node has no operation for'),
		isDefault: true,
		// A chat_id in the body keeps that chat's items in order; without one, items queue per bot.
		queue: 'chat',
		params: [],
		output: { kind: 'object' },
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
			const method = readText(at, 'Method', nodeParameter(ctx, 'method', itemIndex, '')).trim();
			if (method === '') throw inputError(at, 'Method', 'is required, e.g. getChatMemberCount');
			if (!METHOD_NAME.test(method)) {
				throw inputError(at, 'Method', `${show(method)} is not a method name (letters, digits and _, starting with a letter)`);
			}
			const body = checkMethodBody(readJson(at, 'Body (JSON)', nodeParameter(ctx, 'body', itemIndex, '{}')) ?? {});
			if (!body.ok) throw inputError(at, 'Body (JSON)', body.problems);
			return { method, body: body.value as IDataObject };
		},
	},
]);
