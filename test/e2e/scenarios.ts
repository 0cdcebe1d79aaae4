/**
 * The end-to-end scenarios: the packed package installed into a real n8n 2.41.1, each scenario in
 * fresh n8n user folders, talking to the emulator over HTTP. `run.ts` runs them.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';

import { DEMO_CREDENTIAL_NAME, DEMO_TRIGGER, WORKFLOWS } from '../dev/demo';
import { ACTION_SCENARIOS, UPLOAD_SCENARIOS } from './action-scenarios';
import { AI_SCENARIOS, NOTHING_MAPPED_AI_SCENARIOS, PLACEHOLDER_AI_SCENARIOS, STREAMING_AI_SCENARIOS, TYPING_AI_SCENARIOS } from './ai-scenarios';
import { CHAT_SCENARIOS } from './chat-scenarios';
import { DELIVERY_SCENARIOS } from './delivery-scenarios';
import { NEW_USER_SCENARIOS } from './new-user-scenarios';
import { RESTART_SCENARIOS } from './restart-scenarios';
import { ANSWER_SCENARIOS, NOTHING_MAPPED_ANSWER_SCENARIOS } from './answer-scenarios';
import { launchBrowser, openNode, signIn, untilLoaded } from './lib/browser';
import type { StoredMessage } from '../real-n8n/emulator-process';
import { PACKAGE_NAME } from '../real-n8n/install';
import type { Json } from '../real-n8n/n8n';
import { waitFor } from '../real-n8n/processes';
import type { Scenario } from './lib/runner';
import { TRIGGER_SCENARIOS } from './trigger-scenarios';
import { UPGRADE_SCENARIOS } from './upgrade-scenarios';

const ACTION_TYPE = `${PACKAGE_NAME}.serviceBot`;
const TRIGGER_TYPE = `${PACKAGE_NAME}.serviceBotTrigger`;
const SECRET_HEADER = 'X-Service-Bot-Api-Secret-Token';

/** The keyboard of the "send a message with a keyboard" example (test/dev/workflows/send-keyboard.json). */
const EXAMPLE_KEYBOARD = [
	[
		{ text: 'Tea', callback_data: 'tea' },
		{ text: 'Coffee', callback_data: 'coffee' },
	],
	[{ text: 'About this bot', url: 'https://github.com/n8n-nodes-service-bot/n8n-nodes-service-bot' }],
];

/** The keyboard the echo bot (test/dev/workflows/demo-bot.json) puts under each echo. */
const ECHO_KEYBOARD = [
	[
		{ text: '👍 Nice', callback_data: 'nice' },
		{ text: '👎 Meh', callback_data: 'meh' },
	],
];

function names(list: Json[]): string[] {
	return list.map((entry: Json) => String(entry.name));
}

function propertyNames(type: Json): string[] {
	return (type.properties as Json[]).map((property: Json) => String(property.name));
}

function botMessages(history: StoredMessage[]): StoredMessage[] {
	return history.filter((message) => message.from?.is_bot === true);
}

