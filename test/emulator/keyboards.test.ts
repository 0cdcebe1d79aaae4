import type { DemoData, Emulator, Message } from './index';
import { fails, inlineKeyboard, ok, useEmulator } from './helpers';

let emu: Emulator;
let d: DemoData;
useEmulator((started) => {
	emu = started;
	d = started.demo;
});

const sendKb = (reply_markup: unknown): Promise<Message> => ok<Message>(emu, 'sendMessage', { chat_id: d.privateChatId, text: 'kb', reply_markup });
const rejectKb = (reply_markup: unknown, desc?: RegExp): Promise<unknown> => fails(emu, 'sendMessage', { chat_id: d.privateChatId, text: 'kb', reply_markup }, 400, desc);
const button = (extra: Record<string, unknown>): Record<string, unknown> => ({ inline_keyboard: [[{ text: 'B', ...extra }]] });

describe('inline keyboard grid limits', () => {
	it('rows: 100 accepted, 101 rejected', async () => {
		const m = await sendKb(inlineKeyboard(100, 1));
		expect(m.reply_markup?.inline_keyboard).toHaveLength(100);
		await rejectKb(inlineKeyboard(101, 1), /rows/);
	});

	it('buttons per row: 8 accepted, 9 and 0 rejected', async () => {
		await sendKb(inlineKeyboard(1, 8));
		await sendKb(inlineKeyboard(100, 8));
		await rejectKb(inlineKeyboard(1, 9), /buttons/);
		await rejectKb({ inline_keyboard: [[{ text: 'ok', callback_data: 'x' }], []] }, /empty/);
	});

	it('an empty inline_keyboard (no rows) is accepted, a non-array is not', async () => {
		await sendKb({ inline_keyboard: [] });
		await rejectKb({ inline_keyboard: 'nope' });
		await rejectKb({ inline_keyboard: ['nope'] });
	});
});

describe('inline buttons', () => {
	it('text: 128 accepted, 129, empty and missing rejected', async () => {
		await sendKb(button({ text: 't'.repeat(128), callback_data: 'x' }));
		await rejectKb(button({ text: 't'.repeat(129), callback_data: 'x' }), /too long/);
		await rejectKb(button({ text: '', callback_data: 'x' }));
		await rejectKb({ inline_keyboard: [[{ callback_data: 'x' }]] }, /text/);
		await rejectKb(button({ text: 5, callback_data: 'x' }));
	});

	it('callback_data: 1 and 64 bytes accepted; 0 and 65 rejected, counted in UTF-8 bytes', async () => {
		await sendKb(button({ callback_data: 'a' }));
		await sendKb(button({ callback_data: 'a'.repeat(64) }));
		await rejectKb(button({ callback_data: 'a'.repeat(65) }), /BUTTON_DATA_INVALID/);
		await rejectKb(button({ callback_data: '' }), /BUTTON_DATA_INVALID/);
		// 'é' is 2 bytes, '€' is 3 bytes, '😀' is 4 bytes (2 UTF-16 code units)
		await sendKb(button({ callback_data: 'é'.repeat(32) }));
		await rejectKb(button({ callback_data: `${'é'.repeat(32)}a` }), /BUTTON_DATA_INVALID/);
		await sendKb(button({ callback_data: `${'€'.repeat(21)}a` }));
		await rejectKb(button({ callback_data: '€'.repeat(22) }), /BUTTON_DATA_INVALID/);
		await sendKb(button({ callback_data: '😀'.repeat(16) }));
		await rejectKb(button({ callback_data: '😀'.repeat(17) }), /BUTTON_DATA_INVALID/);
		// 20 UTF-16 code units but 80 bytes
		expect('😀'.repeat(20).length).toBe(40);
		await rejectKb(button({ callback_data: '😀'.repeat(20) }));
	});

	it('exactly one of callback_data / url / switch_inline_query', async () => {
		await sendKb(button({ url: 'https://example.com/x' }));
		await sendKb(button({ switch_inline_query: '' }));
		await rejectKb(button({}), /exactly one/);
		await rejectKb(button({ callback_data: 'x', url: 'https://example.com' }), /exactly one/);
		await rejectKb(button({ url: 'https://example.com', switch_inline_query: 'q' }), /exactly one/);
	});

	it('url schemes: https, http and service: accepted; others rejected', async () => {
		await sendKb(button({ url: 'http://example.com' }));
		await sendKb(button({ url: 'service://chat/42' }));
		await rejectKb(button({ url: 'ftp://example.com' }), /URL/);
		await rejectKb(button({ url: 'javascript:alert(1)' }), /URL/);
		await rejectKb(button({ url: 'not a url' }), /URL/);
	});

	it('inline keyboard is echoed on the Message and kept in history', async () => {
		const kb = inlineKeyboard(2, 2);
		const m = await sendKb(kb);
		expect(m.reply_markup).toEqual(kb);
		expect(emu.history(d.privateChatId)[0].reply_markup).toEqual(kb);
	});
});

