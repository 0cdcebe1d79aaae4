import type { BotCommand, DemoData, Emulator, Message } from './index';
import { fails, ok, useEmulator } from './helpers';

let emu: Emulator;
let d: DemoData;
useEmulator((started) => {
	emu = started;
	d = started.demo;
});

describe('name, description, short description', () => {
	it('setMyName: 1 and 100 accepted; 0 and 101 rejected; getMyName reads it back per language', async () => {
		expect(await ok(emu, 'getMyName', {})).toEqual({ name: 'Demo Bot' });
		await expect(ok(emu, 'setMyName', { name: 'n'.repeat(100) })).resolves.toBe(true);
		expect(await ok(emu, 'getMyName')).toEqual({ name: 'n'.repeat(100) });
		await ok(emu, 'setMyName', { name: 'N' });
		await fails(emu, 'setMyName', { name: 'n'.repeat(101) }, 400, /too long/);
		await fails(emu, 'setMyName', { name: '' }, 400);
		await fails(emu, 'setMyName', {}, 400);
		await ok(emu, 'setMyName', { name: 'Der Bot', language_code: 'de' });
		expect(await ok(emu, 'getMyName', { language_code: 'de' })).toEqual({ name: 'Der Bot' });
		expect(await ok(emu, 'getMyName', { language_code: 'fr' })).toEqual({ name: 'N' });
		await fails(emu, 'setMyName', { name: 'x', language_code: 'not a code' }, 400, /language/);
	});

	it('setMyDescription: 512 accepted, 513 rejected, empty clears', async () => {
		expect(await ok(emu, 'getMyDescription')).toEqual({ description: '' });
		await ok(emu, 'setMyDescription', { description: 'd'.repeat(512) });
		expect(await ok(emu, 'getMyDescription')).toEqual({ description: 'd'.repeat(512) });
		await fails(emu, 'setMyDescription', { description: 'd'.repeat(513) }, 400, /too long/);
		await ok(emu, 'setMyDescription', { description: 'Hallo', language_code: 'de' });
		expect(await ok(emu, 'getMyDescription', { language_code: 'de' })).toEqual({ description: 'Hallo' });
		await ok(emu, 'setMyDescription', { description: '' });
		expect(await ok(emu, 'getMyDescription')).toEqual({ description: '' });
		await fails(emu, 'setMyDescription', { description: 5 }, 400);
	});

	it('setMyShortDescription: 120 accepted, 121 rejected', async () => {
		await ok(emu, 'setMyShortDescription', { short_description: 's'.repeat(120) });
		expect(await ok(emu, 'getMyShortDescription', {})).toEqual({ short_description: 's'.repeat(120) });
		await fails(emu, 'setMyShortDescription', { short_description: 's'.repeat(121) }, 400, /too long/);
		await ok(emu, 'setMyShortDescription', { short_description: 'kurz', language_code: 'de' });
		expect(await ok(emu, 'getMyShortDescription', { language_code: 'de' })).toEqual({ short_description: 'kurz' });
	});
});

