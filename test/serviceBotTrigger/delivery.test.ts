/**
 * Issue 4, acceptance 2: updates pushed by the emulator over HTTP reach the trigger with the secret
 * header and start the workflow; a wrong, missing or same-length-but-different secret gets 403 and
 * starts nothing.
 */
import type { Emulator } from '../emulator';
import {
	SECRET_HEADER,
	api,
	liveTrigger,
	makeHarness,
	messageUpdate,
	sendButton,
	spyOnLogger,
	startTestEmulator,
	tweakLastChar,
	type LiveTrigger,
	type LogSpy,
} from './helpers';

let emu: Emulator;
let logs: LogSpy;
const live: LiveTrigger[] = [];

async function start(options: Parameters<typeof liveTrigger>[1] = {}): Promise<LiveTrigger> {
	const trigger = await liveTrigger(emu, options);
	live.push(trigger);
	return trigger;
}

beforeAll(async () => {
	emu = await startTestEmulator();
});

beforeEach(() => {
	logs = spyOnLogger();
});

afterEach(async () => {
	for (const trigger of live.splice(0)) await trigger.close();
	logs.restore();
	emu.reset();
});

afterAll(async () => {
	await emu.close();
});

describe('real pushes from the emulator', () => {
	test('a user message reaches the trigger with the header and produces workflow data', async () => {
		const trigger = await start();
		const update = await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'Hello bot' });
		await emu.idle();

		expect(trigger.server.receipts.map((receipt) => receipt.status)).toEqual([200]);
		expect(trigger.emitted()).toEqual([update]);
		expect(trigger.emitted()[0]).toMatchObject({
			message: { text: 'Hello bot', chat: { id: emu.demo.privateChatId }, from: { id: emu.demo.userId } },
		});
		expect(emu.webhookOf()?.lastError).toBeNull();
	});

	test('a button click reaches the trigger and produces workflow data', async () => {
		const trigger = await start();
		const messageId = await sendButton(emu, emu.demo.groupChatId, 'vote:yes');
		const update = await emu.userClicks({
			chatId: emu.demo.groupChatId,
			userId: emu.demo.otherUserId,
			messageId,
			data: 'vote:yes',
		});
		await emu.idle();

		expect(trigger.emitted()).toEqual([update]);
		expect(trigger.emitted()[0]).toMatchObject({
			callback_query: {
				data: 'vote:yes',
				from: { id: emu.demo.otherUserId },
				message: { message_id: messageId, chat: { id: emu.demo.groupChatId } },
			},
		});
	});

	test('"Add Handy Fields" adds top-level fields for messages and clicks', async () => {
		const trigger = await start({ parameters: { updates: ['*'], options: { addHandyFields: true } } });
		await emu.userSends({ chatId: emu.demo.groupChatId, userId: emu.demo.userId, text: 'hi all' });
		await emu.idle();
		const messageId = await sendButton(emu, emu.demo.privateChatId, 'pick:1');
		const click = await emu.userClicks({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, messageId, data: 'pick:1' });
		await emu.idle();

		const [message, callback] = trigger.emitted();
		expect(message).toMatchObject({
			update_type: 'message',
			chat_id: emu.demo.groupChatId,
			user_id: emu.demo.userId,
			user: { id: emu.demo.userId, first_name: 'Demo' },
			text: 'hi all',
			callback_data: null,
			callback_query_id: null,
		});
		expect(message.message).toBeDefined();
		expect(callback).toMatchObject({
			update_type: 'callback_query',
			chat_id: emu.demo.privateChatId,
			message_id: messageId,
			user_id: emu.demo.userId,
			text: null,
			callback_data: 'pick:1',
			callback_query_id: click.callback_query?.id,
		});
	});

	test('a push with a wrong secret is refused with 403 and runs nothing', async () => {
		const trigger = await start();
		// Someone re-registers our URL with another secret (e.g. a copied workflow, or an attacker with the token).
		await api(emu, 'setWebhook', { url: trigger.harness.webhookUrl, secret_token: 'x'.repeat(43) });
		await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'should not run' });
		await emu.idle();

		expect(trigger.server.receipts.length).toBeGreaterThan(0);
		expect(trigger.server.receipts.every((receipt) => receipt.status === 403)).toBe(true);
		expect(trigger.emitted()).toEqual([]);
		expect(emu.webhookOf()?.lastError?.message).toContain('403');
	});
});

describe('secret check in webhook()', () => {
	const body = (): Record<string, unknown> => messageUpdate(11, emu.demo.privateChatId, emu.demo.userId);

	test('the right secret passes; wrong, missing, empty, same length but different → 403 and no data', async () => {
		const harness = await makeHarness(emu);
		await harness.activate();
		const secret = emu.webhookOf()?.secretToken ?? '';
		expect(secret.length).toBeGreaterThanOrEqual(32);

		const refused: Array<Record<string, string>> = [
			{ [SECRET_HEADER]: 'wrong' },
			{},
			{ [SECRET_HEADER]: '' },
			{ [SECRET_HEADER]: tweakLastChar(secret) },
			{ [SECRET_HEADER]: `${secret}x` },
			{ [SECRET_HEADER]: secret.slice(0, -1) },
			{ [SECRET_HEADER]: secret.toUpperCase() === secret ? secret.toLowerCase() : secret.toUpperCase() },
			// Another header name carrying the secret does not count.
			{ 'X-Telegram-Bot-Api-Secret-Token': secret },
		];
		for (const headers of refused) {
			const receipt = await harness.receive({ headers, body: body() });
			expect({ headers, status: receipt.status }).toEqual({ headers, status: 403 });
			expect(receipt.workflowData).toBeUndefined();
			expect(receipt.error).toBeUndefined();
		}

		const accepted = await harness.receive({ headers: { [SECRET_HEADER]: secret }, body: body() });
		expect(accepted.status).toBe(200);
		expect(accepted.workflowData?.[0][0].json).toEqual(body());
	});

	test('the body is not looked at before the secret is checked', async () => {
		const harness = await makeHarness(emu);
		await harness.activate();
		// A body whose getters would throw if read: a refused request must not touch it.
		const trap = new Proxy(
			{},
			{
				get: () => {
					throw new Error('body was read');
				},
				ownKeys: () => {
					throw new Error('body was read');
				},
			},
		);
		const receipt = await harness.receive({
			headers: { [SECRET_HEADER]: 'nope' },
			body: trap,
			rawBody: Buffer.from('{}'),
		});
		expect(receipt.status).toBe(403);
		expect(receipt.error).toBeUndefined();
	});

	test('an authenticated request that is not an update is acknowledged and runs nothing', async () => {
		const harness = await makeHarness(emu);
		await harness.activate();
		const secret = emu.webhookOf()?.secretToken ?? '';
		for (const payload of [{}, { update_id: 'x', message: {} }, [1, 2], { update_id: 1.5 }]) {
			const receipt = await harness.receive({ headers: { [SECRET_HEADER]: secret }, body: payload });
			expect(receipt.status).toBe(200);
			expect(receipt.workflowData).toBeUndefined();
		}
	});
});
