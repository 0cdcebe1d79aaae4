/**
 * The triggers in real n8n 2.41.1: test and production of the webhook trigger (test-listen
 * then publish; a take-over test while published hands the webhook back), and the polling trigger.
 * Each workflow is an echo: trigger → Service Bot "Send Message" answering
 * `You said: <text> (<test|production>)`, so the chat shows which run answered.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';

import { DEMO_CREDENTIAL_NAME } from '../dev/demo';
import type { ScenarioContext } from './lib/context';
import type { EmulatorProcess, StoredMessage } from './lib/emulator';
import { PACKAGE_NAME } from './lib/install';
import type { Json, N8n } from './lib/n8n';
import { waitFor } from './lib/processes';
import { inSequence, sendMessage, serviceBotCredentials } from './lib/workflow';
import type { Scenario } from './lib/runner';

const WEBHOOK_TRIGGER = `${PACKAGE_NAME}.serviceBotTrigger`;
const POLLING_TRIGGER = `${PACKAGE_NAME}.serviceBotPollingTrigger`;
const TRIGGER_NAME = 'Bot Trigger';

interface Echo {
	id: string;
	webhookId: string;
	credentialId: string;
}

/** An echo workflow created through the REST API, as the editor saves it. */
async function createEcho(
	n8n: N8n,
	emulator: EmulatorProcess,
	trigger: { type: string; options?: Record<string, unknown> },
): Promise<Echo> {
	const credential = await n8n.request('POST', '/rest/credentials', {
		name: DEMO_CREDENTIAL_NAME,
		type: 'serviceBotApi',
		data: { accessToken: emulator.demo.token, baseUrl: emulator.baseUrl },
	});
	const webhookId = randomUUID();
	const created = await n8n.request('POST', '/rest/workflows', {
		name: `Echo (${trigger.type.split('.')[1]})`,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: randomUUID(),
				name: TRIGGER_NAME,
				type: trigger.type,
				typeVersion: 1,
				position: [0, 0],
				...(trigger.type === WEBHOOK_TRIGGER ? { webhookId } : {}),
				parameters: { updates: ['message'], options: { addHandyFields: true, ...trigger.options } },
				credentials: serviceBotCredentials(String(credential.id)),
			},
			sendMessage({
				id: randomUUID(),
				name: 'Echo',
				position: [300, 0],
				credentialId: String(credential.id),
				chatId: '={{ $json.chat_id }}',
				text: '=You said: {{ $json.text }} ({{ $execution.mode }})',
			}),
		],
		connections: inSequence(TRIGGER_NAME, 'Echo'),
	});
	return { id: String(created.id), webhookId, credentialId: String(credential.id) };
}

/** An emulator, a fresh n8n with its owner, and an echo workflow with that trigger. */
async function setUp(
	ctx: ScenarioContext,
	trigger: { type: string; options?: Record<string, unknown> },
): Promise<{ emulator: EmulatorProcess; n8n: N8n; echo: Echo }> {
	const emulator = await ctx.emulator();
	const n8n = await ctx.n8n();
	await n8n.start();
	await n8n.setupOwner();
	return { emulator, n8n, echo: await createEcho(n8n, emulator, trigger) };
}

/** The editor's "Listen for test event" on the trigger (a full manual run from that trigger). */
async function listenForTestEvent(n8n: N8n, workflowId: string): Promise<void> {
	const answer = await n8n.request('POST', `/rest/workflows/${workflowId}/run`, { triggerToStartFrom: { name: TRIGGER_NAME } });
	assert.equal(answer.waitingForWebhook, true, `n8n waits for a test event: ${JSON.stringify(answer)}`);
}

function botTexts(history: StoredMessage[]): string[] {
	return history.filter((message) => message.from?.is_bot === true).map((message) => message.text ?? '');
}

/** The user says `text`; resolves with the bot's answer to it (`You said: <text> (<mode>)`). */
async function say(emulator: EmulatorProcess, text: string, limitMs = 60_000): Promise<string> {
	await emulator.userSends(text);
	return await waitFor(
		`the echo of "${text}"`,
		async () => botTexts(await emulator.history()).find((answer) => answer.startsWith(`You said: ${text} (`)),
		{ limitMs },
	);
}