const listed: Scenario = {
	name: 'n8n lists both nodes and the credential type, and the credential test passes',
	async run(ctx) {
		const emulator = await ctx.emulator();
		const n8n = await ctx.n8n();
		await n8n.start();
		ctx.log(`n8n ready at ${n8n.baseUrl}`);
		assert.doesNotMatch(n8n.serverOutput(), new RegExp(`Failed to load package "${PACKAGE_NAME}"`), 'n8n failed to load the package');
		await n8n.setupOwner();

		const nodes = (await n8n.request('GET', '/types/nodes.json')) as Json[];
		const action = nodes.find((node: Json) => node.name === ACTION_TYPE);
		const trigger = nodes.find((node: Json) => node.name === TRIGGER_TYPE);
		assert.ok(action, `${ACTION_TYPE} is not in /types/nodes.json (${nodes.length} types)`);
		assert.ok(trigger, `${TRIGGER_TYPE} is not in /types/nodes.json`);
		assert.equal(action.displayName, 'Service Bot');
		assert.equal(trigger.displayName, 'Service Bot Trigger');
		assert.deepEqual(action.credentials.map((credential: Json) => credential.name), ['serviceBotApi']);
		assert.ok(propertyNames(action).includes('resource') && propertyNames(action).includes('operation'));
		assert.ok(propertyNames(trigger).includes('updates'));
		assert.equal(trigger.webhooks?.[0]?.httpMethod, 'POST');
		assert.equal(action.usableAsTool, true, 'Service Bot should be usable as an AI tool');
		ctx.log(`/types/nodes.json lists ${ACTION_TYPE} and ${TRIGGER_TYPE} (of ${nodes.length} types)`);
		// n8n derives the AI-tool variant of a node that is usableAsTool.
		const tool = nodes.find((node: Json) => node.name === `${ACTION_TYPE}Tool`);
		assert.ok(tool, `${ACTION_TYPE}Tool (the AI-tool variant) is not listed`);

		const credentialTypes = (await n8n.request('GET', '/types/credentials.json')) as Json[];
		const credentialType = credentialTypes.find((type: Json) => type.name === 'serviceBotApi');
		assert.ok(credentialType, `serviceBotApi is not in /types/credentials.json (${names(credentialTypes).length} types)`);
		assert.equal(credentialType.displayName, 'Service Bot API');
		// n8n appends its own fields (allowed HTTP request domains) to every credential type.
		assert.deepEqual(propertyNames(credentialType).slice(0, 2), ['accessToken', 'baseUrl']);
		ctx.log('/types/credentials.json lists serviceBotApi (accessToken, baseUrl)');

		// The credential saved and tested as the editor does it ("Save", then the "Test" button).
		const saved = await n8n.request('POST', '/rest/credentials', {
			name: DEMO_CREDENTIAL_NAME,
			type: 'serviceBotApi',
			data: { accessToken: emulator.demo.token, baseUrl: emulator.baseUrl },
		});
		assert.ok(saved.id, 'the credential was saved');
		const test = async (accessToken: string): Promise<Json> =>
			await n8n.request('POST', '/rest/credentials/test', {
				credentials: { id: saved.id, name: DEMO_CREDENTIAL_NAME, type: 'serviceBotApi', data: { accessToken, baseUrl: emulator.baseUrl } },
			});
		const good = await test(emulator.demo.token);
		assert.equal(good.status, 'OK', `credential test with the demo token: ${JSON.stringify(good)}`);
		const bad = await test('123:not-a-token');
		assert.equal(bad.status, 'Error', `credential test with a wrong token: ${JSON.stringify(bad)}`);
		// n8n 1.x answers a refused credential test with its own text for a 401, not the credential's rule.
		assert.match(String(bad.message), n8n.options.install.major < 2 ? /^Authorization failed - please check your credentials/ : /401|token/i);
		ctx.log(`credential test: "${good.message}"; wrong token: "${bad.message}"`);
	},
};

