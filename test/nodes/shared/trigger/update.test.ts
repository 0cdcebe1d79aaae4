/** Reading an update on its own: what is an update, its type, its chat and user, tolerantly. */
import { parseUpdate } from '../../../../nodes/shared/trigger/update';

describe('parseUpdate', () => {
	test('a body is an update when it is an object with an integer update_id', () => {
		for (const body of [{}, [], null, 'x', { update_id: '7' }, { update_id: 1.5 }, { update_id: null }]) {
			expect(parseUpdate(body).ok).toBe(false);
		}
		expect(parseUpdate({ update_id: 7 })).toMatchObject({ ok: true, update: { updateId: 7, type: undefined } });
	});

	test('the type is the field holding an object; chat and user of messages and clicks are read', () => {
		const message = parseUpdate({ update_id: 1, message: { message_id: 3, chat: { id: 'C' }, from: { id: 'U', first_name: 'A' }, text: 'hi' } });
		expect(message).toMatchObject({ ok: true, update: { type: 'message', chatId: 'C', userId: 'U', messageId: 3, text: 'hi' } });
		const click = parseUpdate({ update_id: 2, callback_query: { id: 'q', from: { id: 'U' }, message: { message_id: 9, chat: { id: 'C' } }, data: 'd' } });
		expect(click).toMatchObject({
			ok: true,
			update: { type: 'callback_query', chatId: 'C', userId: 'U', messageId: 9, text: undefined, callbackData: 'd', callbackQueryId: 'q' },
		});
	});

	test('fields of an unexpected shape read as absent; the update is kept as received', () => {
		const body = { update_id: 3, message: { message_id: 'x', chat: { id: { nested: true } }, from: 'nobody', text: 5 } };
		const parsed = parseUpdate(body);
		expect(parsed).toMatchObject({ ok: true, update: { type: 'message', chatId: undefined, userId: undefined, messageId: undefined, text: undefined } });
		expect(parsed.ok && parsed.update.body).toBe(body);
		// Telegram-style integer ids are read as text; the user object is output as it came.
		const numeric = parseUpdate({ update_id: 4, message: { message_id: 1, chat: { id: -100 }, from: { id: 42 } } });
		expect(numeric).toMatchObject({ ok: true, update: { chatId: '-100', userId: '42', user: { id: 42 } } });
	});
});