const testThenPublish: Scenario = {
	name: 'webhook trigger: listening for a test event, then publishing, works; the test ending leaves production answering',
	async run(ctx: ScenarioContext) {
		const { emulator, n8n, echo } = await setUp(ctx, { type: WEBHOOK_TRIGGER });
		const testUrl = `${n8n.baseUrl}/webhook-test/${echo.webhookId}/webhook`;
		const productionUrl = `${n8n.baseUrl}/webhook/${echo.webhookId}/webhook`;

		await listenForTestEvent(n8n, echo.id);
		const testHook = await waitFor('the test registration', async () => ((await emulator.webhook())?.url === testUrl ? true : undefined));
		assert.ok(testHook);
		ctx.log(`listening for a test event: the bot's webhook is the test URL ${testUrl}`);

		await n8n.activate(echo.id);
		const production = await waitFor('publishing to take the webhook', async () => {
			const hook = await emulator.webhook();
			return hook?.url === productionUrl ? hook : undefined;
		});
		assert.match(String(production.secretToken), /^[A-Za-z0-9_-]{32,256}$/);
		ctx.log(`published while the test listened: the production URL replaced the test registration`);
		assert.equal(await say(emulator, 'after publishing'), 'You said: after publishing (production)');
		ctx.log('a message is answered by the published workflow');

		// Stop listening: the test's delete (one getWebhookInfo) finds the production webhook and leaves it.
		const looked = (await emulator.calls('getWebhookInfo')).length;
		await n8n.request('DELETE', `/rest/test-webhook/${echo.id}`);
		await waitFor('the test registration to be removed', async () => ((await emulator.calls('getWebhookInfo')).length > looked ? true : undefined));
		assert.deepEqual(await emulator.webhook(), production, 'the production webhook is untouched');
		assert.equal((await emulator.calls('deleteWebhook')).length, 0);
		assert.equal(await say(emulator, 'after the test'), 'You said: after the test (production)');
		ctx.log('stopped listening: the production webhook is untouched and still answers');
	},
};

const takeOverWhilePublished: Scenario = {
	name: 'webhook trigger: a test with take-over while published hands the webhook back; the published workflow answers again',
	async run(ctx: ScenarioContext) {
		const { emulator, n8n, echo } = await setUp(ctx, { type: WEBHOOK_TRIGGER, options: { takeOverExistingWebhook: true, maxConnections: 5 } });
		const testUrl = `${n8n.baseUrl}/webhook-test/${echo.webhookId}/webhook`;
		const productionUrl = `${n8n.baseUrl}/webhook/${echo.webhookId}/webhook`;

		await n8n.activate(echo.id);
		const production = await waitFor('publishing to set the webhook', async () => {
			const hook = await emulator.webhook();
			return hook?.url === productionUrl ? hook : undefined;
		});
		assert.equal(await say(emulator, 'before the test'), 'You said: before the test (production)');
		ctx.log(`published: ${productionUrl} (max_connections ${production.maxConnections}) answers`);

		await listenForTestEvent(n8n, echo.id);
		await waitFor('the test to take the webhook over', async () => ((await emulator.webhook())?.url === testUrl ? true : undefined));
		ctx.log('listening for a test event with "Take Over Existing Webhook": the test holds the webhook');
		assert.equal(await say(emulator, 'during the test'), 'You said: during the test (test)');
		ctx.log('the test event ran the workflow in the editor (a test execution answered)');

		const handedBack = await waitFor('the webhook to be handed back', async () => {
			const hook = await emulator.webhook();
			return hook?.url === productionUrl ? hook : undefined;
		});
		assert.equal(handedBack.secretToken, production.secretToken, 'the same secret');
		assert.deepEqual(handedBack.allowedUpdates, production.allowedUpdates);
		assert.equal(handedBack.maxConnections, production.maxConnections);
		assert.equal((await emulator.calls('deleteWebhook')).length, 0, 'the webhook was never deleted');
		ctx.log('the test ended: the webhook is the production URL again, with its secret and options');

		assert.equal(await say(emulator, 'after the test'), 'You said: after the test (production)');
		const executions: Json[] = await waitFor('the executions', async () => {
			const list = await n8n.executions(echo.id);
			return list.length >= 3 ? list : undefined;
		});
		assert.deepEqual(executions.map((execution: Json) => execution.mode).sort(), ['manual', 'webhook', 'webhook']);
		ctx.log('the published workflow answers again (executions: webhook, manual, webhook)');
	},
};

