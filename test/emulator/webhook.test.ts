import { startEmulator } from './index';
import type { DemoData, Emulator, Message, Update, WebhookInfo } from './index';
import { fails, ok, sleep, startReceiver } from './helpers';
import { retryDelayMs } from './webhook';
import type { Receiver } from './helpers';

let emu: Emulator;
let d: DemoData;
let rx: Receiver;

beforeAll(async () => {
	emu = await startEmulator({ allowLocalWebhooks: true, webhookRetryBaseMs: 20 });
});
afterAll(async () => {
	await emu.close();
});
beforeEach(async () => {
	emu.reset();
	d = emu.demo;
	rx = await startReceiver();
});
afterEach(async () => {
	await rx.close();
});

const say = (text: string): Promise<Update> => emu.userSends({ chatId: d.privateChatId, userId: d.userId, text });

describe('setWebhook validation', () => {
	it('ports 443, 80, 8080, 8443 over https accepted; others rejected; http rejected', async () => {
		const strict = await startEmulator();
		try {
			for (const url of ['https://hooks.example.com/x', 'https://hooks.example.com:443/x', 'https://hooks.example.com:80/x', 'https://hooks.example.com:8080/x', 'https://hooks.example.com:8443/x']) {
				await ok(strict, 'setWebhook', { url });
				expect(strict.webhookOf()?.url).toBe(url);
				await ok(strict, 'deleteWebhook', {});
			}
			for (const url of ['https://hooks.example.com:88/x', 'https://hooks.example.com:8081/x', 'https://hooks.example.com:1/x']) {
				await fails(strict, 'setWebhook', { url }, 400, /ports/);
			}
			await fails(strict, 'setWebhook', { url: 'http://hooks.example.com/x' }, 400, /HTTPS/);
			await fails(strict, 'setWebhook', { url: rx.url }, 400, /HTTPS/); // local http is refused without allowLocalWebhooks
			await fails(strict, 'setWebhook', { url: 'not a url' }, 400);
			await fails(strict, 'setWebhook', {}, 400, /url/);
		} finally {
			await strict.close();
		}
	});

	it('allowLocalWebhooks accepts http://127.0.0.1 and http://localhost on any port', async () => {
		await ok(emu, 'setWebhook', { url: 'http://localhost:12345/a' });
		await ok(emu, 'setWebhook', { url: rx.url });
		await fails(emu, 'setWebhook', { url: 'http://example.com:12345/a' }, 400);
	});

	it('secret_token: 1 and 256 accepted; 0, 257 and bad characters rejected', async () => {
		await ok(emu, 'setWebhook', { url: rx.url, secret_token: 'a' });
		await ok(emu, 'setWebhook', { url: rx.url, secret_token: `${'aZ09_-'.repeat(42)}abcd` });
		expect(emu.webhookOf()?.secretToken).toHaveLength(256);
		await fails(emu, 'setWebhook', { url: rx.url, secret_token: 'a'.repeat(257) }, 400, /secret/);
		await fails(emu, 'setWebhook', { url: rx.url, secret_token: '' }, 400, /secret/);
		for (const bad of ['has space', 'dot.dot', 'slash/', 'ümlaut', 'plus+']) {
			await fails(emu, 'setWebhook', { url: rx.url, secret_token: bad }, 400, /secret/);
		}
	});

	it('max_connections: 1 and 100 accepted, 0 and 101 rejected, default 40', async () => {
		await ok(emu, 'setWebhook', { url: rx.url });
		expect(emu.webhookOf()?.maxConnections).toBe(40);
		await ok(emu, 'setWebhook', { url: rx.url, max_connections: 1 });
		await ok(emu, 'setWebhook', { url: rx.url, max_connections: 100 });
		expect((await ok<WebhookInfo>(emu, 'getWebhookInfo')).max_connections).toBe(100);
		await fails(emu, 'setWebhook', { url: rx.url, max_connections: 0 }, 400, /max_connections/);
		await fails(emu, 'setWebhook', { url: rx.url, max_connections: 101 }, 400, /max_connections/);
		await fails(emu, 'setWebhook', { url: rx.url, max_connections: '5' }, 400, /Integer/);
	});

	it('getWebhookInfo: url "" when none, the settings when set; setWebhook/deleteWebhook return true', async () => {
		expect(await ok<WebhookInfo>(emu, 'getWebhookInfo', {})).toMatchObject({ url: '', has_custom_certificate: false, pending_update_count: 0, last_error: null });
		expect(emu.webhookOf()).toBeNull();
		await expect(ok(emu, 'setWebhook', { url: rx.url, allowed_updates: ['message'], max_connections: 3, secret_token: 's3cret' })).resolves.toBe(true);
		expect(await ok<WebhookInfo>(emu, 'getWebhookInfo', undefined, { httpMethod: 'GET' })).toEqual({
			url: rx.url,
			has_custom_certificate: false,
			pending_update_count: 0,
			last_error: null,
			max_connections: 3,
			allowed_updates: ['message'],
		});
		await expect(ok(emu, 'deleteWebhook', {})).resolves.toBe(true);
		expect((await ok<WebhookInfo>(emu, 'getWebhookInfo')).url).toBe('');
		await expect(ok(emu, 'deleteWebhook', { drop_pending_updates: false })).resolves.toBe(true); // already deleted: still true
		// Telegram convention: setWebhook with an empty url removes the webhook
		await ok(emu, 'setWebhook', { url: rx.url });
		await ok(emu, 'setWebhook', { url: '' });
		expect(emu.webhookOf()).toBeNull();
		expect(() => emu.webhookOf('no-such-token')).toThrow();
	});
});

