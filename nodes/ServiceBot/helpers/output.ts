/**
 * Turns a method's `result` into the node's output items (the json of each), by the catalogue's
 * result shape:
 * - a Message, Chat, ChatMember, WebhookInfo or `{name}`-like object: one item, the object itself;
 * - copyMessage's `{message_id}`: one item `{message_id, chat_id}` (chat_id = the destination);
 * - `true`: one item `{<resultFlag>: true}`, e.g. `{deleted: true}`, `{pinned: true}`;
 * - a count: `{count}`;
 * - a list (administrators, commands, updates): one item per entry, or with "Split Into Items"
 *   off one item holding the whole list (`{administrators}`, `{commands}`, `{updates}`).
 *   An empty list gives no item (n8n's "Always Output Data" setting gives an empty one).
 */
import type { IDataObject } from 'n8n-workflow';

import type { MethodSpec } from '../../shared/catalogue';

const LIST_KEYS: Partial<Record<MethodSpec['result'], string>> = {
	chatMembers: 'administrators',
	commands: 'commands',
	updates: 'updates',
};

export function isListResult(method: MethodSpec): boolean {
	return LIST_KEYS[method.result] !== undefined;
}

function isObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asItem(value: unknown): IDataObject {
	return isObject(value) ? value : { result: value as IDataObject[keyof IDataObject] };
}

export function shapeResult(
	method: MethodSpec,
	result: unknown,
	body: IDataObject,
	splitIntoItems = true,
): IDataObject[] {
	const listKey = LIST_KEYS[method.result];
	if (listKey !== undefined) {
		const list = Array.isArray(result) ? (result as unknown[]) : [];
		if (!splitIntoItems) return [{ [listKey]: list as IDataObject[] }];
		return list.map(asItem);
	}
	switch (method.result) {
		case 'true': {
			const flag = method.resultFlag ?? 'ok';
			if (typeof result === 'boolean') return [{ [flag]: result }];
			return [asItem(result)];
		}
		case 'count':
			return [{ count: result as number }];
		case 'messageId':
			return [isObject(result) ? { ...result, chat_id: body.chat_id } : { message_id: result as number, chat_id: body.chat_id }];
		default:
			return [asItem(result)];
	}
}
