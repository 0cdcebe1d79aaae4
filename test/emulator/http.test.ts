import { Agent, request as httpRequest } from 'node:http';
import { startEmulator } from './index';
import type { DemoData, Emulator, Message, RecordedCall, StoredMessage, Update } from './index';
import { call, fails, ok, startReceiver } from './helpers';

let emu: Emulator;
let d: DemoData;

beforeAll(async () => {
	emu = await startEmulator({ allowLocalWebhooks: true, webhookRetryBaseMs: 10 });
});
afterAll(async () => {
	await emu.close();
});
beforeEach(() => {
	emu.reset();
	d = emu.demo;
});

/** A raw request (no URL normalisation by a client library). */
function raw(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
	const u = new URL(emu.baseUrl);
	return new Promise((resolve, reject) => {
		const req = httpRequest({ host: u.hostname, port: u.port, method, path, headers }, (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (c: Buffer) => chunks.push(c));
			res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
		});
		req.on('error', reject);
		req.end(body);
	});
}

describe('the chat page', () => {
	it('GET / serves an HTML page that loads nothing from elsewhere and talks only to the control API', async () => {
		const page = await raw('GET', '/');
		expect(page.status).toBe(200);
		expect(page.text.startsWith('<!doctype html>')).toBe(true);
		expect(page.text).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i);
		const fetched = [...page.text.matchAll(/fetch\('([^']*)'/g)].map((match) => match[1]);
		expect(fetched).toEqual(['/_emulator']);
		// Any other path outside the Bot API stays a JSON 404.
		expect((await raw('GET', '/index.html')).status).toBe(404);
		expect((await raw('POST', '/')).status).toBe(404);
	});
});

describe('routing and envelope', () => {
	it('unknown token → 401 Unauthorized', async () => {
		await fails(emu, 'getMyName', {}, 401, /^Unauthorized$/, { token: '1:nope' });
	});

	it('unknown method → 404 "Not Found: method not found" (getMe is not part of the spec)', async () => {
		await fails(emu, 'sendSticker', {}, 404, /^Not Found: method not found$/);
		await fails(emu, 'getMe', {}, 404, /method not found/);
		const r = await raw('POST', `/bot${encodeURIComponent(d.token)}`);
		expect(r.status).toBe(404);
		const other = await raw('GET', '/something/else');
		expect(JSON.parse(other.text)).toMatchObject({ ok: false, error_code: 404 });
	});

	it('GET only for getUpdates and getWebhookInfo', async () => {
		await ok(emu, 'getUpdates', undefined, { httpMethod: 'GET' });
		await ok(emu, 'getWebhookInfo', undefined, { httpMethod: 'GET' });
		for (const m of ['sendMessage', 'getChat', 'getMyName', 'setWebhook', 'deleteWebhook']) {
			await fails(emu, m, undefined, 405, /POST/, { httpMethod: 'GET', query: `chat_id=${d.privateChatId}&text=x` });
		}
		expect(emu.history(d.privateChatId)).toEqual([]);
		await fails(emu, 'getUpdates', undefined, 405, undefined, { httpMethod: 'PUT' });
	});

	it('bodies: JSON, form-encoded, empty; invalid JSON and non-objects are 400', async () => {
		await ok(emu, 'getMyName');
		await ok(emu, 'getMyName', undefined, { raw: '' });
		const form = new URLSearchParams({
			chat_id: d.privateChatId,
			text: 'form text',
			disable_notification: 'true',
			reply_markup: JSON.stringify({ inline_keyboard: [[{ text: 'a', callback_data: 'a' }]] }),
		}).toString();
		const m = await ok<Message>(emu, 'sendMessage', undefined, { raw: form, contentType: 'application/x-www-form-urlencoded' });
		expect(m).toMatchObject({ text: 'form text', reply_markup: { inline_keyboard: [[{ text: 'a', callback_data: 'a' }]] } });
		expect(emu.history(d.privateChatId)[0].disable_notification).toBe(true);
		await fails(emu, 'sendMessage', undefined, 400, /JSON/, { raw: '{"chat_id": ' });
		await fails(emu, 'sendMessage', undefined, 400, /JSON object/, { raw: '[1,2]' });
		await fails(emu, 'getMyName', undefined, 400, undefined, { raw: 'null' });
	});

	it('method names are case-insensitive (as in Telegram) and recorded canonically', async () => {
		await ok(emu, 'SENDMESSAGE', { chat_id: d.privateChatId, text: 'x' });
		expect(emu.calls[0].method).toBe('sendMessage');
	});

	it('tokens with regex metacharacters are matched literally', async () => {
		const token = '1:a.b*c+d?e(f)[g]{h}|i^j$k\\';
		emu.addBot({ token, name: 'Meta' });
		expect(await ok(emu, 'getMyName', {}, { token })).toEqual({ name: 'Meta' });
		await fails(emu, 'getMyName', {}, 401, undefined, { token: '1:aXb*c+d?e(f)[g]{h}|i^j$k\\' });
		await fails(emu, 'getMyName', {}, 401, undefined, { token: '1:a.b*c+d?e(f)[g]{h}|i^j$k' });
		await fails(emu, 'getMyName', {}, 401, undefined, { token: '1:a.bbbc+d?e(f)[g]{h}|i^j$k\\' });
		expect(emu.callsTo('getMyName')[0].token).toBe(token);
		// unencoded in the raw path (all but "?" and "/" may appear literally)
		const literal = '2:a.b*c+d(e)[f]{g}|h^i$j\\k';
		emu.addBot({ token: literal, name: 'Literal' });
		const r = await raw('POST', `/bot${literal}/getMyName`, '{}', { 'content-type': 'application/json' });
		expect(JSON.parse(r.text)).toEqual({ ok: true, result: { name: 'Literal' } });
		expect(() => emu.addBot({ token: 'has/slash' })).toThrow();
	});

	it('records every Bot API call in order with status and response', async () => {
		await ok(emu, 'sendMessage', { chat_id: d.privateChatId, text: 'one' });
		await call(emu, 'sendMessage', { chat_id: d.foreignChatId, text: 'two' });
		await call(emu, 'getMyName', {}, { token: 'bad' });
		await fetch(`${emu.baseUrl}/_emulator/demo`);
		const calls: RecordedCall[] = emu.calls;
		expect(calls.map((c) => [c.seq, c.method, c.status])).toEqual([
			[1, 'sendMessage', 200],
			[2, 'sendMessage', 403],
			[3, 'getMyName', 401],
		]);
		expect(calls[0]).toMatchObject({ token: d.token, httpMethod: 'POST', body: { chat_id: d.privateChatId, text: 'one' }, response: { ok: true } });
		expect(typeof calls[0].at).toBe('number');
		expect(emu.callsTo('sendMessage')).toHaveLength(2);
		emu.reset();
		expect(emu.calls).toHaveLength(0);
	});
});

