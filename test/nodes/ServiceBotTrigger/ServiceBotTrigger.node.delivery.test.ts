/**
 * Updates pushed by the emulator over HTTP reach the trigger with the secret
 * header and start the workflow; a wrong, missing or same-length-but-different secret gets 403 and
 * starts nothing.
 */
import { WebhookContext } from 'n8n-core';
import { createHmac, randomUUID } from 'node:crypto';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Emulator } from '../../emulator';
import { TestCredentialsHelper, readBinary, useFileDownloads } from '../../harness';
import { SAMPLES, userSendsFile } from '../../harness/sample-files';
import {
	SECRET_HEADER,
	SECRET_PATTERN,
	api,
	liveTrigger,
	makeHarness,
	messageUpdate,
	sendButton,
	tweakLastChar,
	type LiveTrigger,
} from '../../harness/trigger-nodes';
import { useEmulator, type LogSpy } from '../../harness/emulator-suite';

let emu: Emulator;
let logs: LogSpy;
const live: LiveTrigger[] = [];
useEmulator({ running: live, started: (started) => (emu = started), logging: (spy) => (logs = spy) });

async function start(options: Parameters<typeof liveTrigger>[1] = {}): Promise<LiveTrigger> {
	const trigger = await liveTrigger(emu, options);
	live.push(trigger);
	return trigger;
}

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
		// The service keeps the refused update and tries again (for a day): its first refusal is enough here.
		while (!emu.webhookOf()?.lastError) await new Promise((resolve) => setTimeout(resolve, 10));

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

describe('secret derivation independent of URLs', () => {
	const ids = (): { workflowId: string; webhookId: string; nodeId: string } => ({
		workflowId: `wf-${randomUUID()}`,
		webhookId: randomUUID(),
		nodeId: randomUUID(),
	});

	/** The secret version 0.1.0 registered, written out from its derivation (HMAC-SHA256 over the identity and the URL). */
	function secretOf010(token: string, id: ReturnType<typeof ids>, url: string): string {
		const message = JSON.stringify(['n8n-nodes-service-bot:webhook-secret:v1', id.workflowId, id.nodeId, id.webhookId, url]);
		return createHmac('sha256', token).update(message, 'utf8').digest('base64url');
	}

	test('on an n8n whose webhook context has no getWebhookResourceUrl, test and production deliveries are still accepted', async () => {
		const harness = await makeHarness(emu, ids());
		await harness.activate();
		const productionSecret = emu.webhookOf()?.secretToken ?? '';
		await harness.delete();
		await harness.activate('manual');
		const testSecret = emu.webhookOf()?.secretToken ?? '';
		expect(testSecret).not.toBe(productionSecret);

		const prototype = WebhookContext.prototype as unknown as Record<string, unknown>;
		const original = prototype.getWebhookResourceUrl;
		Reflect.deleteProperty(prototype, 'getWebhookResourceUrl');
		try {
			const onTest = await harness.receive({ mode: 'manual', headers: { [SECRET_HEADER]: testSecret }, body: messageUpdate(1, emu.demo.privateChatId, emu.demo.userId) });
			expect(onTest.status).toBe(200);
			expect(onTest.workflowData?.[0][0].json).toMatchObject({ update_id: 1 });
			const onProduction = await harness.receive({ headers: { [SECRET_HEADER]: productionSecret }, body: messageUpdate(2, emu.demo.privateChatId, emu.demo.userId) });
			expect(onProduction.status).toBe(200);
			// Still crossed nowhere: the test secret does not open production, nor the reverse.
			expect((await harness.receive({ headers: { [SECRET_HEADER]: testSecret }, body: messageUpdate(3, emu.demo.privateChatId, emu.demo.userId) })).status).toBe(403);
			expect((await harness.receive({ mode: 'manual', headers: { [SECRET_HEADER]: productionSecret }, body: messageUpdate(4, emu.demo.privateChatId, emu.demo.userId) })).status).toBe(403);
		} finally {
			prototype.getWebhookResourceUrl = original;
		}
	});

	test('a production webhook registered by version 0.1.0 keeps working after the upgrade, without registering it again', async () => {
		const id = ids();
		const harness = await makeHarness(emu, id);
		const oldSecret = secretOf010(emu.demo.token, id, harness.webhookUrl);
		// What 0.1.0's activation left at the service; n8n does not call checkExists/create on restart.
		expect((await api(emu, 'setWebhook', { url: harness.webhookUrl, secret_token: oldSecret })).ok).toBe(true);

		const receipt = await harness.receive({ headers: { [SECRET_HEADER]: oldSecret }, body: messageUpdate(8, emu.demo.privateChatId, emu.demo.userId) });
		expect(receipt.status).toBe(200);
		expect(receipt.workflowData?.[0][0].json).toMatchObject({ update_id: 8 });
		// 0.1.0's test-URL secret opens neither door, and its production secret not the test one.
		const oldTestSecret = secretOf010(emu.demo.token, id, harness.testWebhookUrl);
		expect((await harness.receive({ headers: { [SECRET_HEADER]: oldTestSecret }, body: messageUpdate(9, emu.demo.privateChatId, emu.demo.userId) })).status).toBe(403);
		expect((await harness.receive({ mode: 'manual', headers: { [SECRET_HEADER]: oldSecret }, body: messageUpdate(10, emu.demo.privateChatId, emu.demo.userId) })).status).toBe(403);

		// The next activation registers the current secret (the record of 0.1.0 does not match it).
		expect(await harness.activate()).toBe(true);
		expect(emu.webhookOf()?.secretToken).not.toBe(oldSecret);
		expect(emu.webhookOf()?.secretToken).toMatch(SECRET_PATTERN);
	});
});

