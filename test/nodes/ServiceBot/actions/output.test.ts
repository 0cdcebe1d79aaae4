/** The output shapes of the node's results: a flag for `true`, counts, message ids and lists. */
import type { IDataObject } from 'n8n-workflow';

import { shapeResult } from '../../../../nodes/ServiceBot/actions/output';
import { METHODS } from '../../../../nodes/ServiceBot/resources';

describe('shapeResult', () => {
	const shape = (name: string, result: unknown, body: IDataObject, splitIntoItems = true): IDataObject[] => {
		const found = METHODS.find((candidate) => candidate.name === name);
		if (!found) throw new Error(name);
		return shapeResult(found.output, result, body, splitIntoItems);
	};

	it('true results become a named flag', () => {
		expect(shape('deleteMessage', true, {})).toEqual([{ deleted: true }]);
		expect(shape('deleteMyCommands', true, {})).toEqual([{ deleted: true }]);
		expect(shape('deleteWebhook', true, {})).toEqual([{ deleted: true }]);
		expect(shape('pinChatMessage', true, {})).toEqual([{ pinned: true }]);
		expect(shape('unpinAllChatMessages', true, {})).toEqual([{ unpinned: true }]);
		expect(shape('sendChatAction', true, {})).toEqual([{ sent: true }]);
		expect(shape('answerCallbackQuery', true, {})).toEqual([{ answered: true }]);
		expect(shape('setMyName', true, {})).toEqual([{ updated: true }]);
		expect(shape('setWebhook', true, {})).toEqual([{ updated: true }]);
	});

	it('counts, message ids and lists', () => {
		expect(shape('getChatMemberCount', 7, {})).toEqual([{ count: 7 }]);
		expect(shape('copyMessage', { message_id: 4 }, { chat_id: '@x' })).toEqual([{ message_id: 4, chat_id: '@x' }]);
		expect(shape('getUpdates', [{ update_id: 1 }, { update_id: 2 }], {})).toEqual([{ update_id: 1 }, { update_id: 2 }]);
		expect(shape('getUpdates', [], {})).toEqual([]);
		expect(shape('getUpdates', [], {}, false)).toEqual([{ updates: [] }]);
		expect(shape('getChatAdministrators', [{ status: 'creator' }], {}, false)).toEqual([
			{ administrators: [{ status: 'creator' }] },
		]);
	});
});
