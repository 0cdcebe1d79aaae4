/**
 * Call Method: any method by name with a JSON body, for methods the spec does not show. Its
 * parameters are unknown here, so it has fields of its own and reads them itself; the body is sent
 * as it is, run like every method's items.
 */
import type { IDataObject } from 'n8n-workflow';
import { z } from 'zod/v4';

import { inputError, show } from '../parameters/errors';
import { readJson } from '../parameters/json';
import { nodeParameter } from '../parameters/param';
import { checkList } from '../parameters/schema';
import { readText } from '../parameters/text';
import type { OperationOutsideTheTable } from '../resources/method';
import { about } from '../resources/method';
import type { ItemOperation } from './runItems';
import { optionsCollection } from './runItems';

/** A method name as the service's paths carry them. */
const METHOD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** The body: any JSON object. */
const methodBody = z.record(z.string(), z.unknown(), { error: (issue) => `must be a JSON object, got ${JSON.stringify(issue.input)}` });

const running = {
	// A chat_id in the body keeps that chat's items in order; without one, items queue per bot.
	queue: 'chat',
	output: { kind: 'object' },
} as const;

export const CALL_METHOD: OperationOutsideTheTable = {
	...about('callMethod', 'Call any method of the bot API', 'Calls a method by name with a JSON body, for methods this node has no operation for'),
	resource: 'other',
	isDefault: true,
	properties: [
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
		...optionsCollection(running),
	],
};

export const callMethodOperation: ItemOperation = {
	...running,
	hasItemOptions: false,
	requests({ ctx, itemIndex }) {
		const at = { node: ctx.getNode(), itemIndex };
		const method = readText(at, 'Method', nodeParameter(ctx, 'method', itemIndex, '')).trim();
		if (method === '') throw inputError(at, 'Method', 'is required, e.g. getChatMemberCount');
		if (!METHOD_NAME.test(method)) {
			throw inputError(at, 'Method', `${show(method)} is not a method name (letters, digits and _, starting with a letter)`);
		}
		const body = checkList(methodBody, readJson(at, 'Body (JSON)', nodeParameter(ctx, 'body', itemIndex, '{}')) ?? {}, 'field');
		if (!body.ok) throw inputError(at, 'Body (JSON)', body.problems);
		return [{ method, body: body.value as IDataObject }];
	},
};
