/**
 * Issue 4, acceptance 1, 4 and 5: activation (secret, options, ownership), checkExists, deactivation.
 * Everything runs through n8n-core's real HookContext / WebhookContext against the emulator.
 */
import { randomUUID } from 'node:crypto';

import type { Emulator } from '../emulator';
import {
	SECRET_HEADER,
	SECRET_PATTERN,
	api,
	makeHarness,
	messageUpdate,
	spyOnLogger,
	startTestEmulator,
	type LogSpy,
} from './helpers';

let emu: Emulator;
let logs: LogSpy;

beforeAll(async () => {
	emu = await startTestEmulator();
});

beforeEach(() => {
	logs = spyOnLogger();
});

afterEach(() => {
	logs.restore();
	emu.reset();
});

afterAll(async () => {
	await emu.close();
});

const FOREIGN_URL = 'http://127.0.0.1:9/some-other-system/hook';

async function setForeignWebhook(url = FOREIGN_URL, token = emu.demo.token): Promise<void> {
	const set = await api(emu, 'setWebhook', { url, secret_token: 'foreign-secret' }, token);
	expect(set.ok).toBe(true);
}

describe('activation sets the webhook with a derived secret (acceptance 1)', () => {
	test('the secret has >= 32 allowed characters, differs between triggers, and a fresh context accepts it', async () => {
		const first = await makeHarness(emu);
		expect(await first.activate()).toBe(true);
		const firstHook = emu.webhookOf();
		expect(firstHook?.url).toBe(first.webhookUrl);
		expect(firstHook?.secretToken).toMatch(SECRET_PATTERN);
		expect(firstHook?.allowedUpdates).toEqual(['message', 'callback_query']);

		// A second trigger (another workflow, another bot) gets a different secret.
		const otherToken = `7000000002:${randomUUID()}`;
		emu.addBot({ token: otherToken });
		const second = await makeHarness(emu, { token: otherToken });
		await second.activate();
		const secondHook = emu.webhookOf(otherToken);
		expect(secondHook?.secretToken).toMatch(SECRET_PATTERN);
		expect(secondHook?.secretToken).not.toBe(firstHook?.secretToken);

		// Two triggers of one bot, one after the other (same bot, other workflow): different too.
		const sameBotOtherWorkflow = await makeHarness(emu);
		expect(await first.delete()).toBe(true);
		await sameBotOtherWorkflow.activate();
		expect(emu.webhookOf()?.secretToken).toMatch(SECRET_PATTERN);
		expect(emu.webhookOf()?.secretToken).not.toBe(firstHook?.secretToken);

		// webhook() in a fresh WebhookContext (a fresh Workflow, as another process loads it) accepts it.
		const secret = emu.webhookOf()?.secretToken ?? '';
		const receipt = await sameBotOtherWorkflow.receive({
			headers: { [SECRET_HEADER]: secret },
			body: messageUpdate(1, emu.demo.privateChatId, emu.demo.userId),
		});
		expect(receipt.status).toBe(200);
		expect(receipt.workflowData?.[0]).toHaveLength(1);
	});

	test('another process with no static data at all computes the same secret', async () => {
		const ids = { workflowId: `wf-${randomUUID()}`, webhookId: randomUUID(), nodeId: randomUUID() };
		const webhookBaseUrl = 'http://127.0.0.1:5678/';
		const main = await makeHarness(emu, { ...ids, webhookBaseUrl });
		await main.activate();
		const secret = emu.webhookOf()?.secretToken ?? '';

		// A webhook process in queue mode, or n8n after a restart: same workflow, nothing shared.
		const otherProcess = await makeHarness(emu, { ...ids, webhookBaseUrl, staticData: {} });
		expect(otherProcess.webhookUrl).toBe(main.webhookUrl);
		const receipt = await otherProcess.receive({
			headers: { [SECRET_HEADER]: secret },
			body: messageUpdate(7, emu.demo.privateChatId, emu.demo.userId),
		});
		expect(receipt.status).toBe(200);
		expect(receipt.workflowData?.[0][0].json).toMatchObject({ update_id: 7 });
		// The secret is not written anywhere in static data.
		expect(JSON.stringify(main.staticData)).not.toContain(secret);
	});

	test('test mode registers the test URL with its own secret, accepted by webhook() on the test URL', async () => {
		const harness = await makeHarness(emu);
		expect(await harness.checkExists('manual')).toBe(false);
		expect(await harness.create('manual')).toBe(true);
		const hook = emu.webhookOf();
		expect(hook?.url).toBe(harness.testWebhookUrl);
		expect(hook?.secretToken).toMatch(SECRET_PATTERN);
		const testSecret = hook?.secretToken ?? '';

		const onTestUrl = await harness.receive({
			mode: 'manual',
			headers: { [SECRET_HEADER]: testSecret },
			body: messageUpdate(3, emu.demo.privateChatId, emu.demo.userId),
		});
		expect(onTestUrl.status).toBe(200);
		expect(onTestUrl.workflowData).toBeDefined();

		// The test secret opens only the test URL.
		const onProductionUrl = await harness.receive({
			headers: { [SECRET_HEADER]: testSecret },
			body: messageUpdate(4, emu.demo.privateChatId, emu.demo.userId),
		});
		expect(onProductionUrl.status).toBe(403);

		expect(await harness.delete('manual')).toBe(true);
		expect(emu.webhookOf()).toBeNull();
	});

	test('sends max_connections and drop_pending_updates when set, and only then', async () => {
		// Updates queue up while the bot has no webhook.
		await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'backlog' });
		expect(emu.pendingUpdates()).toHaveLength(1);

		const plain = await makeHarness(emu, { parameters: { updates: ['message'], options: {} } });
		await plain.create();
		const plainCall = emu.callsTo('setWebhook').at(-1);
		expect(plainCall?.body).not.toHaveProperty('max_connections');
		expect(plainCall?.body).not.toHaveProperty('drop_pending_updates');
		expect(plainCall?.body.allowed_updates).toEqual(['message']);
		expect(emu.webhookOf()?.allowedUpdates).toEqual(['message']);
		// Default: the backlog is kept (the push to the closed port fails and the update stays queued).
		expect(emu.pendingUpdates().length).toBeGreaterThanOrEqual(1);
		await plain.delete();

		const tuned = await makeHarness(emu, {
			parameters: { updates: ['*'], options: { maxConnections: 3, dropPendingUpdates: true } },
		});
		await tuned.create();
		const tunedCall = emu.callsTo('setWebhook').at(-1);
		expect(tunedCall?.body).toMatchObject({ max_connections: 3, drop_pending_updates: true });
		expect(emu.webhookOf()?.maxConnections).toBe(3);
		expect(emu.pendingUpdates()).toHaveLength(0);
		await tuned.delete();
	});
});