const executed: Scenario = {
	name: 'an example workflow runs with `n8n execute` and the emulator holds the message and keyboard',
	async run(ctx) {
		const emulator = await ctx.emulator();
		const n8n = await ctx.n8n();
		await ctx.importDemo(n8n, emulator);
		const result = await n8n.execute(WORKFLOWS.sendKeyboard.id);
		assert.equal(result.code, 0, `n8n execute failed:\n${result.output.slice(-3000)}`);
		assert.equal(result.data?.status, 'success', 'n8n execute printed no successful run');
		ctx.log(`n8n execute --id=${WORKFLOWS.sendKeyboard.id}: exit 0, status ${result.data.status}`);

		const sent = await emulator.calls('sendMessage');
		assert.equal(sent.length, 1, 'exactly one sendMessage call');
		assert.deepEqual(sent[0].body.reply_markup, { inline_keyboard: EXAMPLE_KEYBOARD });
		const history = await emulator.history();
		assert.equal(history.length, 1);
		assert.equal(history[0].text, 'Hello from n8n! Which do you prefer?');
		assert.equal(history[0].from?.is_bot, true);
		assert.deepEqual(history[0].reply_markup, { inline_keyboard: EXAMPLE_KEYBOARD });
		ctx.log('the demo chat holds the bot\'s message with the 2-row inline keyboard');

		// The node's output in the run data is the sent message.
		const runData = result.data.data?.resultData?.runData?.['Send Message']?.[0]?.data?.main?.[0]?.[0]?.json;
		assert.equal(runData?.message_id, history[0].message_id, 'the node outputs the sent message');
	},
};

const triggered: Scenario = {
	name: 'a published trigger registers a secret webhook, runs on messages and clicks, refuses a wrong secret',
	async run(ctx) {
		const emulator = await ctx.emulator();
		const n8n = await ctx.n8n();
		await ctx.importDemo(n8n, emulator);
		await n8n.publish(WORKFLOWS.demoBot.id);
		ctx.log(`published ${WORKFLOWS.demoBot.id}`);
		await n8n.start();
		ctx.log(`n8n ready at ${n8n.baseUrl}`);

		const webhookUrl = `${n8n.baseUrl}/webhook/${DEMO_TRIGGER.webhookId}/webhook`;
		const hook = await waitFor('the trigger to set the webhook', async () => (await emulator.webhook()) ?? undefined, {
			limitMs: 60_000,
		});
		assert.equal(hook.url, webhookUrl);
		assert.match(String(hook.secretToken), /^[A-Za-z0-9_-]{32,256}$/, 'the webhook has a secret');
		assert.deepEqual(hook.allowedUpdates, ['message', 'callback_query']);
		const methods = (await emulator.calls()).map((call) => call.method);
		assert.deepEqual([...new Set(methods)].sort(), ['getWebhookInfo', 'setWebhook'], 'activation reads, then sets the webhook');
		assert.equal(methods.filter((method) => method === 'setWebhook').length, 1);
		ctx.log(`webhook ${hook.url} with a ${String(hook.secretToken).length}-character secret`);
		await n8n.setupOwner();

		// A message from the demo user → the echo with its keyboard.
		await emulator.userSends('hello n8n');
		const echo = await waitFor('the echo in the chat', async () =>
			botMessages(await emulator.history()).find((message) => message.text === 'You said: hello n8n'),
		);
		assert.deepEqual(echo.reply_markup, { inline_keyboard: ECHO_KEYBOARD });
		ctx.log(`the echo arrived (message ${echo.message_id}) with its keyboard`);

		// A click on a button of the echo → answered, and the message edited.
		await emulator.userClicks(echo.message_id, 'nice');
		const edited = await waitFor('the edited echo', async () =>
			(await emulator.history()).find((message) => message.message_id === echo.message_id && message.edit_date !== undefined),
		);
		assert.equal(edited.text, 'You said: hello n8n\nYou chose: nice');
		assert.equal(edited.reply_markup, undefined, 'the edit removed the keyboard');
		const answers = await emulator.callbackAnswers();
		assert.equal(answers.length, 1);
		assert.equal(answers[0].text, 'You chose nice');
		ctx.log('the click was answered ("You chose nice") and the message edited');

		const before = await waitFor('both executions to be listed', async () => {
			const list = await n8n.executions(WORKFLOWS.demoBot.id);
			return list.length === 2 && list.every((execution: Json) => execution.status === 'success') ? list : undefined;
		});
		ctx.log(`${before.length} successful executions`);

		// Requests without the right secret: refused, and nothing runs.
		const forged = {
			update_id: 999,
			message: {
				message_id: 999,
				date: Math.floor(Date.now() / 1000),
				chat: { id: emulator.demo.privateChatId, type: 'private' },
				from: { id: emulator.demo.userId, is_bot: false, first_name: 'Demo' },
				text: 'forged',
			},
		};
		const attempts: Array<Record<string, string>> = [{ [SECRET_HEADER]: 'wrong-secret-0123456789abcdef0123' }, {}];
		for (const headers of attempts) {
			const response = await fetch(webhookUrl, {
				method: 'POST',
				headers: { 'content-type': 'application/json', ...headers },
				body: JSON.stringify(forged),
			});
			assert.equal(response.status, 403, `a request ${SECRET_HEADER in headers ? 'with a wrong' : 'without a'} secret`);
		}
		ctx.log('requests with a wrong secret and without a secret: 403');
		// A genuine message after the forged ones: once its echo is there, the forged ones had their chance.
		await emulator.userSends('after the forgery');
		await waitFor('the echo of the genuine message', async () =>
			botMessages(await emulator.history()).find((message) => message.text === 'You said: after the forgery'),
		);
		const after = await waitFor('the genuine execution to be listed', async () => {
			const list = await n8n.executions(WORKFLOWS.demoBot.id);
			return list.length >= 3 ? list : undefined;
		});
		assert.equal(after.length, 3, 'only the genuine message ran the workflow');
		assert.ok(!botMessages(await emulator.history()).some((message) => message.text === 'You said: forged'));
		ctx.log('the forged requests ran nothing (3 executions: 2 before + the genuine one)');
	},
};

