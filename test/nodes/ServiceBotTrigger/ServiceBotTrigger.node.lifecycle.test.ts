/**
 * Activation (secret, options, ownership), checkExists, deactivation.
 * Everything runs through n8n-core's real HookContext / WebhookContext against the emulator.
 */
import { randomUUID } from 'node:crypto';

import { WRITE_TIMING } from '../../../nodes/ServiceBotTrigger/webhook/lifecycle';
import type { Emulator } from '../../emulator';
import {
	SECRET_HEADER,
	SECRET_PATTERN,
	api,
	makeHarness,
	messageUpdate,
} from '../../harness/trigger-nodes';
import { useEmulator, type LogSpy } from '../../harness/emulator-suite';
import { n8nRetries } from '../../harness/publish-errors';

let emu: Emulator;
let logs: LogSpy;
useEmulator({ started: (started) => (emu = started), logging: (spy) => (logs = spy) });

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
		// Clicks too, though Trigger On has only messages: answers to a Send and Wait for Response are clicks.
		expect(plainCall?.body.allowed_updates).toEqual(['message', 'callback_query']);
		expect(emu.webhookOf()?.allowedUpdates).toEqual(['message', 'callback_query']);
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

		// Max Connections changed since registration: re-register so the service uses the new value.
		const changed = await makeHarness(emu, {
			...ids,
			webhookBaseUrl,
			staticData: harness.staticData,
			parameters: { updates: ['*'], options: { maxConnections: 5 } },
		});
		expect(await changed.checkExists()).toBe(false);
		expect(await changed.activate()).toBe(true);
		expect(emu.webhookOf()?.maxConnections).toBe(5);
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
		const logged = logs.messages('warn').join('\n');
		expect(logged).toContain("could not remove this trigger from the bot's webhook");
		expect(logged).toContain('Unauthorized');
		expect(logged).toContain('Not tried again');
		expect(logged).not.toContain(emu.demo.token);
		// Once the service answers again, deactivation works.
		expect(await harness.delete()).toBe(true);
		expect(emu.webhookOf()).toBeNull();
	});
});

describe('a removal no retry can get past', () => {
	test('publishing with a token the service refuses fails in checkExists; the removal n8n then calls makes no calls in the background and logs nothing alarming', async () => {
		// Growing waits 20 and 40 ms, then every 30 ms: a background attempt would come within 100 ms.
		jest.replaceProperty(WRITE_TIMING, 'removalRetryDelaysMs', [20, 40]);
		jest.replaceProperty(WRITE_TIMING, 'removalRetryEveryMs', 30);
		const refusedToken = `7000000099:${randomUUID()}`;
		const harness = await makeHarness(emu, { token: refusedToken });
		await expect(harness.checkExists()).rejects.toThrow();
		const methods = ['getWebhookInfo', 'setWebhook', 'deleteWebhook'] as const;
		const calls = (): number => methods.reduce((sum, method) => sum + emu.callsTo(method).length, 0);
		expect(await harness.delete()).toBe(false);
		const afterRemoval = calls();
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(calls()).toBe(afterRemoval);
		const logged = logs.messages('error').join('\n') + logs.messages('warn').join('\n');
		expect(logged).not.toContain("could not remove this trigger from the bot's webhook");
		expect(logged).not.toContain(refusedToken);
	});
});

describe('ownership on activation (the advice is in the message)', () => {
	test('a foreign webhook makes publishing fail at once with an error whose message says what to do; take-over replaces it', async () => {
		const token = emu.demo.token;
		const foreign = `http://127.0.0.1:9/hook/${token}?key=their-secret`;
		await setForeignWebhook(foreign);
		const harness = await makeHarness(emu);

		const failure = await harness.activate().then(
			() => undefined,
			(error: unknown) => error as Error & { description?: string },
		);
		expect(failure).toBeDefined();
		// It holds until a person acts: n8n 2.41 does not try it again (5 attempts over 15 s otherwise).
		expect(n8nRetries(failure as Error)).toBe(false);
		// n8n's toast shows only the message: the URL and both ways out are in it.
		expect(failure?.message).toContain("The bot's webhook belongs to someone else: it delivers to http://127.0.0.1:9/hook/***");
		expect(failure?.message).toContain('deactivate the workflow or system that owns it');
		expect(failure?.message).toContain('turn on "Take Over Existing Webhook"');
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
		const warned = logs.messages('warn').join('\n');
		expect(warned).toContain("taking over the bot's webhook from http://127.0.0.1:9/hook/***");
		expect(warned).toContain('register it again there');
	});
});