describe('checkExists', () => {
	test('false without a webhook, true after create, false for a foreign webhook', async () => {
		const harness = await makeHarness(emu);
		expect(await harness.checkExists()).toBe(false);
		await harness.create();
		expect(await harness.checkExists()).toBe(true);
		// n8n's activation then skips create.
		const setCalls = emu.callsTo('setWebhook').length;
		expect(await harness.activate()).toBe(false);
		expect(emu.callsTo('setWebhook')).toHaveLength(setCalls);

		await setForeignWebhook();
		expect(await harness.checkExists()).toBe(false);
	});

	test('false when this URL is set but the secret or options are not the ones this node registered', async () => {
		const ids = { workflowId: `wf-${randomUUID()}`, webhookId: randomUUID(), nodeId: randomUUID() };
		const webhookBaseUrl = 'http://127.0.0.1:5679/';
		const harness = await makeHarness(emu, { ...ids, webhookBaseUrl });
		await harness.create();

		// Someone with the token set our URL with another secret: the service does not reveal it.
		await api(emu, 'setWebhook', { url: harness.webhookUrl, secret_token: 'not-our-secret' });
		const withoutRecord = await makeHarness(emu, { ...ids, webhookBaseUrl, staticData: {} });
		expect(await withoutRecord.checkExists()).toBe(false);
		// So activation registers again, with the right secret.
		expect(await withoutRecord.activate()).toBe(true);
		expect(emu.webhookOf()?.secretToken).toMatch(SECRET_PATTERN);

		// Trigger On changed since registration: re-register so allowed_updates follows.
		const changed = await makeHarness(emu, {
			...ids,
			webhookBaseUrl,
			staticData: harness.staticData,
			parameters: { updates: ['callback_query'], options: {} },
		});
		expect(await changed.checkExists()).toBe(false);
		expect(await changed.activate()).toBe(true);
		expect(emu.webhookOf()?.allowedUpdates).toEqual(['callback_query']);
	});
});

