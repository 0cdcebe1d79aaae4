import { startEmulator } from './index';
import type { ChatInfo, ChatMember, DemoData, Emulator, Message } from './index';
import { fails, ok, useEmulator } from './helpers';

let emu: Emulator;
let d: DemoData;
useEmulator((started) => {
	emu = started;
	d = started.demo;
});

describe('getChat', () => {
	it('returns id, type, title, username, description and members_count', async () => {
		const g = await ok<ChatInfo>(emu, 'getChat', { chat_id: d.groupChatId });
		expect(g).toMatchObject({ id: d.groupChatId, type: 'group', title: 'Demo Group', username: 'demo_group', members_count: 3 });
		expect(typeof g.description).toBe('string');
		const byName = await ok<ChatInfo>(emu, 'getChat', { chat_id: d.channelUsername });
		expect(byName).toMatchObject({ id: d.channelChatId, type: 'channel', title: 'Demo Channel' });
		const p = await ok<ChatInfo>(emu, 'getChat', { chat_id: d.privateChatId });
		expect(p).toMatchObject({ id: d.privateChatId, type: 'private', members_count: 2 });
		expect(p.title).toBeUndefined();
	});

	it('unknown chat 400, foreign chat 403', async () => {
		await fails(emu, 'getChat', { chat_id: '5b1e6a4e-0000-4000-8000-000000000000' }, 400, /chat not found/);
		await fails(emu, 'getChat', { chat_id: d.foreignChatId }, 403, /not a member/);
		await fails(emu, 'getChat', {}, 400, /chat_id/);
	});

	it('ids are UUIDs and deterministic across instances', async () => {
		const other = await startEmulator();
		try {
			expect(other.demo).toEqual(emu.demo);
		} finally {
			await other.close();
		}
		for (const id of [d.botId, d.userId, d.otherUserId, d.privateChatId, d.groupChatId, d.channelChatId, d.foreignChatId, ...Object.values(d.media)]) {
			expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
		}
		expect(new Set([d.privateChatId, d.userId, d.botId]).size).toBe(3);
	});
});

describe('members', () => {
	it('getChatMember returns {user, status, is_anonymous}', async () => {
		const m = await ok<ChatMember>(emu, 'getChatMember', { chat_id: d.groupChatId, user_id: d.userId });
		expect(m).toEqual({ user: { id: d.userId, is_bot: false, first_name: 'Demo', username: 'demo_user' }, status: 'member', is_anonymous: false });
		expect((await ok<ChatMember>(emu, 'getChatMember', { chat_id: d.groupChatId, user_id: d.otherUserId })).status).toBe('creator');
		expect((await ok<ChatMember>(emu, 'getChatMember', { chat_id: d.groupChatId, user_id: d.botId })).status).toBe('administrator');
	});

	it('a known user outside the chat is "left"; an unknown user is 400', async () => {
		const { userId } = emu.addUser({ firstName: 'Stranger' });
		expect((await ok<ChatMember>(emu, 'getChatMember', { chat_id: d.groupChatId, user_id: userId })).status).toBe('left');
		await fails(emu, 'getChatMember', { chat_id: d.groupChatId, user_id: '9e0f0000-0000-4000-8000-000000000000' }, 400, /user not found/);
		await fails(emu, 'getChatMember', { chat_id: d.groupChatId }, 400, /user_id/);
		await fails(emu, 'getChatMember', { chat_id: d.foreignChatId, user_id: d.userId }, 403);
	});

	it('getChatAdministrators lists creator and administrators', async () => {
		const admins = await ok<ChatMember[]>(emu, 'getChatAdministrators', { chat_id: d.groupChatId });
		expect(admins.map((a) => [a.user.id, a.status])).toEqual([
			[d.otherUserId, 'creator'],
			[d.botId, 'administrator'],
		]);
		await fails(emu, 'getChatAdministrators', { chat_id: d.foreignChatId }, 403);
		await fails(emu, 'getChatAdministrators', { chat_id: d.privateChatId }, 400);
	});

	it('getChatMemberCount is an integer that ignores left members', async () => {
		expect(await ok<number>(emu, 'getChatMemberCount', { chat_id: d.groupChatId })).toBe(3);
		emu.setMember({ chatId: d.groupChatId, userId: d.userId, status: 'left' });
		expect(await ok<number>(emu, 'getChatMemberCount', { chat_id: d.groupChatId })).toBe(2);
		await fails(emu, 'getChatMemberCount', { chat_id: d.foreignChatId }, 403);
	});

	it('addChat/addUser/addBot build new scenarios', async () => {
		const { userId } = emu.addUser({ firstName: 'Ann', username: 'ann' });
		const { chatId } = emu.addChat({
			type: 'group',
			title: 'Team',
			username: 'team_chat',
			members: [
				{ userId, status: 'creator' },
				{ userId: d.botId, status: 'member' },
			],
		});
		expect(await ok<ChatInfo>(emu, 'getChat', { chat_id: '@team_chat' })).toMatchObject({ id: chatId, title: 'Team', members_count: 2 });
		const token = '123:other-bot';
		const { botId } = emu.addBot({ token, name: 'Other Bot', username: 'other_bot' });
		await fails(emu, 'getChat', { chat_id: chatId }, 403, undefined, { token });
		emu.setMember({ chatId, userId: botId, status: 'administrator' });
		expect((await ok<ChatMember[]>(emu, 'getChatAdministrators', { chat_id: chatId }, { token })).map((m) => m.user.id)).toEqual([userId, botId]);
		expect(() => emu.addBot({ token, name: 'dup' })).toThrow();
	});
});