describe('a changed bot token', () => {
	test('pushes refused for the old secret are logged at warn with the fix, at most once a minute', async () => {
		const id = { workflowId: `wf-${randomUUID()}`, webhookId: randomUUID(), nodeId: randomUUID() };
		const before = await makeHarness(emu, id);
		await before.activate();
		const oldSecret = emu.webhookOf()?.secretToken ?? '';
		// The credential now holds another token; the service still pushes with the old secret.
		const after = await makeHarness(emu, { ...id, token: `${emu.demo.token}-rotated` });
		const push = async (updateId: number): Promise<number> =>
			(await after.receive({ headers: { [SECRET_HEADER]: oldSecret }, body: messageUpdate(updateId, emu.demo.privateChatId, emu.demo.userId) })).status;

		// A webhook process checks pushes with a token it read in the last 5 seconds, and reads it anew
		// when a push does not match: the first push comes later than that after the change.
		const now = Date.now() + 6_000;
		const clock = jest.spyOn(Date, 'now').mockReturnValue(now);
		try {
			expect(await push(1)).toBe(403);
			expect(await push(2)).toBe(403);
			clock.mockReturnValue(now + 59_000);
			expect(await push(3)).toBe(403);
			// The refusals' warnings (the workflows this file published earlier are other workflows on the bot, also warned about).
			const refusals = (): string[] => logs.messages('warn').filter((message) => message.includes('refused a request'));
			const warned = refusals();
			expect(warned).toHaveLength(1);
			expect(warned[0]).toContain('If the bot token in the credential was changed');
			expect(warned[0]).toContain('deactivate and activate the workflow');
			clock.mockReturnValue(now + 61_000);
			expect(await push(4)).toBe(403);
			expect(refusals()).toHaveLength(2);
			expect(logs.messages('warn').join('\n')).not.toContain(oldSecret);
		} finally {
			clock.mockRestore();
		}
	});
});