describe('deactivation (acceptance 4)', () => {
	test('removes our webhook', async () => {
		const harness = await makeHarness(emu);
		await harness.activate();
		expect(emu.webhookOf()?.url).toBe(harness.webhookUrl);
		expect(await harness.delete()).toBe(true);
		expect(emu.webhookOf()).toBeNull();
		expect(emu.callsTo('deleteWebhook')).toHaveLength(1);
	});

	test('leaves a foreign webhook untouched', async () => {
		const harness = await makeHarness(emu);
		await harness.activate();
		await setForeignWebhook();
		expect(await harness.delete()).toBe(true);
		expect(emu.webhookOf()).toMatchObject({ url: FOREIGN_URL, secretToken: 'foreign-secret' });
		expect(emu.callsTo('deleteWebhook')).toHaveLength(0);
		expect(logs.messages('warn').join('\n')).toContain('left untouched');
	});

	test('a webhook that is already gone is not an error', async () => {
		const harness = await makeHarness(emu);
		await harness.activate();
		await api(emu, 'deleteWebhook');
		expect(await harness.delete()).toBe(true);
		expect(emu.callsTo('deleteWebhook')).toHaveLength(1);
	});

	test('a failure is reported (false, logged), not thrown and not hidden as success', async () => {
		const harness = await makeHarness(emu);
		await harness.activate();
		emu.injectFault({ kind: 'status', status: 401, method: 'getWebhookInfo', description: 'Unauthorized' });
		await expect(harness.delete()).resolves.toBe(false);
		expect(emu.webhookOf()?.url).toBe(harness.webhookUrl);
		expect(emu.callsTo('deleteWebhook')).toHaveLength(0);
		const logged = logs.messages('error').join('\n');
		expect(logged).toContain("could not remove the bot's webhook");
		expect(logged).toContain('Unauthorized');
		expect(logged).not.toContain(emu.demo.token);
		// Once the service answers again, deactivation works.
		expect(await harness.delete()).toBe(true);
		expect(emu.webhookOf()).toBeNull();
	});
});

describe('ownership on activation (acceptance 5)', () => {
	test('a foreign webhook makes activation fail with a clear error; take-over replaces it', async () => {
		const token = emu.demo.token;
		const foreign = `http://127.0.0.1:9/hook/${token}?key=their-secret`;
		await setForeignWebhook(foreign);
		const harness = await makeHarness(emu);

		const failure = await harness.activate().then(
			() => undefined,
			(error: unknown) => error as Error & { description?: string },
		);
		expect(failure).toBeDefined();
		expect(failure?.constructor.name).toBe('NodeOperationError');
		expect(failure?.message).toContain("The bot's webhook already points to another URL: http://127.0.0.1:9/hook/***");
		expect(failure?.description).toContain('Take Over Existing Webhook');
		expect(failure?.description).toContain('Deactivate the workflow or system that owns that webhook');
		const everything = `${failure?.message} ${failure?.description} ${failure?.stack}`;
		expect(everything).not.toContain(token);
		expect(everything).not.toContain('their-secret');
		// Untouched.
		expect(emu.webhookOf()).toMatchObject({ url: foreign, secretToken: 'foreign-secret' });
		expect(emu.callsTo('setWebhook')).toHaveLength(1);

		const takeOver = await makeHarness(emu, {
			parameters: { updates: ['*'], options: { takeOverExistingWebhook: true } },
		});
		expect(await takeOver.activate()).toBe(true);
		expect(emu.webhookOf()?.url).toBe(takeOver.webhookUrl);
		expect(emu.webhookOf()?.secretToken).toMatch(SECRET_PATTERN);
		expect(logs.messages('warn').join('\n')).toContain('taking over the bot\'s webhook from http://127.0.0.1:9/hook/***');
	});

	test('testing in the editor while the workflow is active fails and says why', async () => {
		const harness = await makeHarness(emu);
		await harness.activate();
		const failure = await harness.create('manual').then(
			() => undefined,
			(error: unknown) => error as Error & { description?: string },
		);
		expect(failure?.message).toContain(harness.webhookUrl);
		expect(failure?.description).toContain('production URL of this trigger');
		// Production keeps its webhook.
		expect(emu.webhookOf()?.url).toBe(harness.webhookUrl);
	});
});