describe('pins', () => {
	it('pin, unpin and unpin all are reflected in history', async () => {
		const ids: number[] = [];
		for (const t of ['a', 'b', 'c']) ids.push((await ok<Message>(emu, 'sendMessage', { chat_id: d.groupChatId, text: t })).message_id);
		await expect(ok(emu, 'pinChatMessage', { chat_id: d.groupChatId, message_id: ids[0], disable_notification: true })).resolves.toBe(true);
		await ok(emu, 'pinChatMessage', { chat_id: d.groupChatId, message_id: ids[1] });
		await ok(emu, 'pinChatMessage', { chat_id: d.groupChatId, message_id: ids[2] });
		expect(emu.history(d.groupChatId).map((m) => m.pinned)).toEqual([true, true, true]);
		await expect(ok(emu, 'unpinChatMessage', { chat_id: d.groupChatId, message_id: ids[1] })).resolves.toBe(true);
		expect(emu.history(d.groupChatId).map((m) => m.pinned)).toEqual([true, false, true]);
		// without message_id: the most recent pin
		await ok(emu, 'unpinChatMessage', { chat_id: d.groupChatId });
		expect(emu.history(d.groupChatId).map((m) => m.pinned)).toEqual([true, false, false]);
		await ok(emu, 'pinChatMessage', { chat_id: d.groupChatId, message_id: ids[2] });
		await expect(ok(emu, 'unpinAllChatMessages', { chat_id: d.groupChatId })).resolves.toBe(true);
		expect(emu.history(d.groupChatId).some((m) => m.pinned)).toBe(false);
	});

	it('pin errors: missing message 400, foreign chat 403', async () => {
		await fails(emu, 'pinChatMessage', { chat_id: d.groupChatId, message_id: 5 }, 400, /not found/);
		await fails(emu, 'pinChatMessage', { chat_id: d.groupChatId }, 400, /message_id/);
		await fails(emu, 'pinChatMessage', { chat_id: d.foreignChatId, message_id: 1 }, 403);
		await fails(emu, 'unpinChatMessage', { chat_id: d.groupChatId, message_id: 9 }, 400, /not found/);
		await fails(emu, 'unpinAllChatMessages', { chat_id: d.foreignChatId }, 403);
	});

	it('a deleted message is no longer pinned', async () => {
		const m = await ok<Message>(emu, 'sendMessage', { chat_id: d.privateChatId, text: 'x' });
		await ok(emu, 'pinChatMessage', { chat_id: d.privateChatId, message_id: m.message_id });
		await ok(emu, 'deleteMessage', { chat_id: d.privateChatId, message_id: m.message_id });
		expect(emu.history(d.privateChatId)).toEqual([]);
	});
});
