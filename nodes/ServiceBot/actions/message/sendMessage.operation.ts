import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { LIMITS } from '../../../shared/catalogue';
import { readBody } from '../../helpers/fields';
import type { PreparedItem, PreparedRequest } from '../../helpers/operation';
import { catalogueOperation, methodOf, queueKeyOf, readOptions } from '../../helpers/operation';
import { splitText } from '../../helpers/splitText';
import { inputError } from '../../helpers/validation';

const method = methodOf('sendMessage');
const MAX = LIMITS.messageText.max;

const splitLongTextOption: INodeProperties = {
	displayName: 'Split Long Text',
	name: 'splitLongText',
	type: 'boolean',
	default: false,
	description: `Whether to send a text longer than ${MAX.toLocaleString('en-US')} characters as several messages, in order, split at paragraphs, then lines, then spaces. Each sent message is an output item; the keyboard goes on the last one.`,
};

const operation = catalogueOperation('sendMessage', { options: [splitLongTextOption] });

export const description = operation.description;

/**
 * With "Split Long Text" on, a text over the limit becomes several requests: the reply goes on the
 * first part, the keyboard on the last, notification and parse mode on all.
 */
export async function prepare(this: IExecuteFunctions, itemIndex: number): Promise<PreparedItem> {
	const split = readOptions(this, itemIndex).splitLongText === true;
	const body = readBody(this, method, itemIndex, split ? { unbounded: ['text'] } : {});
	const queueKey = queueKeyOf(method, body);
	const text = body.text as string;
	if (text.length <= MAX) return { queueKey, requests: [{ method: method.name, body }] };
	if (body.entities !== undefined) {
		throw inputError(
			{ node: this.getNode(), itemIndex },
			'Entities',
			`can't be combined with Split Long Text: the text is ${text.length} characters and would be split`,
			'Entity offsets refer to the whole text. Use a parse mode instead, or shorten the text.',
		);
	}
	const parts = splitText(text, MAX);
	const requests = parts.map((part, index): PreparedRequest => {
		const partBody: IDataObject = { ...body, text: part };
		if (index > 0) delete partBody.reply_to_message_id;
		if (index < parts.length - 1) delete partBody.reply_markup;
		return { method: method.name, body: partBody };
	});
	return { queueKey, requests };
}

export const execute = operation.execute;