describe('in-process control API', () => {
	it('history shows what users see: sender, edits, deletions, reply markup, pins', async () => {
		const u = await emu.userSends({ chatId: d.groupChatId, userId: d.userId, text: 'hi bot' });
		const m = await ok<Message>(emu, 'sendMessage', { chat_id: d.groupChatId, text: 'hi human', reply_to_message_id: u.message?.message_id, reply_markup: { inline_keyboard: [[{ text: 'x', callback_data: 'x' }]] } });
		await ok(emu, 'editMessageText', { chat_id: d.groupChatId, message_id: m.message_id, text: 'edited', reply_markup: { inline_keyboard: [[{ text: 'y', callback_data: 'y' }]] } });
		await ok(emu, 'pinChatMessage', { chat_id: d.groupChatId, message_id: m.message_id });
		const gone = await ok<Message>(emu, 'sendMessage', { chat_id: d.groupChatId, text: 'gone' });
		await ok(emu, 'deleteMessage', { chat_id: d.groupChatId, message_id: gone.message_id });
		const h: StoredMessage[] = emu.history(d.groupChatId);
		expect(h).toHaveLength(2);
		expect(h[0]).toMatchObject({ message_id: 1, text: 'hi bot', from: { id: d.userId }, sent_by_bot: false, pinned: false });
		expect(h[1]).toMatchObject({ message_id: 2, text: 'edited', from: { id: d.botId }, sent_by_bot: true, pinned: true, reply_to_message_id: 1, reply_markup: { inline_keyboard: [[{ text: 'y', callback_data: 'y' }]] } });
		expect(typeof h[1].edit_date).toBe('number');
		expect(emu.history(d.groupUsername)).toHaveLength(2);
	});

	it('userSends rejects non-members and unknown chats', async () => {
		await expect(emu.userSends({ chatId: d.groupChatId, userId: emu.addUser({ firstName: 'X' }).userId, text: 'x' })).rejects.toThrow(/not a member/);
		await expect(emu.userSends({ chatId: 'nope', userId: d.userId, text: 'x' })).rejects.toThrow();
		await expect(emu.userSends({ chatId: d.foreignChatId, userId: d.userId, text: 'x' })).rejects.toThrow(/no bot/);
		await expect(emu.userSends({ chatId: d.channelChatId, userId: d.userId, text: 'x' })).rejects.toThrow(/channel/);
		const post = await emu.userSends({ chatId: d.channelUsername, userId: d.otherUserId, text: 'channel post' });
		expect(post.message).toMatchObject({ chat: { id: d.channelChatId, type: 'channel' }, from: { id: d.otherUserId } });
	});
});

