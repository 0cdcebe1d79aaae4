import { startEmulator } from './index';
import type { DemoData, Emulator, Update } from './index';
import { call, fails, ok, sleep } from './helpers';

let emu: Emulator;
let d: DemoData;

beforeAll(async () => {
	emu = await startEmulator({ allowLocalWebhooks: true });
});
afterAll(async () => {
	await emu.close();
});
beforeEach(() => {
	emu.reset();
	d = emu.demo;
});

async function userSays(...texts: string[]): Promise<Update[]> {
	const out: Update[] = [];
	for (const text of texts) out.push(await emu.userSends({ chatId: d.privateChatId, userId: d.userId, text }));
	return out;
}
const getUpdates = (body: Record<string, unknown> = {}): Promise<Update[]> => ok<Update[]>(emu, 'getUpdates', body);

describe('getUpdates offset semantics', () => {
	it('without offset the same pending updates come back; offset N acknowledges every id < N', async () => {
		const sent = await userSays('one', 'two', 'three');
		expect(sent.map((u) => u.update_id)).toEqual([1, 2, 3]);
		const first = await getUpdates();
		expect(first.map((u) => u.message?.text)).toEqual(['one', 'two', 'three']);
		expect(first[0].message).toMatchObject({ message_id: 1, chat: { id: d.privateChatId, type: 'private' }, from: { id: d.userId, is_bot: false, first_name: 'Demo' } });
		expect((await getUpdates()).map((u) => u.update_id)).toEqual([1, 2, 3]);
		expect((await getUpdates({ offset: 3 })).map((u) => u.update_id)).toEqual([3]);
		// acknowledged ones never come back, even without offset
		expect((await getUpdates()).map((u) => u.update_id)).toEqual([3]);
		expect(await getUpdates({ offset: 4 })).toEqual([]);
		expect(await getUpdates()).toEqual([]);
		await userSays('four');
		expect((await getUpdates()).map((u) => u.update_id)).toEqual([4]);
	});

	it('negative offset keeps only the last -offset updates', async () => {
		await userSays('a', 'b', 'c');
		expect((await getUpdates({ offset: -1 })).map((u) => u.message?.text)).toEqual(['c']);
		expect((await getUpdates()).map((u) => u.message?.text)).toEqual(['c']);
	});

	it('update ids are per bot and increasing', async () => {
		const token = '900:second';
		const { botId } = emu.addBot({ token });
		emu.setMember({ chatId: d.groupChatId, userId: botId, status: 'member' });
		await emu.userSends({ chatId: d.privateChatId, userId: d.userId, text: 'only demo bot' });
		await emu.userSends({ chatId: d.groupChatId, userId: d.userId, text: 'both bots' });
		expect((await getUpdates()).map((u) => [u.update_id, u.message?.text])).toEqual([
			[1, 'only demo bot'],
			[2, 'both bots'],
		]);
		const second = await ok<Update[]>(emu, 'getUpdates', {}, { token });
		expect(second.map((u) => [u.update_id, u.message?.text])).toEqual([[1, 'both bots']]);
	});
});

describe('getUpdates limits and types', () => {
	it('limit: 1 and 100 accepted, 0 and 101 rejected; default 100', async () => {
		for (let i = 0; i < 101; i += 1) await emu.userSends({ chatId: d.privateChatId, userId: d.userId, text: `m${i}` });
		expect(await getUpdates({ limit: 1 })).toHaveLength(1);
		expect(await getUpdates({ limit: 100 })).toHaveLength(100);
		expect(await getUpdates()).toHaveLength(100);
		await fails(emu, 'getUpdates', { limit: 0 }, 400, /limit/);
		await fails(emu, 'getUpdates', { limit: 101 }, 400, /limit/);
	});

	it('timeout: 0 and 50 accepted, -1 and 51 rejected', async () => {
		await userSays('ready');
		expect(await getUpdates({ timeout: 0 })).toHaveLength(1);
		expect(await getUpdates({ timeout: 50 })).toHaveLength(1); // an update is pending: answered at once
		await fails(emu, 'getUpdates', { timeout: -1 }, 400, /timeout/);
		await fails(emu, 'getUpdates', { timeout: 51 }, 400, /timeout/);
	});

	it('wrong types are 400 in JSON; GET query strings are coerced', async () => {
		await fails(emu, 'getUpdates', { offset: '1' }, 400, /Integer/);
		await fails(emu, 'getUpdates', { limit: 1.5 }, 400, /Integer/);
		await fails(emu, 'getUpdates', { allowed_updates: 'message' }, 400);
		await fails(emu, 'getUpdates', { allowed_updates: [1] }, 400);
		await userSays('x', 'y');
		const viaGet = await ok<Update[]>(emu, 'getUpdates', undefined, { httpMethod: 'GET', query: 'limit=1&timeout=0' });
		expect(viaGet).toHaveLength(1);
		await fails(emu, 'getUpdates', undefined, 400, /Integer/, { httpMethod: 'GET', query: 'offset=abc' });
		const viaForm = await ok<Update[]>(emu, 'getUpdates', undefined, { raw: 'offset=2', contentType: 'application/x-www-form-urlencoded' });
		expect(viaForm.map((u) => u.update_id)).toEqual([2]);
	});

	it('allowed_updates filters update types (persistent, as Telegram)', async () => {
		await getUpdates({ allowed_updates: ['callback_query'] });
		await userSays('not wanted');
		expect(await getUpdates()).toEqual([]);
		expect(emu.pendingUpdates()).toEqual([]);
		await getUpdates({ allowed_updates: JSON.stringify(['message']) });
		await userSays('wanted');
		expect((await getUpdates()).map((u) => u.message?.text)).toEqual(['wanted']);
		await getUpdates({ allowed_updates: [] }); // empty list = all types
		await userSays('also');
		expect((await getUpdates()).map((u) => u.message?.text)).toEqual(['wanted', 'also']);
	});
});