describe('reading the credential', () => {
	// Its afterEach restores what each test mocks too: the clock and n8n's credential reads.
	useFileDownloads();

	/** n8n reading the credential (from its database), to count or to make fail. */
	const credentialReads = (): jest.SpyInstance => jest.spyOn(TestCredentialsHelper.prototype, 'getDecrypted');

	/**
	 * A published trigger of its own (with `options`) and its pushes (with its secret unless told), the
	 * clock set `aheadMs` later than any token an earlier test left; `aMinuteLater` moves it on a
	 * minute, past the token's reuse, and hands over n8n's credential reads from then on.
	 */
	async function ownTrigger(aheadMs: number, options: INodeParameters = {}) {
		const harness = await makeHarness(emu, { workflowId: `wf-${randomUUID()}`, webhookId: randomUUID(), nodeId: randomUUID(), parameters: { updates: ['*'], options } });
		await harness.activate();
		const secret = emu.webhookOf()?.secretToken ?? '';
		const pushUpdate = async (body: IDataObject, withSecret = secret) => await harness.receive({ headers: { [SECRET_HEADER]: withSecret }, body });
		const push = async (updateId: number, withSecret = secret) => await pushUpdate(messageUpdate(updateId, emu.demo.privateChatId, emu.demo.userId), withSecret);
		const now = Date.now() + aheadMs;
		const clock = jest.spyOn(Date, 'now').mockReturnValue(now);
		const aMinuteLater = (): jest.SpyInstance => {
			clock.mockReturnValue(now + 60_000);
			return credentialReads();
		};
		return { secret, push, pushUpdate, now, clock, aMinuteLater };
	}

	/** n8n's database timing out on a credential read, as under load. */
	const DATABASE_TIMEOUT = new Error('timeout exceeded when trying to connect');

	/** A document sent to the bot: its update, as the service pushes it (the trigger's URL is not served here). */
	async function documentUpdate(): Promise<IDataObject> {
		return await userSendsFile(emu, SAMPLES.document, 'Read this');
	}

	/** Waits until the service got "typing…" in the demo's private chat `count` times. */
	async function typingShown(count: number): Promise<void> {
		while (emu.chatActions().filter((action) => action.chatId === emu.demo.privateChatId && action.action === 'typing').length < count) {
			await new Promise((resolve) => setImmediate(resolve));
		}
	}

	test('pushes within 5 s of each other read the credential once; a push with another secret, or 6 s later, reads it anew', async () => {
		const { secret, push: pushOf, now, clock } = await ownTrigger(10_000);
		const reads = credentialReads();
		const push = async (updateId: number, withSecret = secret): Promise<number> => (await pushOf(updateId, withSecret)).status;
		expect([await push(1), await push(2), await push(3)]).toEqual([200, 200, 200]);
		expect(reads).toHaveBeenCalledTimes(1);
		expect(await push(4, tweakLastChar(secret))).toBe(403);
		expect(reads).toHaveBeenCalledTimes(2);
		clock.mockReturnValue(now + 6_000);
		expect(await push(5)).toBe(200);
		expect(reads).toHaveBeenCalledTimes(3);
	});

	test('n8n failing to read the credential (its database under load): a push with the secret of the token read last still runs; a push with another secret gets the failure (500), and is not run', async () => {
		const { secret, push, aMinuteLater } = await ownTrigger(20_000);
		expect((await push(21)).status).toBe(200);
		const reads = aMinuteLater().mockRejectedValue(DATABASE_TIMEOUT);

		const kept = await push(22);
		expect(reads).toHaveBeenCalled();
		expect(kept.error).toBeUndefined();
		expect(kept.status).toBe(200);
		expect(kept.workflowData?.[0][0].json).toEqual(messageUpdate(22, emu.demo.privateChatId, emu.demo.userId));

		const other = await push(23, tweakLastChar(secret));
		expect(other.workflowData).toBeUndefined();
		expect(other.status).toBe(500);
		expect(other.error?.message).toBe('Could not read the Service Bot API credential: timeout exceeded when trying to connect');
	});

	test('n8n failing to read the credential: a push received with the token read last also shows "typing…" and downloads its file with it', async () => {
		const { pushUpdate, push, aMinuteLater } = await ownTrigger(40_000, { showTyping: true, downloadFiles: true });
		expect((await push(51)).status).toBe(200);
		await typingShown(1);
		const reads = aMinuteLater().mockRejectedValue(DATABASE_TIMEOUT);

		const withFile = await pushUpdate(await documentUpdate());
		expect(reads).toHaveBeenCalled();
		expect(withFile.error).toBeUndefined();
		expect(withFile.status).toBe(200);
		const item = withFile.workflowData?.[0][0];
		expect(item?.json.file_error).toBeNull();
		expect(await readBinary(item!.binary!.data)).toEqual(SAMPLES.document.bytes);
		await typingShown(2);
	});

	test('a credential read that works but has no token is not replaced by the token read last: the push fails naming the empty field', async () => {
		const { push, aMinuteLater } = await ownTrigger(90_000);
		expect((await push(31)).status).toBe(200);
		// The token was removed from the credential.
		const reads = aMinuteLater().mockResolvedValue({ accessToken: '', baseUrl: emu.baseUrl });

		const emptied = await push(32);
		expect(reads).toHaveBeenCalled();
		expect(emptied.workflowData).toBeUndefined();
		expect(emptied.status).toBe(500);
		expect(emptied.error?.message).toBe('The Service Bot API credential has no access token: enter the bot token in the credential');
	});
});