describe('other markups', () => {
	it('reply keyboard with resize/one_time, shown in history but not in the Message', async () => {
		const kb = { keyboard: [[{ text: 'Yes' }, { text: 'No' }], [{ text: 'Maybe' }]], resize_keyboard: true, one_time_keyboard: true };
		const m = await sendKb(kb);
		expect(m.reply_markup).toBeUndefined();
		expect(emu.history(d.privateChatId)[0].reply_markup).toEqual(kb);
		await rejectKb({ keyboard: [[{ text: '' }]] });
		await rejectKb({ keyboard: [] });
		await rejectKb({ keyboard: [[{ text: 'a' }]], resize_keyboard: 'yes' });
	});

	it('remove_keyboard and force_reply must be true', async () => {
		await sendKb({ remove_keyboard: true });
		await sendKb({ force_reply: true });
		await rejectKb({ remove_keyboard: false });
		await rejectKb({ force_reply: 'true' });
		await rejectKb({ something: 'else' });
		await rejectKb(42);
	});

	it('reply_markup may arrive as a JSON string', async () => {
		const kb = inlineKeyboard(1, 2);
		const m = await sendKb(JSON.stringify(kb));
		expect(m.reply_markup).toEqual(kb);
		await rejectKb('{not json', /parse/);
		await rejectKb(JSON.stringify(inlineKeyboard(1, 9)));
	});

	it('media methods and copyMessage validate reply_markup too', async () => {
		await fails(emu, 'sendPhoto', { chat_id: d.privateChatId, photo: d.media.photo, reply_markup: inlineKeyboard(101, 1) }, 400);
		const p = await ok<Message>(emu, 'sendPhoto', { chat_id: d.privateChatId, photo: d.media.photo, reply_markup: inlineKeyboard(1, 1) });
		await fails(emu, 'copyMessage', { chat_id: d.groupChatId, from_chat_id: d.privateChatId, message_id: p.message_id, reply_markup: inlineKeyboard(1, 9) }, 400);
	});

	it('edit methods accept only an inline keyboard', async () => {
		const m = await sendKb(inlineKeyboard(1, 1));
		const base = { chat_id: d.privateChatId, message_id: m.message_id };
		await fails(emu, 'editMessageReplyMarkup', { ...base, reply_markup: { keyboard: [[{ text: 'a' }]] } }, 400, /inline keyboard/);
		await fails(emu, 'editMessageText', { ...base, text: 'new', reply_markup: { remove_keyboard: true } }, 400, /inline keyboard/);
		await fails(emu, 'editMessageReplyMarkup', { ...base, reply_markup: inlineKeyboard(101, 1) }, 400);
		const e = await ok<Message>(emu, 'editMessageText', { ...base, text: 'new', reply_markup: inlineKeyboard(1, 2) });
		expect(e.reply_markup).toEqual(inlineKeyboard(1, 2));
	});

	it('editMessageText without reply_markup removes the inline keyboard (Telegram behaviour)', async () => {
		const m = await sendKb(inlineKeyboard(1, 1));
		const e = await ok<Message>(emu, 'editMessageText', { chat_id: d.privateChatId, message_id: m.message_id, text: 'plain now' });
		expect(e.reply_markup).toBeUndefined();
	});
});