describe('push delivery', () => {
	it('POSTs each Update as JSON with the secret header', async () => {
		await ok(emu, 'setWebhook', { url: rx.url, secret_token: 'top_secret-1' });
		const u1 = await say('hello hook');
		const u2 = await say('second');
		await emu.idle();
		expect(rx.received.map((r) => r.body)).toEqual([u1, u2]);
		expect(rx.received[0].headers['x-service-bot-api-secret-token']).toBe('top_secret-1');
		expect(rx.received[0].headers['content-type']).toBe('application/json');
		expect(emu.webhookOf()).toMatchObject({ pendingUpdateCount: 0, lastError: null });
	});

	it("with telegramSecretHeader the secret also goes under Telegram's header name; without it, only under the service's", async () => {
		expect(rx.received).toHaveLength(0);
		await ok(emu, 'setWebhook', { url: rx.url, secret_token: 'plain' });
		await say('x');
		await emu.idle();
		expect(rx.received[0].headers['x-telegram-bot-api-secret-token']).toBeUndefined();
		const both = await startEmulator({ allowLocalWebhooks: true, telegramSecretHeader: true });
		try {
			await ok(both, 'setWebhook', { url: rx.url, secret_token: 'shared' });
			await both.userSends({ chatId: both.demo.privateChatId, userId: both.demo.userId, text: 'y' });
			await both.idle();
			expect(rx.received[1].headers['x-service-bot-api-secret-token']).toBe('shared');
			expect(rx.received[1].headers['x-telegram-bot-api-secret-token']).toBe('shared');
		} finally {
			await both.close();
		}
	});

	it('no secret header without a secret_token', async () => {
		await ok(emu, 'setWebhook', { url: rx.url });
		await say('x');
		await emu.idle();
		expect(rx.received).toHaveLength(1);
		expect(rx.received[0].headers['x-service-bot-api-secret-token']).toBeUndefined();
	});

	it('only allowed_updates types are pushed', async () => {
		await ok(emu, 'setWebhook', { url: rx.url, allowed_updates: ['callback_query'] });
		await say('ignored text');
		const m = await ok<Message>(emu, 'sendMessage', { chat_id: d.privateChatId, text: 'q', reply_markup: { inline_keyboard: [[{ text: 'go', callback_data: 'go' }]] } });
		await emu.userClicks({ chatId: d.privateChatId, userId: d.userId, messageId: m.message_id, data: 'go' });
		await emu.idle();
		expect(rx.received).toHaveLength(1);
		expect(rx.received[0].body.callback_query).toMatchObject({ data: 'go' });
		expect(rx.received[0].body.message).toBeUndefined();
	});

	it('retries after a 500 and records last_error', async () => {
		rx.respond = (_req, n) => (n === 1 ? 500 : 200);
		await ok(emu, 'setWebhook', { url: rx.url });
		const u = await say('retry me');
		await emu.idle();
		expect(rx.all.map((p) => p.status)).toEqual([500, 200]);
		expect(rx.received.map((p) => p.body)).toEqual([u]);
		expect(rx.all[1].at - rx.all[0].at).toBeGreaterThanOrEqual(15);
		const info = await ok<WebhookInfo>(emu, 'getWebhookInfo');
		expect(info.pending_update_count).toBe(0);
		expect(info.last_error).toMatchObject({ message: expect.stringMatching(/500/) as unknown });
		expect(info.last_error_message).toMatch(/500/);
		expect(typeof info.last_error_date).toBe('number');
	});

	it('webhookMaxAttempts (an optional extra limit) gives up after that many attempts, with exponential backoff', async () => {
		const limited = await startEmulator({ allowLocalWebhooks: true, webhookRetryBaseMs: 20, webhookMaxAttempts: 5 });
		try {
			rx.respond = () => 503;
			await ok(limited, 'setWebhook', { url: rx.url });
			await limited.userSends({ chatId: limited.demo.privateChatId, userId: limited.demo.userId, text: 'doomed' });
			await sleep(5);
			expect(limited.webhookOf()?.pendingUpdateCount).toBe(1);
			await limited.idle();
			expect(rx.all).toHaveLength(5);
			const gaps = rx.all.slice(1).map((p, i) => p.at - rx.all[i].at);
			expect(gaps[3]).toBeGreaterThan(gaps[0]);
			expect(gaps[3]).toBeGreaterThanOrEqual(150); // 20 * 2^3
			expect(limited.webhookOf()).toMatchObject({ pendingUpdateCount: 0, lastError: { message: expect.stringMatching(/503/) as unknown } });
		} finally {
			await limited.close();
		}
	});

	it('a refused connection is a network error kept in last_error; the update stays queued', async () => {
		await ok(emu, 'setWebhook', { url: 'http://127.0.0.1:9/closed' });
		await say('nobody listens');
		while (!emu.webhookOf()?.lastError) await sleep(5);
		expect(emu.webhookOf()?.lastError?.message).toMatch(/refused|Connection/i);
		expect((await ok<WebhookInfo>(emu, 'getWebhookInfo')).pending_update_count).toBe(1);
		await ok(emu, 'deleteWebhook', { drop_pending_updates: true });
		await emu.idle();
	});

	it('max_connections = 1: one push at a time, in update_id order, also across retries', async () => {
		rx.respond = async (_req, n) => {
			await sleep(15);
			return n === 2 ? 500 : 200;
		};
		await ok(emu, 'setWebhook', { url: rx.url, max_connections: 1 });
		const sent: number[] = [];
		for (let i = 0; i < 5; i += 1) sent.push((await say(`m${i}`)).update_id);
		await emu.idle();
		expect(rx.maxConcurrent).toBe(1);
		expect(rx.received.map((r) => r.body.update_id)).toEqual(sent);
	});

	it('max_connections = 3 is respected and used', async () => {
		rx.respond = async () => {
			await sleep(40);
			return 200;
		};
		await ok(emu, 'setWebhook', { url: rx.url, max_connections: 3 });
		for (let i = 0; i < 10; i += 1) await say(`m${i}`);
		await emu.idle();
		expect(rx.received).toHaveLength(10);
		expect(rx.maxConcurrent).toBe(3);
	});

	it('drop_pending_updates on setWebhook empties the queue', async () => {
		await say('old 1');
		await say('old 2');
		await ok(emu, 'setWebhook', { url: rx.url, drop_pending_updates: true });
		await emu.idle();
		expect(rx.all).toHaveLength(0);
		await say('new');
		await emu.idle();
		expect(rx.received.map((r) => (r.body.message as { text: string }).text)).toEqual(['new']);
	});

	it('updates queued before setWebhook are pushed once it is set', async () => {
		await say('waiting');
		await ok(emu, 'setWebhook', { url: rx.url });
		await emu.idle();
		expect(rx.received).toHaveLength(1);
	});

	it('deleteWebhook stops pushing; getUpdates then returns what was still pending', async () => {
		let release: () => void = () => undefined;
		const gate = new Promise<void>((r) => {
			release = r;
		});
		rx.respond = async () => {
			await gate;
			return 500;
		};
		await ok(emu, 'setWebhook', { url: rx.url, max_connections: 1 });
		await say('stuck');
		await say('behind');
		await sleep(30);
		expect(emu.webhookOf()?.pendingUpdateCount).toBe(2);
		await ok(emu, 'deleteWebhook', {});
		release();
		await emu.idle();
		expect(rx.all).toHaveLength(1);
		const got = await ok<Update[]>(emu, 'getUpdates', {});
		expect(got.map((u) => u.message?.text)).toEqual(['stuck', 'behind']);
	});

	it('deleteWebhook with drop_pending_updates empties the queue', async () => {
		rx.respond = () => 500;
		await ok(emu, 'setWebhook', { url: rx.url });
		await say('x');
		await ok(emu, 'deleteWebhook', { drop_pending_updates: true });
		await emu.idle();
		expect(await ok<Update[]>(emu, 'getUpdates', {})).toEqual([]);
	});

	it('pushes of each bot go to its own webhook', async () => {
		const rx2 = await startReceiver('/two');
		try {
			const token = '777:second';
			const { botId } = emu.addBot({ token });
			emu.setMember({ chatId: d.groupChatId, userId: botId, status: 'member' });
			await ok(emu, 'setWebhook', { url: rx.url });
			await ok(emu, 'setWebhook', { url: rx2.url, secret_token: 'two' }, { token });
			await emu.userSends({ chatId: d.groupChatId, userId: d.userId, text: 'to both' });
			await emu.idle();
			expect(rx.received).toHaveLength(1);
			expect(rx2.received).toHaveLength(1);
			expect(rx2.received[0].headers['x-service-bot-api-secret-token']).toBe('two');
			expect(emu.webhookOf(token)?.url).toBe(rx2.url);
		} finally {
			await rx2.close();
		}
	});
});

