import type { DemoData, Emulator, Message } from './index';
import { call, methodUrl, ok, sleep, useEmulator } from './helpers';

let emu: Emulator;
let d: DemoData;
useEmulator((started) => {
	emu = started;
	d = started.demo;
});

const post = (method: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<Response> =>
	fetch(methodUrl(emu, method), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal });

async function waitUntil(condition: () => boolean): Promise<void> {
	while (!condition()) await sleep(5);
}

describe('injectFault', () => {
	it("'status' 429 answers the error envelope with retry_after (default 1) and does not execute", async () => {
		emu.injectFault({ kind: 'status', status: 429 });
		const r = await call(emu, 'sendMessage', { chat_id: d.privateChatId, text: 'x' });
		expect(r.status).toBe(429);
		expect(r.body).toEqual({ ok: false, error_code: 429, description: 'Too Many Requests: retry after 1', parameters: { retry_after: 1 } });
		expect(emu.history(d.privateChatId)).toEqual([]);
		// only the next call was affected
		await ok(emu, 'sendMessage', { chat_id: d.privateChatId, text: 'x' });
		expect(emu.calls.map((c) => c.status)).toEqual([429, 200]);
	});

	it("'status' honours retryAfter, description, count and method", async () => {
		emu.injectFault({ kind: 'status', status: 429, retryAfter: 7, count: 2, method: 'sendMessage' });
		emu.injectFault({ kind: 'status', status: 500, description: 'Internal Server Error: boom', method: 'getChat' });
		await ok(emu, 'getMyName', {}); // not affected
		const a = await call(emu, 'sendMessage', { chat_id: d.privateChatId, text: 'x' });
		const b = await call(emu, 'sendMessage', { chat_id: d.privateChatId, text: 'x' });
		expect([a.body.parameters?.retry_after, b.body.parameters?.retry_after]).toEqual([7, 7]);
		expect(a.body.description).toBe('Too Many Requests: retry after 7');
		await ok(emu, 'sendMessage', { chat_id: d.privateChatId, text: 'x' });
		const c = await call(emu, 'getChat', { chat_id: d.groupChatId });
		expect(c).toEqual({ status: 500, body: { ok: false, error_code: 500, description: 'Internal Server Error: boom' } });
		expect(emu.history(d.privateChatId)).toHaveLength(1);
	});

	it("'result' answers {ok: true, result} with the given result without executing the method", async () => {
		emu.injectFault({ kind: 'result', method: 'getUpdates', result: [{ no: 'update_id' }] });
		const r = await call(emu, 'getUpdates', {});
		expect(r).toEqual({ status: 200, body: { ok: true, result: [{ no: 'update_id' }] } });
		await emu.userSends({ chatId: d.privateChatId, userId: d.userId, text: 'kept' });
		const after = await call(emu, 'getUpdates', {});
		expect((after.body.result as Array<{ message?: { text?: string } }>).map((update) => update.message?.text)).toEqual(['kept']);
	});

	it("'delay' waits and then answers normally", async () => {
		emu.injectFault({ kind: 'delay', delayMs: 300 });
		const t0 = Date.now();
		const m = await ok<Message>(emu, 'sendMessage', { chat_id: d.privateChatId, text: 'slow' });
		expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
		expect(m.text).toBe('slow');
	});

	it("'hang' neither executes nor answers until the client gives up", async () => {
		emu.injectFault({ kind: 'hang' });
		const gaveUp = new AbortController();
		const held = post('sendMessage', { chat_id: d.privateChatId, text: 'held' }, gaveUp.signal);
		await waitUntil(() => emu.calls.length === 1);
		let settled = false;
		void held.then(
			() => (settled = true),
			() => (settled = true),
		);
		// The next call is answered while the first is still held: the emulator is not blocked by it.
		await ok(emu, 'getMyName', {});
		expect(settled).toBe(false);
		gaveUp.abort();
		await expect(held).rejects.toThrow();
		expect(emu.calls.map((recorded) => [recorded.method, recorded.status])).toEqual([
			['sendMessage', 0],
			['getMyName', 200],
		]);
		expect(emu.history(d.privateChatId)).toEqual([]);
	});

	it("'drop' destroys the socket without an answer", async () => {
		emu.injectFault({ kind: 'drop' });
		await expect(post('sendMessage', { chat_id: d.privateChatId, text: 'x' })).rejects.toThrow();
		expect(emu.history(d.privateChatId)).toEqual([]);
		expect(emu.calls[0]).toMatchObject({ method: 'sendMessage', status: 0, response: null });
	});

	it("'drop' with execute: the message is sent although the client sees an error", async () => {
		emu.injectFault({ kind: 'drop', execute: true });
		await expect(post('sendMessage', { chat_id: d.privateChatId, text: 'x' })).rejects.toThrow();
		expect(emu.history(d.privateChatId).map((m) => m.text)).toEqual(['x']);
	});

	it("'reset' sends headers and part of the body, then destroys the socket", async () => {
		emu.injectFault({ kind: 'reset' });
		const res = await post('getMyName', {});
		expect(res.status).toBe(200);
		await expect(res.text()).rejects.toThrow();
	});

	it("'malformed' answers 200 with broken JSON", async () => {
		emu.injectFault({ kind: 'malformed', method: 'getChat' });
		const res = await post('getChat', { chat_id: d.groupChatId });
		expect(res.status).toBe(200);
		expect(res.headers.get('content-type')).toMatch(/json/);
		const text = await res.text();
		expect(text.length).toBeGreaterThan(0);
		expect(() => JSON.parse(text) as unknown).toThrow();
	});

	it("'html' answers 502 with an HTML page", async () => {
		emu.injectFault({ kind: 'html' });
		const res = await post('sendMessage', { chat_id: d.privateChatId, text: 'x' });
		expect(res.status).toBe(502);
		expect(res.headers.get('content-type')).toMatch(/text\/html/);
		expect(await res.text()).toMatch(/<html>[\s\S]*502 Bad Gateway/);
		expect(emu.history(d.privateChatId)).toEqual([]);
	});

	it('faults apply in order and reset() clears them', async () => {
		emu.injectFault({ kind: 'status', status: 500 });
		emu.injectFault({ kind: 'status', status: 503 });
		const statuses = [];
		for (let index = 0; index < 3; index++) statuses.push((await call(emu, 'getMyName', {})).status);
		expect(statuses).toEqual([500, 503, 200]);
		emu.injectFault({ kind: 'status', status: 503, count: 5 });
		emu.reset();
		await ok(emu, 'getMyName', {});
		expect(() => emu.injectFault({ kind: 'nope' as 'drop' })).toThrow();
	});
});