describe('test and production of one trigger: both listen, each for itself', () => {
	const ids = (): { workflowId: string; webhookId: string; nodeId: string } => ({
		workflowId: `wf-${randomUUID()}`,
		webhookId: randomUUID(),
		nodeId: randomUUID(),
	});
	const LISTENERS = 'service-bot-listeners';

	/** The bot's webhook as the service holds it: the URL without its list, and the list. */
	function registered(): { url: string; listeners: string[] } | undefined {
		const hook = emu.webhookOf();
		if (!hook) return undefined;
		const url = new URL(hook.url);
		const list = url.searchParams.get(LISTENERS);
		url.search = '';
		return { url: url.toString(), listeners: list === null ? [] : list.split(',') };
	}

	const entry = (run: 'p' | 't', url: string): string => `${run}${new URL(url).pathname}`;

	test('listening for a test event while the workflow is published: the test joins without Take Over, and production is alone again when it ends', async () => {
		const trigger = await makeHarness(emu, { ...ids(), parameters: { updates: ['*'], options: { maxConnections: 7 } } });
		await trigger.activate();
		expect(emu.webhookOf()?.url).toBe(trigger.webhookUrl);

		expect(await trigger.activate('manual')).toBe(true);
		// Production receives (it comes first), and the list names both.
		expect(registered()).toEqual({ url: trigger.webhookUrl, listeners: [entry('p', trigger.webhookUrl), entry('t', trigger.testWebhookUrl)] });
		expect(emu.webhookOf()).toMatchObject({ maxConnections: 7, allowedUpdates: ['message', 'callback_query'] });
		expect(emu.callsTo('deleteWebhook')).toHaveLength(0);

		expect(await trigger.delete('manual')).toBe(true);
		expect(registered()).toEqual({ url: trigger.webhookUrl, listeners: [] });
		expect(emu.callsTo('deleteWebhook')).toHaveLength(0);
		// The published workflow accepts what the service now sends.
		const receipt = await trigger.receive({
			headers: { [SECRET_HEADER]: emu.webhookOf()?.secretToken ?? '' },
			body: messageUpdate(6, emu.demo.privateChatId, emu.demo.userId),
		});
		expect(receipt.workflowData?.[0][0].json).toMatchObject({ update_id: 6 });
		// Unpublishing later removes the webhook.
		expect(await trigger.delete()).toBe(true);
		expect(emu.webhookOf()).toBeNull();
	});

	test('listening for a test event, then publishing: production joins and receives; the test ending leaves production with the webhook', async () => {
		const same = ids();
		const editor = await makeHarness(emu, same);
		expect(await editor.activate('manual')).toBe(true);
		expect(emu.webhookOf()?.url).toBe(editor.testWebhookUrl);

		const published = await makeHarness(emu, { ...same, webhookBaseUrl: editor.webhookUrl.replace(/webhook\/.*$/, '') });
		await expect(published.activate()).resolves.toBe(true);
		expect(registered()).toEqual({ url: published.webhookUrl, listeners: [entry('p', published.webhookUrl), entry('t', editor.testWebhookUrl)] });

		expect(await editor.delete('manual')).toBe(true);
		expect(registered()).toEqual({ url: published.webhookUrl, listeners: [] });
		expect(emu.callsTo('deleteWebhook')).toHaveLength(0);
		const receipt = await published.receive({
			headers: { [SECRET_HEADER]: emu.webhookOf()?.secretToken ?? '' },
			body: messageUpdate(5, emu.demo.privateChatId, emu.demo.userId),
		});
		expect(receipt.workflowData?.[0][0].json).toMatchObject({ update_id: 5 });
	});

	test('unpublishing while a test listens: the test keeps the webhook and removes it when it ends', async () => {
		const trigger = await makeHarness(emu, ids());
		await trigger.activate();
		await trigger.activate('manual');
		expect(await trigger.delete()).toBe(true);
		expect(registered()).toEqual({ url: trigger.testWebhookUrl, listeners: [] });
		expect(await trigger.delete('manual')).toBe(true);
		expect(emu.webhookOf()).toBeNull();
	});

	test('a test that took over a foreign webhook says, when it ends, where the webhook was and what to do', async () => {
		await setForeignWebhook();
		const trigger = await makeHarness(emu, { parameters: { updates: ['*'], options: { takeOverExistingWebhook: true } } });
		await trigger.activate('manual');
		expect(await trigger.delete('manual')).toBe(true);
		expect(emu.webhookOf()).toBeNull();
		const warned = logs.messages('warn').join('\n');
		expect(warned).toContain(`the bot has no webhook now. Before the test it delivered to ${FOREIGN_URL}: register it again there`);
	});
});

