/**
 * What Telegram's server does where the spec leaves room, and the emulator does too, so that the
 * nodes' tests can fail on it: a click on an old message carries only what the spec promises
 * (`message_id` and `chat.id`), a bot can get a new token, and a push answered too late is pushed again.
 */
import { startEmulator } from './index';
import type { Emulator, Update } from './index';
import { fails, ok, startReceiver } from './helpers';

let emu: Emulator;

afterEach(async () => {
	await emu?.close();
});

async function questionWithButton(chatId: string): Promise<number> {
	const sent = await ok<{ message_id: number }>(emu, 'sendMessage', {
		chat_id: chatId,
		text: 'Question',
		reply_markup: { inline_keyboard: [[{ text: 'Yes', callback_data: 'yes' }]] },
	});
	return sent.message_id;
}

describe('a click on an old message', () => {
	it('with oldMessages, a click carries only message_id, date 0 and the chat (id and type), as Telegram gives an inaccessible message', async () => {
		emu = await startEmulator({ oldMessages: true });
		const { privateChatId, userId } = emu.demo;
		const messageId = await questionWithButton(privateChatId);
		const update = await emu.userClicks({ chatId: privateChatId, userId, messageId, data: 'yes' });
		expect(update.callback_query?.message).toEqual({ message_id: messageId, date: 0, chat: { id: privateChatId, type: 'private' } });
		expect(update.callback_query?.data).toBe('yes');
		const [fetched] = await ok<Update[]>(emu, 'getUpdates', {});
		expect(fetched.callback_query?.message).toEqual({ message_id: messageId, date: 0, chat: { id: privateChatId, type: 'private' } });
	});

	it('per click: oldMessage strips that click only; other clicks carry the whole message with its keyboard', async () => {
		emu = await startEmulator({});
		const { privateChatId, userId } = emu.demo;
		const messageId = await questionWithButton(privateChatId);
		const old = await emu.userClicks({ chatId: privateChatId, userId, messageId, data: 'yes', oldMessage: true });
		const recent = await emu.userClicks({ chatId: privateChatId, userId, messageId, data: 'yes' });
		expect(old.callback_query?.message).toEqual({ message_id: messageId, date: 0, chat: { id: privateChatId, type: 'private' } });
		expect(recent.callback_query?.message).toMatchObject({ message_id: messageId, text: 'Question', reply_markup: { inline_keyboard: [[{ text: 'Yes', callback_data: 'yes' }]] } });
	});
});

describe('a new bot token', () => {
	it('the old token is refused with 401, the new one works; the webhook, its secret and the chats stay', async () => {
		emu = await startEmulator({ allowLocalWebhooks: true, webhookRetryBaseMs: 5 });
		const receiver = await startReceiver();
		try {
			const { token, privateChatId, userId } = emu.demo;
			await ok(emu, 'setWebhook', { url: receiver.url, secret_token: 'kept-secret' });
			emu.changeToken(token, '7000000001:new-token-after-a-leak');
			await fails(emu, 'getWebhookInfo', {}, 401, /Unauthorized/, { token });
			expect(await ok<{ url: string }>(emu, 'getWebhookInfo', {}, { token: '7000000001:new-token-after-a-leak' })).toMatchObject({ url: receiver.url });
			await emu.userSends({ chatId: privateChatId, userId, text: 'still here' });
			await emu.idle();
			expect(receiver.received).toHaveLength(1);
			expect(receiver.received[0].headers['x-service-bot-api-secret-token']).toBe('kept-secret');
			expect(await ok(emu, 'sendMessage', { chat_id: privateChatId, text: 'hi' }, { token: '7000000001:new-token-after-a-leak' })).toMatchObject({ text: 'hi' });
		} finally {
			await receiver.close();
		}
	});
});

describe('a push answered too late', () => {
	it('is pushed again (the receiver may then get the same update twice)', async () => {
		emu = await startEmulator({ allowLocalWebhooks: true, webhookRetryBaseMs: 5, webhookTimeoutMs: 100 });
		const receiver = await startReceiver();
		// The first push is answered only once the emulator has pushed the update again.
		let release: () => void = () => {};
		const held = new Promise<void>((resolve) => (release = resolve));
		receiver.respond = async (_req, n) => {
			if (n === 1) await held;
			else release();
			return 200;
		};
		try {
			await ok(emu, 'setWebhook', { url: receiver.url });
			const update = await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'once' });
			while (receiver.all.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
			expect(receiver.all.map((push) => push.body.update_id)).toEqual([update.update_id, update.update_id]);
		} finally {
			release();
			await receiver.close();
		}
	});
});
