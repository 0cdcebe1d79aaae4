import { Chaos, isIdempotent } from './chaos';
import { startEmulator } from './index';
import type { Emulator } from './index';
import { call, startReceiver } from './helpers';
import type { Receiver } from './helpers';

/** The faults `count` calls of `method` get from a chaos of rate `rate`. */
function decisions(chaos: Chaos, method: string, count: number): Array<ReturnType<Chaos['faultFor']>> {
	return Array.from({ length: count }, () => chaos.faultFor(method));
}

describe('chaos: which failures a call may get follows from what repeating it does', () => {
	it('sending, editing, deleting and answering a click act, so only reading methods and setting a state count as idempotent', () => {
		for (const method of ['sendMessage', 'sendPhoto', 'editMessageText', 'deleteMessage', 'answerCallbackQuery', 'forwardMessage', 'copyMessage']) {
			expect([method, isIdempotent(method)]).toEqual([method, false]);
		}
		for (const method of ['getUpdates', 'getWebhookInfo', 'getChat', 'getFile', 'setWebhook', 'deleteWebhook', 'setMyCommands', 'sendChatAction', 'GETUPDATES']) {
			expect([method, isIdempotent(method)]).toEqual([method, true]);
		}
	});

	it('a call that acts gets only 429 with retry_after 1–3 (not executed) or a slow answer of 2–4 s (executed)', () => {
		const faults = decisions(new Chaos({ rate: 1, seed: 7 }), 'sendMessage', 400);
		expect(faults.every((f) => (f?.kind === 'status' && f.status === 429) || f?.kind === 'delay')).toBe(true);
		const retryAfters = new Set(faults.filter((f) => f?.kind === 'status').map((f) => f?.retryAfter));
		expect([...retryAfters].sort()).toEqual([1, 2, 3]);
		const delays = faults.filter((f) => f?.kind === 'delay').map((f) => f?.delayMs ?? 0);
		expect(delays.length).toBeGreaterThan(100);
		expect(Math.min(...delays)).toBeGreaterThanOrEqual(2000);
		expect(Math.max(...delays)).toBeLessThanOrEqual(4000);
		expect(faults.some((f) => f?.kind === 'drop' || f?.kind === 'html')).toBe(false);
	});

	it('an idempotent call also gets 502 (not executed) and a lost answer (executed, then the connection closed)', () => {
		const faults = decisions(new Chaos({ rate: 1, seed: 7 }), 'getUpdates', 400);
		const kinds = new Set(faults.map((f) => (f?.kind === 'drop' ? `drop executed=${f.execute}` : f?.kind)));
		expect([...kinds].sort()).toEqual(['delay', 'drop executed=true', 'html', 'status']);
	});

	it('fails about the share asked, counts what it injected, and repeats itself for the same seed', () => {
		const chaos = new Chaos({ rate: 0.1, seed: 3 });
		const faults = decisions(chaos, 'getUpdates', 10_000);
		const failed = faults.filter(Boolean).length;
		expect(failed).toBeGreaterThan(900);
		expect(failed).toBeLessThan(1100);
		const { calls, tooManyRequests, slow, badGateway, dropped } = chaos.counts;
		expect({ calls, injected: tooManyRequests + slow + badGateway + dropped }).toEqual({ calls: 10_000, injected: failed });
		expect(decisions(new Chaos({ rate: 0.1, seed: 3 }), 'getUpdates', 10_000)).toEqual(faults);
		expect(decisions(new Chaos({ rate: 0, seed: 3 }), 'getUpdates', 1000).filter(Boolean)).toEqual([]);
		expect(() => new Chaos({ rate: 1.5 })).toThrow('between 0 and 1');
	});
});

describe('chaos in the emulator', () => {
	let emu: Emulator;
	let rx: Receiver;
	beforeEach(async () => {
		emu = await startEmulator({ allowLocalWebhooks: true, webhookRetryBaseMs: 5 });
		rx = await startReceiver();
	});
	afterEach(async () => {
		await rx.close();
		await emu.close();
	});
	const control = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
		const response = await fetch(`${emu.baseUrl}/_emulator/${path}`, {
			method,
			headers: { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		return { status: response.status, body: (await response.json()) as Record<string, unknown> };
	};

	it('POST /_emulator/chaos turns it on: every answerCallbackQuery at rate 1 is refused with 429 or comes slow, and GET counts them', async () => {
		// Which kind each call gets depends on the seed; seed 4 gives 429 to the first two acting calls (no slow wait here).
		expect((await control('POST', 'chaos', { rate: 1, seed: 4 })).status).toBe(200);
		const first = await call(emu, 'answerCallbackQuery', { callback_query_id: 'x' });
		const second = await call(emu, 'answerCallbackQuery', { callback_query_id: 'x' });
		expect([first.status, second.status]).toEqual([429, 429]);
		expect(first.body.parameters?.retry_after).toBeGreaterThanOrEqual(1);
		expect((await control('GET', 'chaos')).body).toMatchObject({ rate: 1, counts: { calls: 2, tooManyRequests: 2 } });
		expect((await control('POST', 'chaos', { rate: 0 })).status).toBe(200);
		expect((await call(emu, 'answerCallbackQuery', { callback_query_id: 'x' })).status).toBe(400);
		expect((await control('GET', 'chaos')).body).toMatchObject({ rate: 0, counts: null });
		expect((await control('POST', 'chaos', { rate: 2 })).status).toBe(400);
	});

	it('GET /_emulator/chaos counts the pushes: made, answered 2xx, and failed by what failed (each sent again)', async () => {
		rx.respond = (_req, n) => (n <= 2 ? 502 : 200);
		await call(emu, 'setWebhook', { url: rx.url });
		await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'pushed three times' });
		await emu.idle();
		expect((await control('GET', 'chaos')).body.pushes).toEqual({ attempts: 3, delivered: 1, failed: { '502 Bad Gateway': 2 } });
	});
});