describe('undelivered updates are kept and retried (Telegram: for 24 hours)', () => {
	const updateIdOf = (p: { body: Record<string, unknown> }): number => p.body.update_id as number;

	it('the retry interval doubles from the base up to the cap: base · 2^(n − 1), at most the cap (defaults 500 ms and 1 minute)', () => {
		expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => retryDelayMs(10, 40, n))).toEqual([10, 20, 40, 40, 40, 40, 40, 40]);
		expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => retryDelayMs(500, 60_000, n))).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000]);
		expect(retryDelayMs(500, 60_000, 5000)).toBe(60_000); // a day of failures: still the cap, never Infinity or NaN
	});

	it('a listener down for 12 attempts (more than the old limit of 5) gets every update once it is back, in order; pending_update_count counts them all meanwhile', async () => {
		const patient = await startEmulator({ allowLocalWebhooks: true, webhookRetryBaseMs: 5, webhookRetryMaxMs: 20 });
		try {
			const demo = patient.demo;
			const sent: number[] = [];
			for (const text of ['first', 'second', 'third']) sent.push((await patient.userSends({ chatId: demo.privateChatId, userId: demo.userId, text })).update_id);
			// What getWebhookInfo says while the listener is down: at the 1st, 6th and 12th failed push.
			const whileDown: Array<{ n: number; pending: number; error?: string }> = [];
			rx.respond = async (_req, n) => {
				if (n > 12) return 200;
				if (n === 1 || n === 6 || n === 12) {
					const info = await ok<WebhookInfo>(patient, 'getWebhookInfo');
					whileDown.push({ n, pending: info.pending_update_count, error: info.last_error_message });
				}
				return 503;
			};
			await ok(patient, 'setWebhook', { url: rx.url, max_connections: 1 });
			await patient.idle();

			expect(whileDown).toEqual([
				{ n: 1, pending: 3, error: undefined },
				{ n: 6, pending: 3, error: 'Wrong response from the webhook: 503 Service Unavailable' },
				{ n: 12, pending: 3, error: 'Wrong response from the webhook: 503 Service Unavailable' },
			]);
			// head of line: the first update was retried 12 times, the others waited behind it
			expect(rx.all.map(updateIdOf)).toEqual([...Array<number>(13).fill(sent[0]), sent[1], sent[2]]);
			expect(rx.received.map(updateIdOf)).toEqual(sent);
			const info = await ok<WebhookInfo>(patient, 'getWebhookInfo');
			expect(info.pending_update_count).toBe(0);
			expect(info.last_error_message).toMatch(/503/); // kept until the next setWebhook
		} finally {
			await patient.close();
		}
	});

	it('the intervals between attempts grow from the base and stop growing at the cap', async () => {
		const patient = await startEmulator({ allowLocalWebhooks: true, webhookRetryBaseMs: 10, webhookRetryMaxMs: 40 });
		try {
			rx.respond = (_req, n) => (n <= 7 ? 500 : 200);
			await ok(patient, 'setWebhook', { url: rx.url });
			const u = await patient.userSends({ chatId: patient.demo.privateChatId, userId: patient.demo.userId, text: 'again and again' });
			await patient.idle();
			expect(rx.all.map((p) => p.status)).toEqual([500, 500, 500, 500, 500, 500, 500, 200]);
			expect(rx.received.map(updateIdOf)).toEqual([u.update_id]);
			const gaps = rx.all.slice(1).map((p, i) => p.at - rx.all[i].at);
			const expected = [1, 2, 3, 4, 5, 6, 7].map((n) => retryDelayMs(10, 40, n)); // 10, 20, 40, 40, 40, 40, 40
			// lower bounds only (1 ms for the clock's rounding); a loaded machine may wait longer
			gaps.forEach((gap, i) => expect({ i, gap, atLeast: gap >= expected[i] - 1 }).toEqual({ i, gap, atLeast: true }));
		} finally {
			await patient.close();
		}
	});

	it('an update older than the retention is dropped (not retried again), and the one behind it is delivered', async () => {
		const retentionMs = 500;
		const short = await startEmulator({ allowLocalWebhooks: true, webhookRetryBaseMs: 5, webhookRetryMaxMs: 20, webhookRetentionMs: retentionMs });
		try {
			const demo = short.demo;
			const send = (text: string): Promise<Update> => short.userSends({ chatId: demo.privateChatId, userId: demo.userId, text });
			await ok(short, 'setWebhook', { url: rx.url, max_connections: 1 });
			let behind: Update | undefined;
			let pendingAtFirstPush = -1;
			// The listener holds the first push longer than the retention, queues a second update, then fails the first.
			rx.respond = async (_req, n) => {
				if (n > 1) return 200;
				pendingAtFirstPush = (await ok<WebhookInfo>(short, 'getWebhookInfo')).pending_update_count;
				await sleep(retentionMs + 20);
				behind = await send('fresh');
				return 503;
			};
			const old = await send('stale');
			await short.idle();

			expect(pendingAtFirstPush).toBe(1);
			// the stale update had one attempt (it was older than the retention when it failed); the fresh one came next
			expect(rx.all.map((p) => [updateIdOf(p), p.status])).toEqual([
				[old.update_id, 503],
				[behind?.update_id, 200],
			]);
			expect(rx.received.map(updateIdOf)).toEqual([behind?.update_id]);
			expect(short.webhookOf()).toMatchObject({ pendingUpdateCount: 0, lastError: { message: expect.stringMatching(/503/) as unknown } });
			await ok(short, 'deleteWebhook', {});
			expect(await ok<Update[]>(short, 'getUpdates', {})).toEqual([]); // not kept for polling either
		} finally {
			await short.close();
		}
	});

	it('a listener that never answers 2xx: the update is retried until it is older than the retention, then dropped (no attempt limit)', async () => {
		const retentionMs = 300;
		const short = await startEmulator({ allowLocalWebhooks: true, webhookRetryBaseMs: 5, webhookRetryMaxMs: 20, webhookRetentionMs: retentionMs });
		try {
			rx.respond = () => 503;
			await ok(short, 'setWebhook', { url: rx.url });
			const queuedBy = Date.now();
			const u = await short.userSends({ chatId: short.demo.privateChatId, userId: short.demo.userId, text: 'nobody takes it' });
			expect(short.webhookOf()?.pendingUpdateCount).toBe(1);
			await short.idle(); // resolves once the update is dropped
			expect(Date.now() - queuedBy).toBeGreaterThanOrEqual(retentionMs - 1);
			expect(rx.all.length).toBeGreaterThanOrEqual(1);
			expect(new Set(rx.all.map(updateIdOf))).toEqual(new Set([u.update_id]));
			expect(rx.received).toEqual([]);
			expect(short.webhookOf()).toMatchObject({ pendingUpdateCount: 0, lastError: { message: expect.stringMatching(/503/) as unknown } });
			expect(short.pendingUpdates()).toEqual([]);
		} finally {
			await short.close();
		}
	});
});