/** Updates the service holds for the demo bot (not yet acknowledged). */
async function pendingUpdates(emulator: EmulatorProcess): Promise<Json[]> {
	const response = await fetch(`${emulator.baseUrl}/_emulator/updates?token=${encodeURIComponent(emulator.demo.token)}`);
	return (await response.json()) as Json[];
}

const pollingAcrossRestarts: Scenario = {
	name: 'polling trigger: a published workflow answers; messages sent while n8n is stopped are answered once after it starts again',
	async run(ctx: ScenarioContext) {
		const { emulator, n8n, echo } = await setUp(ctx, { type: POLLING_TRIGGER });
		await n8n.activate(echo.id);
		await waitFor('the trigger to poll', async () => ((await emulator.calls('getUpdates')).length > 0 ? true : undefined), { limitMs: 60_000 });
		assert.equal(await say(emulator, 'hello'), 'You said: hello (production)');
		ctx.log('published: the polling trigger answers a message');

		await n8n.stop();
		const whileStopped = ['one', 'two', 'three', 'four', 'five'];
		for (const text of whileStopped) await emulator.userSends(text);
		assert.equal((await pendingUpdates(emulator)).length, whileStopped.length, 'the service holds the messages sent while n8n is stopped');
		ctx.log(`n8n stopped; ${whileStopped.length} messages sent meanwhile wait at the service`);

		await n8n.start();
		await n8n.login();
		for (const text of whileStopped) await waitFor(`the echo of "${text}"`, async () => botTexts(await emulator.history()).includes(`You said: ${text} (production)`) || undefined);
		// A last message: once it is answered, anything answered twice would be there too.
		assert.equal(await say(emulator, 'last'), 'You said: last (production)');
		// Executions start in update order, and n8n runs them concurrently: the answers may interleave.
		const answers = botTexts(await emulator.history());
		assert.deepEqual(
			[...answers].sort(),
			['hello', ...whileStopped, 'last'].map((text) => `You said: ${text} (production)`).sort(),
			'every message answered once',
		);
		assert.equal(await emulator.webhook(), null, 'the bot never had a webhook');
		assert.equal((await emulator.calls('setWebhook')).length, 0);
		const executions = await n8n.executions(echo.id);
		assert.equal(executions.length, whileStopped.length + 2, 'one execution per message');
		ctx.log(`restarted: the ${whileStopped.length} messages were answered once each (${executions.length} executions); the bot never had a webhook`);
	},
};

const pollingTest: Scenario = {
	name: 'polling trigger: a test in the editor shows the next message without acknowledging it; publishing then answers it',
	async run(ctx: ScenarioContext) {
		const { emulator, n8n, echo } = await setUp(ctx, { type: POLLING_TRIGGER });

		const started = await n8n.request('POST', `/rest/workflows/${echo.id}/run`, { triggerToStartFrom: { name: TRIGGER_NAME } });
		assert.ok(started.executionId, `a manual execution waits for the trigger: ${JSON.stringify(started)}`);
		await waitFor('the test to poll', async () => ((await emulator.calls('getUpdates')).length > 0 ? true : undefined));
		assert.equal(await say(emulator, 'in the editor'), 'You said: in the editor (test)');
		const pending = await pendingUpdates(emulator);
		assert.deepEqual(pending.map((update: Json) => update.message?.text), ['in the editor'], 'the test did not acknowledge the update');
		for (const call of await emulator.calls('getUpdates')) {
			assert.equal(call.body.offset, undefined, 'a test sends no offset');
			assert.equal(call.body.allowed_updates, undefined, 'a test leaves the bot\'s update types alone');
		}
		ctx.log('the test execution showed the message; the service still holds it');

		await n8n.activate(echo.id);
		await waitFor('the published workflow to answer the same message', async () =>
			botTexts(await emulator.history()).includes('You said: in the editor (production)') || undefined,
		);
		assert.deepEqual(await pendingUpdates(emulator), []);
		ctx.log('published: the poller picked up the message the test had shown, and acknowledged it');
	},
};

export const TRIGGER_SCENARIOS: Scenario[] = [testThenPublish, takeOverWhilePublished, pollingAcrossRestarts, pollingTest];