describe('control API over HTTP', () => {
	const control = async <T>(method: string, path: string, body?: unknown): Promise<{ status: number; json: T }> => {
		const res = await fetch(`${emu.baseUrl}/_emulator${path}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		return { status: res.status, json: (await res.json()) as T };
	};

	it('covers demo, bots, users, chats, messages, clicks, history, calls, webhook, faults and reset', async () => {
		expect((await control<DemoData>('GET', '/demo')).json).toEqual(d);
		const { json: bot } = await control<{ botId: string }>('POST', '/bots', { token: '42:http-bot', name: 'Http Bot' });
		const { json: user } = await control<{ userId: string }>('POST', '/users', { firstName: 'Zed', username: 'zed' });
		const { json: chat } = await control<{ chatId: string }>('POST', '/chats', {
			type: 'group',
			title: 'Via HTTP',
			members: [
				{ userId: user.userId, status: 'creator' },
				{ userId: bot.botId, status: 'administrator' },
			],
		});
		const { json: upd } = await control<Update>('POST', '/messages', { chatId: chat.chatId, userId: user.userId, text: 'hello', botToken: '42:http-bot' });
		expect(upd).toMatchObject({ update_id: 1, message: { text: 'hello', chat: { id: chat.chatId } } });
		const sent = await ok<Message>(emu, 'sendMessage', { chat_id: chat.chatId, text: 'pick', reply_markup: { inline_keyboard: [[{ text: 'A', callback_data: 'a' }]] } }, { token: '42:http-bot' });
		const { json: click } = await control<Update>('POST', '/clicks', { chatId: chat.chatId, userId: user.userId, messageId: sent.message_id, data: 'a' });
		expect(click.callback_query).toMatchObject({ data: 'a', message: { message_id: sent.message_id } });
		const badClick = await control<{ error: string }>('POST', '/clicks', { chatId: chat.chatId, userId: user.userId, messageId: sent.message_id, data: 'zzz' });
		expect(badClick.status).toBe(400);
		expect(badClick.json.error).toMatch(/callback_data/);
		const { json: history } = await control<StoredMessage[]>('GET', `/chats/${chat.chatId}/history`);
		expect(history.map((m) => m.text)).toEqual(['hello', 'pick']);
		const { json: calls } = await control<RecordedCall[]>('GET', '/calls');
		expect(calls.map((c) => c.method)).toEqual(['sendMessage']);
		expect((await control<RecordedCall[]>('GET', '/calls?method=getChat')).json).toEqual([]);

		const rx = await startReceiver();
		try {
			await ok(emu, 'setWebhook', { url: rx.url, secret_token: 'abc' }, { token: '42:http-bot' });
			const { json: hook } = await control<{ url: string; secretToken: string; pendingUpdateCount: number }>('GET', `/webhook?token=${encodeURIComponent('42:http-bot')}`);
			expect(hook).toMatchObject({ url: rx.url, secretToken: 'abc', maxConnections: 40 });
			expect((await control<null>('GET', '/webhook')).json).toBeNull();
			await control('GET', '/idle');
			expect(rx.received).toHaveLength(2); // the pending message + callback updates
		} finally {
			await rx.close();
		}

		expect((await control('POST', '/faults', { kind: 'status', status: 429, retryAfter: 3 })).status).toBe(200);
		const limited = await call(emu, 'getMyName', {});
		expect(limited.body.parameters).toEqual({ retry_after: 3 });
		expect((await control('POST', '/faults', { kind: 'bogus' })).status).toBe(400);

		expect((await control('POST', '/reset')).status).toBe(200);
		await fails(emu, 'getMyName', {}, 401, undefined, { token: '42:http-bot' });
		expect((await control<RecordedCall[]>('GET', '/calls')).json).toHaveLength(1);
		expect((await control('GET', '/no/such/route')).status).toBe(404);
		expect((await control('GET', '/chats/unknown-chat/history')).status).toBe(404);
	});
});

describe('connections', () => {
	// A client (undici, n8n's HTTP helpers) keeps an idle connection about 4 s and reuses it. A server
	// that drops idle connections sooner races a reuse: under load the client sends on a connection the
	// server has just closed (ECONNRESET). Front servers such as nginx keep them 75 s.
	it('keeps an idle connection open longer than a client keeps it (a request 6 s after the last one on the same connection is answered)', async () => {
		const agent = new Agent({ keepAlive: true, maxSockets: 1 });
		const u = new URL(emu.baseUrl);
		const get = (): Promise<{ status: number; socket: unknown }> =>
			new Promise((resolve, reject) => {
				const req = httpRequest({ host: u.hostname, port: u.port, method: 'GET', path: `/bot${d.token}/getWebhookInfo`, agent }, (res) => {
					res.resume();
					res.on('end', () => resolve({ status: res.statusCode ?? 0, socket: req.socket }));
				});
				req.on('error', reject);
				req.end();
			});
		try {
			const first = await get();
			await new Promise((resolve) => setTimeout(resolve, 6_000));
			const second = await get();
			expect([first.status, second.status]).toEqual([200, 200]);
			expect(second.socket).toBe(first.socket);
		} finally {
			agent.destroy();
		}
	}, 15_000);
});