describe('options are checked before setWebhook', () => {
	async function activationError(parameters: Record<string, unknown>, webhookBaseUrl?: string, baseUrl?: string): Promise<Error | undefined> {
		const harness = await makeHarness(emu, { parameters: parameters as never, webhookBaseUrl, serviceBaseUrl: baseUrl });
		return await harness.activate().then(
			() => undefined,
			(error: unknown) => error as Error,
		);
	}

	test('Max Connections must be a whole number from 1 to 100', async () => {
		for (const maxConnections of [0, 101, 2.5, -1, 'many']) {
			const failure = await activationError({ updates: ['*'], options: { maxConnections } });
			expect(failure?.message).toBe(`Max Connections must be a whole number from 1 to 100, not ${JSON.stringify(maxConnections)}`);
		}
		expect(emu.callsTo('setWebhook')).toHaveLength(0);
		expect(await activationError({ updates: ['*'], options: { maxConnections: 100 } })).toBeUndefined();
	});

	test('Restrict to Chat/User IDs must hold IDs: a pasted @username is refused with where to find the ID', async () => {
		const username = await activationError({ updates: ['*'], options: { chatIds: `${emu.demo.privateChatId}, @demo_group` } });
		expect(username?.message).toMatch(/^Restrict to Chat IDs: "@demo_group" is a username, but updates name the chat by its ID\. Enter the ID instead/);
		expect(username?.message).toContain('Get Chat');
		const user = await activationError({ updates: ['*'], options: { userIds: '@demo_user' } });
		expect(user?.message).toMatch(/^Restrict to User IDs: "@demo_user" is a username/);
		const name = await activationError({ updates: ['*'], options: { userIds: 'Demo' } });
		expect(name?.message).toMatch(/^Restrict to User IDs: "Demo" is not a user ID/);
		expect(emu.callsTo('setWebhook')).toHaveLength(0);
		expect(emu.callsTo('getWebhookInfo')).toHaveLength(0);
		// UUIDs in either case, and Telegram-style integers, are IDs.
		expect(await activationError({ updates: ['*'], options: { chatIds: `${emu.demo.groupChatId.toUpperCase()}, -1001234` } })).toBeUndefined();
	});

	test("n8n's webhook URL is checked against the spec's rules, with the fix in the message", async () => {
		const remoteService = 'https://api.service.example';
		const notHttps = await activationError({ updates: ['*'], options: {} }, 'http://n8n.example.com/');
		expect(notHttps?.message).toMatch(/not HTTPS.*Set n8n's WEBHOOK_URL.*Service Bot Polling Trigger/);
		const badPort = await activationError({ updates: ['*'], options: {} }, 'https://n8n.example.com:5678/');
		expect(badPort?.message).toMatch(/port 5678.*443, 80, 8080, 8443/);
		const loopback = await activationError({ updates: ['*'], options: {} }, 'http://localhost:5678/', remoteService);
		expect(loopback?.message).toMatch(/points to this machine, which the service cannot reach/);
		expect(emu.calls).toHaveLength(0);
		// HTTPS on an allowed port passes the check (the emulator accepts the URL; nothing is pushed here).
		expect(await activationError({ updates: ['*'], options: {} }, 'https://n8n.example.com:8443/')).toBeUndefined();
		expect(emu.webhookOf()?.url).toMatch(/^https:\/\/n8n\.example\.com:8443\/webhook\//);
	});
});