const deactivated: Scenario = {
	name: 'activation through the REST API sets the webhook, deactivation removes it',
	async run(ctx) {
		const emulator = await ctx.emulator();
		const n8n = await ctx.n8n();
		await n8n.start();
		ctx.log(`n8n ready at ${n8n.baseUrl}`);
		await n8n.setupOwner();
		const id = (await ctx.createDemo(n8n, emulator)).workflowIds.demoBot;
		assert.equal(await emulator.webhook(), null, 'no webhook before activation');

		const workflow = await n8n.request('GET', `/rest/workflows/${id}`);
		const activated = await n8n.request('POST', `/rest/workflows/${id}/activate`, { versionId: workflow.versionId });
		assert.equal(activated.active, true);
		// n8n registers the webhooks after answering.
		const hook = await waitFor('activation to set the webhook', async () => (await emulator.webhook()) ?? undefined, { limitMs: 60_000 });
		assert.equal(hook.url, `${n8n.baseUrl}/webhook/${DEMO_TRIGGER.webhookId}/webhook`);
		assert.ok(hook.secretToken);
		ctx.log(`POST /rest/workflows/${id}/activate: the emulator holds ${hook.url}`);

		const result = await n8n.request('POST', `/rest/workflows/${id}/deactivate`, {});
		assert.equal(result.active, false);
		await waitFor('deactivation to remove the webhook', async () => (await emulator.webhook()) === null, { limitMs: 60_000 });
		assert.equal((await emulator.calls('deleteWebhook')).length, 1);
		ctx.log(`POST /rest/workflows/${id}/deactivate: deleteWebhook called, the bot has no webhook`);

		// With no webhook, a message waits in the service's queue and runs nothing.
		await emulator.userSends('nobody listens');
		const pending = await emulator.pendingUpdates();
		assert.ok(
			pending.some((update) => (update.message as { text?: string } | undefined)?.text === 'nobody listens'),
			`the service keeps the message for a later listener: ${JSON.stringify(pending)}`,
		);
		assert.equal(botMessages(await emulator.history()).length, 0);
	},
};