/**
 * A long poll of the spec's longest timeout (50 s) outlasts a test's time limit (30 s): when such a
 * poll is answered within a test, something other than its timeout answered it.
 */
const LONGEST_POLL = { timeout: 50 };

/** Resolves with whether `promise` has settled, once the already queued callbacks have run. */
async function hasSettled(promise: Promise<unknown>): Promise<boolean> {
	let settled = false;
	void promise.then(
		() => (settled = true),
		() => (settled = true),
	);
	await sleep(0);
	return settled;
}

describe('long polling', () => {
	it('a held request is answered by a new update, not by its timeout', async () => {
		const poll = getUpdates(LONGEST_POLL);
		await sleep(200);
		expect(await hasSettled(poll)).toBe(false);
		const [update] = await userSays('wake up');
		expect((await poll).map((u) => u.update_id)).toEqual([update.update_id]);
	});

	it('answers [] when the timeout expires, not before', async () => {
		const t0 = Date.now();
		expect(await getUpdates({ timeout: 1 })).toEqual([]);
		expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
	});

	it('longPollMaxMs caps the wait', async () => {
		const quick = await startEmulator({ longPollMaxMs: 100 });
		try {
			expect(await ok(quick, 'getUpdates', LONGEST_POLL)).toEqual([]);
		} finally {
			await quick.close();
		}
	});

	it('an update filtered out by allowed_updates does not end the wait', async () => {
		const quick = await startEmulator({ longPollMaxMs: 300 });
		try {
			const qd = quick.demo;
			const t0 = Date.now();
			const poll = ok<Update[]>(quick, 'getUpdates', { timeout: 5, allowed_updates: ['callback_query'] });
			await sleep(50);
			await quick.userSends({ chatId: qd.privateChatId, userId: qd.userId, text: 'ignored' });
			expect(await poll).toEqual([]);
			expect(Date.now() - t0).toBeGreaterThanOrEqual(280);
		} finally {
			await quick.close();
		}
	});

	it('a client that gives up does not consume updates', async () => {
		const ac = new AbortController();
		const poll = call(emu, 'getUpdates', { timeout: 5 }, { signal: ac.signal });
		await sleep(50);
		ac.abort();
		await expect(poll).rejects.toThrow();
		await sleep(20);
		await userSays('after abort');
		expect((await getUpdates({ timeout: 5 })).map((u) => u.message?.text)).toEqual(['after abort']);
		expect(emu.calls[0].status).toBe(0); // never answered
	});

	it('reset() and close() answer a waiting getUpdates with []', async () => {
		const poll = getUpdates(LONGEST_POLL);
		await sleep(50);
		emu.reset();
		expect(await poll).toEqual([]);
		const other = await startEmulator();
		const pending = ok<Update[]>(other, 'getUpdates', LONGEST_POLL).catch((e: unknown) => e);
		await sleep(50);
		await other.close();
		expect(await pending).toEqual([]);
	});

	it('a second getUpdates terminates the first with 409', async () => {
		const first = call(emu, 'getUpdates', { timeout: 5 });
		await sleep(50);
		const second = getUpdates({ timeout: 5 });
		const r1 = await first;
		expect(r1.status).toBe(409);
		expect(r1.body.description).toMatch(/terminated by other getUpdates request/);
		await userSays('for the second');
		expect((await second).map((u) => u.message?.text)).toEqual(['for the second']);
	});

	it('a getUpdates answered at once (timeout 0) also terminates a waiting one with 409', async () => {
		const first = call(emu, 'getUpdates', { timeout: 5 });
		await sleep(50);
		expect(await getUpdates({ timeout: 0 })).toEqual([]);
		const r1 = await first;
		expect(r1.status).toBe(409);
		expect(r1.body.description).toMatch(/terminated by other getUpdates request/);
	});

	it('setWebhook ends a waiting getUpdates with 409 and getUpdates conflicts while the webhook is set', async () => {
		const waiting = call(emu, 'getUpdates', { timeout: 5 });
		await sleep(50);
		await ok(emu, 'setWebhook', { url: 'http://127.0.0.1:9/never' });
		const r = await waiting;
		expect(r.status).toBe(409);
		await fails(emu, 'getUpdates', {}, 409, /^Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first$/);
		await ok(emu, 'deleteWebhook', {});
		expect(await getUpdates()).toEqual([]);
	});
});