describe('commands', () => {
	const cmds: BotCommand[] = [
		{ command: 'start', description: 'Start the bot' },
		{ command: 'help_me', description: 'Help' },
	];

	it('set, get per language_code, delete', async () => {
		expect(await ok(emu, 'getMyCommands', {})).toEqual([]);
		await expect(ok(emu, 'setMyCommands', { commands: cmds })).resolves.toBe(true);
		expect(await ok(emu, 'getMyCommands', {})).toEqual(cmds);
		await ok(emu, 'setMyCommands', { commands: [{ command: 'hilfe', description: 'Hilfe' }], language_code: 'de' });
		expect(await ok(emu, 'getMyCommands', { language_code: 'de' })).toEqual([{ command: 'hilfe', description: 'Hilfe' }]);
		expect(await ok(emu, 'getMyCommands', { language_code: '' })).toEqual(cmds);
		await expect(ok(emu, 'deleteMyCommands', { language_code: 'de' })).resolves.toBe(true);
		expect(await ok(emu, 'getMyCommands', { language_code: 'de' })).toEqual([]);
		await ok(emu, 'deleteMyCommands', { language_code: '' });
		expect(await ok(emu, 'getMyCommands')).toEqual([]);
	});

	it('accepts commands as a JSON string', async () => {
		await ok(emu, 'setMyCommands', { commands: JSON.stringify(cmds) });
		expect(await ok(emu, 'getMyCommands')).toEqual(cmds);
	});

	it('validates commands (Telegram limits: 1..32 of a-z0-9_, description 1..256, at most 100)', async () => {
		await ok(emu, 'setMyCommands', { commands: [{ command: 'c'.repeat(32), description: 'd'.repeat(256) }] });
		await fails(emu, 'setMyCommands', { commands: [{ command: 'c'.repeat(33), description: 'd' }] }, 400);
		await fails(emu, 'setMyCommands', { commands: [{ command: 'Start', description: 'd' }] }, 400);
		await fails(emu, 'setMyCommands', { commands: [{ command: '/start', description: 'd' }] }, 400);
		await fails(emu, 'setMyCommands', { commands: [{ command: 'ok', description: '' }] }, 400);
		await fails(emu, 'setMyCommands', { commands: [{ command: 'ok', description: 'd'.repeat(257) }] }, 400);
		const many = (n: number): BotCommand[] => Array.from({ length: n }, (_, i) => ({ command: `c${i}`, description: 'x' }));
		await ok(emu, 'setMyCommands', { commands: many(100) });
		await fails(emu, 'setMyCommands', { commands: many(101) }, 400);
		await fails(emu, 'setMyCommands', {}, 400);
		await fails(emu, 'setMyCommands', { commands: 'nope' }, 400);
	});
});

describe('callback queries', () => {
	async function clickable(): Promise<{ msg: Message; id: string }> {
		const msg = await ok<Message>(emu, 'sendMessage', {
			chat_id: d.privateChatId,
			text: 'choose',
			reply_markup: { inline_keyboard: [[{ text: 'Yes', callback_data: 'yes' }, { text: 'Web', url: 'https://example.com' }]] },
		});
		const u = await emu.userClicks({ chatId: d.privateChatId, userId: d.userId, messageId: msg.message_id, data: 'yes' });
		expect(u.callback_query).toMatchObject({ data: 'yes', from: { id: d.userId }, message: { message_id: msg.message_id, chat: { id: d.privateChatId } } });
		return { msg, id: u.callback_query?.id ?? '' };
	}

	it('userClicks queues a callback_query; answerCallbackQuery answers it once', async () => {
		const { id } = await clickable();
		const updates = await ok<Array<{ callback_query?: { id: string } }>>(emu, 'getUpdates', {});
		expect(updates.map((u) => u.callback_query?.id)).toEqual([id]);
		await expect(ok(emu, 'answerCallbackQuery', { callback_query_id: id, text: 'a'.repeat(200), show_alert: true, cache_time: 5 })).resolves.toBe(true);
		expect(emu.callbackAnswers()).toMatchObject([{ callback_query_id: id, text: 'a'.repeat(200), show_alert: true, cache_time: 5 }]);
		await fails(emu, 'answerCallbackQuery', { callback_query_id: id }, 400, /query is too old|query ID is invalid/);
	});

	it('answer text: 200 accepted (above), 201 rejected; unknown id 400', async () => {
		const { id } = await clickable();
		await fails(emu, 'answerCallbackQuery', { callback_query_id: id, text: 'a'.repeat(201) }, 400);
		await ok(emu, 'answerCallbackQuery', { callback_query_id: id, text: '' });
		await fails(emu, 'answerCallbackQuery', { callback_query_id: 'no-such-query' }, 400, /query ID is invalid/);
		await fails(emu, 'answerCallbackQuery', {}, 400, /callback_query_id/);
	});

	it("another bot cannot answer the demo bot's query", async () => {
		const { id } = await clickable();
		emu.addBot({ token: '55:other' });
		await fails(emu, 'answerCallbackQuery', { callback_query_id: id }, 400, undefined, { token: '55:other' });
	});

	it('userClicks checks that the message has a button with that callback_data', async () => {
		const { msg } = await clickable();
		await expect(emu.userClicks({ chatId: d.privateChatId, userId: d.userId, messageId: msg.message_id, data: 'no' })).rejects.toThrow(/callback_data/);
		await expect(emu.userClicks({ chatId: d.privateChatId, userId: d.userId, messageId: 99, data: 'yes' })).rejects.toThrow();
	});
});