const screenshots: Scenario = {
	name: 'the editor shows both nodes\' parameter panels (headless Chromium screenshots)',
	async run(ctx) {
		const emulator = await ctx.emulator();
		const n8n = await ctx.n8n();
		await n8n.start();
		await n8n.setupOwner();
		ctx.log(`n8n ready at ${n8n.baseUrl}`);
		const { credentialId, workflowIds } = await ctx.createDemo(n8n, emulator);

		const browser = await launchBrowser(ctx.install);
		ctx.defer(() => browser.close());
		const { page } = browser;
		await signIn(page, n8n.baseUrl);
		ctx.log('logged in to the editor');

		// The echo bot on the canvas: all five nodes render (none shown as an unknown node).
		await page.goto(`${n8n.baseUrl}/workflow/${workflowIds.demoBot}`, { waitUntil: 'domcontentloaded', timeout: 120_000 });
		const canvasNodes = page.locator('[data-test-id="canvas-node"]');
		await waitFor('the five nodes of the echo bot on the canvas', async () => (await canvasNodes.count()) === 5, { limitMs: 60_000 });
		await untilLoaded(page);
		const canvasShot = join(ctx.screenshotDir, 'demo-bot-workflow.png');
		await page.screenshot({ path: canvasShot });
		ctx.log(`the echo bot workflow shows its 5 nodes → ${canvasShot}`);

		/** `scrollTo`: a text of the panel brought into view before the screenshot. */
		const shots: Array<{ workflow: string; node: string; file: string; expected: string[]; scrollTo?: string }> = [
			{
				workflow: workflowIds.demoBot,
				node: 'Answer the Click',
				file: 'service-bot-answer-callback-query.png',
				expected: [DEMO_CREDENTIAL_NAME, 'Resource', 'Callback', 'Operation', 'Answer Callback Query', 'Callback Query ID', 'Additional Fields'],
			},
			{
				workflow: workflowIds.demoBot,
				node: 'Service Bot Trigger',
				file: 'service-bot-trigger.png',
				expected: [DEMO_CREDENTIAL_NAME, 'Several workflows of this n8n can listen to one bot', 'Trigger On', 'Message', 'Callback Query', 'Options', 'Add Handy Fields'],
			},
			{
				workflow: workflowIds.approval,
				node: 'Ask for Approval',
				file: 'service-bot-send-and-wait.png',
				scrollTo: 'Collect Answers',
				expected: [
					DEMO_CREDENTIAL_NAME,
					'Send and Wait for Response',
					'Chat',
					'Message',
					'Refund order #{{ $json.order }}',
					'Response Type',
					'Approval',
					'Collect Answers',
					'In the Chat',
					'In the Chat needs a published Service Bot Trigger or Service Bot Polling Trigger on the same bot',
					'Options',
				],
			},
			{
				workflow: workflowIds.sendKeyboard,
				node: 'Send Message',
				file: 'service-bot-send-message.png',
				expected: [
					DEMO_CREDENTIAL_NAME,
					'Resource',
					'Message',
					'Operation',
					'Send Message',
					'Chat',
					'Text',
					'Hello from n8n! Which do you prefer?',
					'Reply Markup',
					'Inline Keyboard',
					'Define Keyboard',
					'Using Fields Below',
					'Button Text',
					'Tea',
					'Coffee',
					'Additional Fields',
				],
			},
		];
		for (const shot of shots) {
			if (!page.url().endsWith(`/workflow/${shot.workflow}`)) {
				await page.goto(`${n8n.baseUrl}/workflow/${shot.workflow}`, { waitUntil: 'domcontentloaded', timeout: 120_000 });
			}
			const text = await openNode(page, shot.node, shot.expected, join(ctx.screenshotDir, shot.file.replace('.png', '-failed.png')));
			assert.doesNotMatch(text, /Install this node to use it|node is not currently installed|unrecognized node/i);
			if (shot.scrollTo) await page.locator('[data-test-id="node-parameters"]').locator(`text=${shot.scrollTo}`).first().scrollIntoViewIfNeeded();
			const path = join(ctx.screenshotDir, shot.file);
			await page.screenshot({ path });
			ctx.log(`${shot.node}: the panel shows ${shot.expected.join(', ')} → ${path}`);
			await page.keyboard.press('Escape');
			await page.locator('[data-test-id="node-parameters"]').first().waitFor({ state: 'hidden', timeout: 30_000 });
		}

		// The example runs from the editor too (a manual execution, as a user starts it).
		const execute = page.locator('[data-test-id="execute-workflow-button"]').first();
		await execute.waitFor({ state: 'visible', timeout: 30_000 });
		await execute.click();
		const sent = await waitFor('the message sent from the editor', async () =>
			(await emulator.history()).find((message) => message.text === 'Hello from n8n! Which do you prefer?'),
		);
		assert.deepEqual(sent.reply_markup, { inline_keyboard: EXAMPLE_KEYBOARD });
		const executedShot = join(ctx.screenshotDir, 'send-keyboard-executed.png');
		await page.screenshot({ path: executedShot });
		ctx.log(`"Execute workflow" in the editor sent the message with its keyboard → ${executedShot}`);

		// The credential, as the editor shows it.
		await page.goto(`${n8n.baseUrl}/home/credentials/${credentialId}`, { waitUntil: 'domcontentloaded', timeout: 120_000 });
		const modal = page.locator('[data-test-id="editCredential-modal"]').first();
		await modal.waitFor({ state: 'visible', timeout: 60_000 });
		await waitFor('the credential modal to show its fields', async () => {
			const text = await modal.innerText();
			return text.includes('Access Token') && text.includes('Base URL');
		}, { limitMs: 30_000 });
		const path = join(ctx.screenshotDir, 'service-bot-credential.png');
		await page.screenshot({ path });
		ctx.log(`credential: the modal shows Access Token, Base URL → ${path}`);

		// Where people look: "bot" in the node panel of a new workflow (the nodes' codex aliases).
		await page.goto(`${n8n.baseUrl}/workflow/new`, { waitUntil: 'domcontentloaded', timeout: 120_000 });
		await page.locator('[data-test-id="canvas-add-button"]').first().click({ timeout: 60_000 });
		await page.locator('[data-test-id="node-creator-search-bar"]').first().fill('bot', { timeout: 30_000 });
		const names = page.locator('[data-test-id="node-creator-item-name"]');
		// The panel first lists its categories ("Trigger manually", …); the search replaces them.
		const top = await waitFor('search results for "bot"', async () => {
			const count = await names.count();
			if (count < 3) return undefined;
			const first = await Promise.all([0, 1, 2].map(async (index) => (await names.nth(index).innerText()).trim()));
			return first.includes('Trigger manually') ? undefined : first;
		}, { limitMs: 30_000 });
		const searchShot = join(ctx.screenshotDir, 'node-panel-search-bot.png');
		await page.screenshot({ path: searchShot });
		assert.ok(top.some((name) => name.startsWith('Service Bot')), `a Service Bot node among the first three results for "bot": ${JSON.stringify(top)}`);
		ctx.log(`"bot" in the node panel: first three results ${JSON.stringify(top)} → ${searchShot}`);
	},
};

export const SCENARIOS: Scenario[] = [listed, executed, triggered, deactivated, screenshots, ...TRIGGER_SCENARIOS, ...ACTION_SCENARIOS, ...ANSWER_SCENARIOS, ...AI_SCENARIOS, ...CHAT_SCENARIOS, ...UPLOAD_SCENARIOS, ...UPGRADE_SCENARIOS, ...DELIVERY_SCENARIOS, ...NOTHING_MAPPED_ANSWER_SCENARIOS, ...NOTHING_MAPPED_AI_SCENARIOS, ...STREAMING_AI_SCENARIOS, ...RESTART_SCENARIOS, ...NEW_USER_SCENARIOS, ...PLACEHOLDER_AI_SCENARIOS, ...TYPING_AI_SCENARIOS];
