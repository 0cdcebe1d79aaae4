/** The triggers' shared core on its own: reading an update, the duplicate window. */
import { parseUpdate } from '../../nodes/shared/trigger/update';

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

describe('duplicate window', () => {
	type Duplicates = typeof import('../../nodes/shared/trigger/duplicates');

	/** A fresh copy of the module: what another n8n process would have in memory (nothing). */
	function freshProcess(): Duplicates {
		let loaded: Duplicates | undefined;
		jest.isolateModules(() => {
			loaded = jest.requireActual<Duplicates>('../../nodes/shared/trigger/duplicates');
		});
		if (!loaded) throw new Error('module not loaded');
		return loaded;
	}

	test('a copy reaching the same process is caught; another process knows nothing of it (n8n keeps no shared window)', () => {
		const proc = freshProcess();
		expect(proc.seenBefore('key', 20)).toBe(false);
		expect(proc.seenBefore('key', 20)).toBe(true);
		expect(freshProcess().seenBefore('key', 20)).toBe(false);
	});

	test('the window holds the last 1000 ids; older ones leave it', () => {
		const size = 1000;
		const proc = freshProcess();
		for (let id = 1; id <= size + 1; id++) expect(proc.seenBefore('key', id)).toBe(false);
		expect(proc.seenBefore('key', 1)).toBe(false);
		expect(proc.seenBefore('key', 3)).toBe(true);
		expect(proc.seenBefore('key', size + 1)).toBe(true);
	});

	test('windows of different triggers (or bots) are separate', () => {
		const proc = freshProcess();
		expect(proc.seenBefore('bot-a', 30)).toBe(false);
		expect(proc.seenBefore('bot-b', 30)).toBe(false);
		expect(proc.seenBefore('bot-a', 30)).toBe(true);
	});
});
