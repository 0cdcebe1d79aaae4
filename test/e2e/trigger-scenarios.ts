/**
 * The triggers in real n8n 2.41.1: test and production of the webhook trigger (issue 10: test-listen
 * then publish; a take-over test while published hands the webhook back), and the polling trigger
 * (issue 12). Each workflow is an echo: trigger → Service Bot "Send Message" answering
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
import type { Scenario } from './scenarios';

const WEBHOOK_TRIGGER = `${PACKAGE_NAME}.serviceBotTrigger`;
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
	const credentials = { serviceBotApi: { id: String(credential.id), name: DEMO_CREDENTIAL_NAME } };
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
				credentials,
			},
			{
				id: randomUUID(),
				name: 'Echo',
				type: `${PACKAGE_NAME}.serviceBot`,
				typeVersion: 1,
				position: [300, 0],
				parameters: {
					resource: 'message',
					operation: 'sendMessage',
					chatId: { __rl: true, mode: 'id', value: '={{ $json.chat_id }}' },
					text: '=You said: {{ $json.text }} ({{ $execution.mode }})',
					additionalFields: {},
					options: {},
				},
				credentials,
			},
		],
		connections: { [TRIGGER_NAME]: { main: [[{ node: 'Echo', type: 'main', index: 0 }]] } },
	});
	return { id: String(created.id), webhookId, credentialId: String(credential.id) };
}

async function publish(n8n: N8n, workflowId: string): Promise<void> {
	const workflow = await n8n.request('GET', `/rest/workflows/${workflowId}`);
	const activated = await n8n.request('POST', `/rest/workflows/${workflowId}/activate`, { versionId: workflow.versionId });
	assert.equal(activated.active, true, 'the workflow is published');
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
		const emulator = await ctx.emulator();
		const n8n = await ctx.n8n();
		await n8n.start();
		await n8n.setupOwner();
		const echo = await createEcho(n8n, emulator, { type: WEBHOOK_TRIGGER });
		const testUrl = `${n8n.baseUrl}/webhook-test/${echo.webhookId}/webhook`;
		const productionUrl = `${n8n.baseUrl}/webhook/${echo.webhookId}/webhook`;

		await listenForTestEvent(n8n, echo.id);
		const testHook = await waitFor('the test registration', async () => ((await emulator.webhook())?.url === testUrl ? true : undefined));
		assert.ok(testHook);
		ctx.log(`listening for a test event: the bot's webhook is the test URL ${testUrl}`);

		await publish(n8n, echo.id);
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
		const emulator = await ctx.emulator();
		const n8n = await ctx.n8n();
		await n8n.start();
		await n8n.setupOwner();
		const echo = await createEcho(n8n, emulator, { type: WEBHOOK_TRIGGER, options: { takeOverExistingWebhook: true, maxConnections: 5 } });
		const testUrl = `${n8n.baseUrl}/webhook-test/${echo.webhookId}/webhook`;
		const productionUrl = `${n8n.baseUrl}/webhook/${echo.webhookId}/webhook`;

		await publish(n8n, echo.id);
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

export const TRIGGER_SCENARIOS: Scenario[] = [testThenPublish, takeOverWhilePublished];
