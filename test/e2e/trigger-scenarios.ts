/**
 * The triggers in real n8n 2.41.1: test and production of the webhook trigger (test-listen then
 * publish; a test while published: both listen), and the polling trigger.
 * Each workflow is an echo: trigger → Service Bot "Send Message" answering
 * `You said: <text> (<test|production>)`, so the chat shows which run answered.
 */
import { parse as parseFlatted } from 'flatted';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';

import { DEMO_CREDENTIAL_NAME } from '../dev/demo';
import type { ScenarioContext } from './lib/context';
import type { EmulatorProcess, StoredMessage } from '../real-n8n/emulator-process';
import { PACKAGE_NAME } from '../real-n8n/install';
import { hasEnded, type Json, type N8n } from '../real-n8n/n8n';
import { waitFor } from '../real-n8n/processes';
import { inSequence, pollingTrigger, sendMessage, serviceBotCredentials, webhookTrigger } from './lib/workflow';
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
	const created = await n8n.createWorkflow({
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
	const answer = await n8n.runManually(workflowId, { triggerToStartFrom: { name: TRIGGER_NAME } });
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

/** The user says `text`; resolves once each of `modes` answered it, with every answer it got. */
async function sayToAll(emulator: EmulatorProcess, text: string, modes: string[], limitMs = 60_000): Promise<string[]> {
	await emulator.userSends(text);
	const wanted = modes.map((mode) => `You said: ${text} (${mode})`);
	return await waitFor(
		`the echoes of "${text}" (${modes.join(', ')})`,
		async () => {
			const answers = botTexts(await emulator.history()).filter((answer) => answer.startsWith(`You said: ${text} (`));
			return wanted.every((answer) => answers.includes(answer)) ? answers : undefined;
		},
		{ limitMs },
	);
}

/** The listeners the bot's webhook names (`p`/`t` + path), or its plain path when it has one listener. */
function listenersOf(hook: { url: string } | null): string[] {
	if (!hook) return [];
	const url = new URL(hook.url);
	const list = url.searchParams.get('service-bot-listeners');
	return list === null ? [url.pathname] : list.split(',');
}

const testThenPublish: Scenario = {
	name: 'webhook trigger: listening for a test event, then publishing: both listen, both answer; the test ends after its event and the published workflow keeps answering',
	async run(ctx: ScenarioContext) {
		const { emulator, n8n, echo } = await setUp(ctx, { type: WEBHOOK_TRIGGER });
		const testUrl = `${n8n.baseUrl}/webhook-test/${echo.webhookId}/webhook`;
		const productionUrl = `${n8n.baseUrl}/webhook/${echo.webhookId}/webhook`;
		const testPath = new URL(testUrl).pathname;
		const productionPath = new URL(productionUrl).pathname;

		await listenForTestEvent(n8n, echo.id);
		await waitFor('the test registration', async () => ((await emulator.webhook())?.url === testUrl ? true : undefined));
		ctx.log(`listening for a test event: the bot's webhook is the test URL ${testUrl}`);

		await n8n.activate(echo.id);
		const both = await waitFor('publishing to join the test', async () => {
			const listed = listenersOf(await emulator.webhook());
			return listed.length === 2 ? listed : undefined;
		});
		assert.deepEqual(both, [`p${productionPath}`, `t${testPath}`], 'the published workflow receives, the test is listed');
		ctx.log(`published while the test listened: the bot's webhook lists both (${both.join(', ')})`);
		const answers = await sayToAll(emulator, 'after publishing', ['production', 'test']);
		assert.equal(answers.length, 2, `one answer each: ${JSON.stringify(answers)}`);
		ctx.log('a message is answered by the published workflow and by the test');

		// The test ended with its event: n8n removed its registration, the published workflow is alone.
		await waitFor('the test registration to leave', async () => ((await emulator.webhook())?.url === productionUrl ? true : undefined));
		assert.equal((await emulator.calls('deleteWebhook')).length, 0);
		assert.deepEqual(await sayToAll(emulator, 'after the test', ['production']), ['You said: after the test (production)']);
		await emulator.idle();
		assert.deepEqual(
			botTexts(await emulator.history()).filter((answer) => answer.startsWith('You said: after the test')),
			['You said: after the test (production)'],
		);
		ctx.log('the test ended: the bot\'s webhook is the production URL alone, which still answers');
	},
};

const testWhilePublished: Scenario = {
	name: 'webhook trigger: a test while published joins (no take-over needed); both answer during the test, the published workflow alone after it, Max Connections kept',
	async run(ctx: ScenarioContext) {
		// A workflow saved with the take-over option on keeps working: the option is not needed any more.
		const { emulator, n8n, echo } = await setUp(ctx, { type: WEBHOOK_TRIGGER, options: { takeOverExistingWebhook: true, maxConnections: 5 } });
		const testUrl = `${n8n.baseUrl}/webhook-test/${echo.webhookId}/webhook`;
		const productionUrl = `${n8n.baseUrl}/webhook/${echo.webhookId}/webhook`;

		await n8n.activate(echo.id);
		const production = await waitFor('publishing to set the webhook', async () => {
			const hook = await emulator.webhook();
			return hook?.url === productionUrl ? hook : undefined;
		});
		assert.deepEqual(await sayToAll(emulator, 'before the test', ['production']), ['You said: before the test (production)']);
		ctx.log(`published: ${productionUrl} (max_connections ${production.maxConnections}) answers`);

		await listenForTestEvent(n8n, echo.id);
		const listed = await waitFor('the test to join', async () => {
			const hook = await emulator.webhook();
			return listenersOf(hook).length === 2 ? hook : undefined;
		});
		assert.deepEqual(listenersOf(listed), [`p${new URL(productionUrl).pathname}`, `t${new URL(testUrl).pathname}`]);
		assert.equal(listed?.maxConnections, 5);
		ctx.log('listening for a test event while published: the test joins, the published workflow still receives first');
		const answers = await sayToAll(emulator, 'during the test', ['production', 'test']);
		assert.equal(answers.length, 2);
		ctx.log('during the test, both the published workflow and the test answered');

		const alone = await waitFor('the published workflow alone again', async () => {
			const hook = await emulator.webhook();
			return hook?.url === productionUrl ? hook : undefined;
		});
		assert.equal(alone.maxConnections, 5);
		assert.deepEqual(alone.allowedUpdates, production.allowedUpdates);
		assert.equal((await emulator.calls('deleteWebhook')).length, 0, 'the webhook was never deleted');
		assert.deepEqual(await sayToAll(emulator, 'after the test', ['production']), ['You said: after the test (production)']);
		const executions: Json[] = await waitFor('the executions', async () => {
			const list = await n8n.executions(echo.id);
			return list.length >= 4 ? list : undefined;
		});
		assert.deepEqual(executions.map((execution: Json) => execution.mode).sort(), ['manual', 'webhook', 'webhook', 'webhook']);
		ctx.log('after the test the published workflow answers alone (executions: webhook ×3, manual)');
	},
};

/** A workflow of its own on the same bot: its trigger's Trigger On and options, its answer's text. */
async function createListener(
	n8n: N8n,
	credentialId: string,
	name: string,
	trigger: { updates: string[]; options?: Record<string, unknown>; polling?: true },
	text: string,
): Promise<Echo> {
	const webhookId = randomUUID();
	// Version 2, as a node added in the editor today: chat_id without turning anything on, chatInput for agents.
	const placed = { id: randomUUID(), name: TRIGGER_NAME, position: [0, 0] as [number, number], credentialId, typeVersion: 2 as const, updates: trigger.updates, options: trigger.options };
	const created = await n8n.createWorkflow({
		name,
		settings: { executionOrder: 'v1' },
		nodes: [
			trigger.polling ? pollingTrigger(placed) : webhookTrigger({ ...placed, webhookId }),
			sendMessage({ id: randomUUID(), name: 'Answer', position: [300, 0], credentialId, chatId: '={{ $json.chat_id }}', text }),
		],
		connections: inSequence(TRIGGER_NAME, 'Answer'),
	});
	return { id: String(created.id), webhookId, credentialId };
}

/** The answers of the listener workflows (`A: …`, `B: …`, `C: …`, a test's `T: …`) in a chat. */
async function listenerAnswers(emulator: EmulatorProcess, chatId: string): Promise<string[]> {
	return botTexts(await emulator.history(chatId)).filter((text) => /^[ABCT]: /.test(text));
}

async function untilAnswered(emulator: EmulatorProcess, chatId: string, wanted: string): Promise<void> {
	await waitFor(`"${wanted}"`, async () => ((await listenerAnswers(emulator, chatId)).includes(wanted) ? true : undefined), { limitMs: 60_000 });
}

/** A private message, a group message and a click (p<round>, g<round>, k<round>), answered by A, C and B. */
async function eachAnswersItsOwn(emulator: EmulatorProcess, round: number): Promise<void> {
	const { privateChatId, groupChatId } = emulator.demo;
	await emulator.userSends(`p${round}`);
	await emulator.userSends(`g${round}`, groupChatId);
	await tapInGroup(emulator, `k${round}`);
	await untilAnswered(emulator, privateChatId, `A: p${round}`);
	await untilAnswered(emulator, groupChatId, `C: g${round}`);
	await untilAnswered(emulator, groupChatId, `B: k${round}`);
}

/** The bot posts a button in the demo group; the demo user taps it. */
async function tapInGroup(emulator: EmulatorProcess, data: string): Promise<void> {
	const { token, groupChatId } = emulator.demo;
	const sent = await fetch(`${emulator.baseUrl}/bot${token}/sendMessage`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ chat_id: groupChatId, text: `Tap ${data}`, reply_markup: { inline_keyboard: [[{ text: data, callback_data: data }]] } }),
	});
	const { result } = (await sent.json()) as { result: { message_id: number } };
	await emulator.userClicks(result.message_id, data, { chatId: groupChatId });
}

const threeWorkflowsOneBot: Scenario = {
	name: 'webhook trigger: three published workflows on one bot each answer only their own updates; a test on a fourth listens beside them; unpublishing the receiver and restarting n8n lose nothing',
	async run(ctx: ScenarioContext) {
		const { emulator, n8n, echo: unused } = await setUp(ctx, { type: WEBHOOK_TRIGGER });
		const { privateChatId, groupChatId } = emulator.demo;
		const credentialId = unused.credentialId;
		const privateOnly = await createListener(n8n, credentialId, 'Private messages', { updates: ['message'], options: { chatIds: privateChatId } }, '=A: {{ $json.chatInput }}');
		const clicks = await createListener(n8n, credentialId, 'Button clicks', { updates: ['callback_query'] }, '=B: {{ $json.chatInput }}');
		const group = await createListener(n8n, credentialId, 'Group messages', { updates: ['message'], options: { chatIds: groupChatId } }, '=C: {{ $json.chatInput }}');
		await n8n.activate(privateOnly.id);
		await waitFor('the first to register', async () => (listenersOf(await emulator.webhook()).length === 1 ? true : undefined));
		// n8n publishes in the background: these two register at about the same time.
		for (const workflow of [clicks, group]) await n8n.activate(workflow.id);
		const path = (workflow: Echo, run: 'p' | 't' = 'p'): string => `${run}/${run === 'p' ? 'webhook' : 'webhook-test'}/${workflow.webhookId}/webhook`;
		const three = await waitFor('the three to listen', async () => {
			const listed = listenersOf(await emulator.webhook());
			return listed.length === 3 ? listed : undefined;
		});
		assert.equal(three[0], path(privateOnly), 'the first published receives');
		assert.deepEqual([...three].sort(), [path(privateOnly), path(clicks), path(group)].sort());
		const setWebhooks = (await emulator.calls('setWebhook')).length;
		ctx.log(`three workflows published on one bot, two at about the same time: its webhook lists all three, the first receives (${setWebhooks} setWebhook calls)`);

		const answersIn = async (chatId: string): Promise<string[]> => await listenerAnswers(emulator, chatId);
		const until = async (chatId: string, wanted: string): Promise<void> => await untilAnswered(emulator, chatId, wanted);
		const tap = async (data: string): Promise<void> => await tapInGroup(emulator, data);

		await eachAnswersItsOwn(emulator, 1);
		ctx.log('a private message, a group message and a click: each answered by its own workflow only, from chatInput (trigger version 2)');

		// A fourth workflow, tested in the editor while the three stay published.
		const tested = await createListener(n8n, credentialId, 'Being edited', { updates: ['message'] }, '=T: {{ $json.chatInput }} ({{ $json.sessionId === $json.chat_id }})');
		await listenForTestEvent(n8n, tested.id);
		await waitFor('the test to join', async () => (listenersOf(await emulator.webhook()).length === 4 ? true : undefined));
		await emulator.userSends('p2');
		await until(privateChatId, 'T: p2 (true)');
		await until(privateChatId, 'A: p2');
		await waitFor('the test to leave', async () => (listenersOf(await emulator.webhook()).length === 3 ? true : undefined));
		ctx.log('a test on a fourth workflow got its event (its sessionId is the chat) while the published one answered it too; the test then left the list');

		// Unpublish the receiver: the next published workflow receives.
		const remaining = three.slice(1);
		await n8n.deactivate(privateOnly.id);
		await waitFor('the receiver to leave', async () => (listenersOf(await emulator.webhook()).length === 2 ? true : undefined));
		assert.deepEqual(listenersOf(await emulator.webhook()), remaining);
		await emulator.userSends('g2', groupChatId);
		await tap('k2');
		await until(groupChatId, 'C: g2');
		await until(groupChatId, 'B: k2');
		ctx.log('the receiver unpublished: the other two keep answering');

		await n8n.stop();
		await n8n.start();
		await n8n.login();
		await emulator.userSends('g3', groupChatId);
		await tap('k3');
		await until(groupChatId, 'C: g3');
		await until(groupChatId, 'B: k3');
		assert.deepEqual(listenersOf(await emulator.webhook()), remaining);
		ctx.log('n8n restarted: the list is unchanged and both workflows answer');

		await emulator.userSends('p3');
		await emulator.userSends('g4', groupChatId);
		await until(groupChatId, 'C: g4');
		await emulator.idle();
		// Every answer once, and none from a workflow that was not selected or not published.
		assert.deepEqual((await answersIn(privateChatId)).sort(), ['A: p1', 'A: p2', 'T: p2 (true)'].sort());
		assert.deepEqual((await answersIn(groupChatId)).sort(), ['C: g1', 'B: k1', 'C: g2', 'B: k2', 'C: g3', 'B: k3', 'C: g4'].sort());
		assert.equal((await emulator.calls('deleteWebhook')).length, 0);
		ctx.log('every update answered once by each workflow that selects it, none by another');
	},
};

const threePollingWorkflowsOneBot: Scenario = {
	name: 'polling trigger: three published workflows on one bot each answer only their own updates, with one consumer; a test on a fourth shows beside them; messages sent while n8n is stopped reach each once',
	async run(ctx: ScenarioContext) {
		const { emulator, n8n, echo: unused } = await setUp(ctx, { type: POLLING_TRIGGER });
		const { privateChatId, groupChatId } = emulator.demo;
		const credentialId = unused.credentialId;
		const privateOnly = await createListener(n8n, credentialId, 'Private messages', { polling: true, updates: ['message'], options: { chatIds: privateChatId } }, '=A: {{ $json.chatInput }}');
		const clicks = await createListener(n8n, credentialId, 'Button clicks', { polling: true, updates: ['callback_query'] }, '=B: {{ $json.chatInput }}');
		const group = await createListener(n8n, credentialId, 'Group messages', { polling: true, updates: ['message'], options: { chatIds: groupChatId } }, '=C: {{ $json.chatInput }}');
		for (const workflow of [privateOnly, clicks, group]) await n8n.activate(workflow.id);
		await waitFor('the feed to poll', async () => ((await emulator.calls('getUpdates')).length > 0 ? true : undefined), { limitMs: 60_000 });

		const answersIn = async (chatId: string): Promise<string[]> => await listenerAnswers(emulator, chatId);
		const until = async (chatId: string, wanted: string): Promise<void> => await untilAnswered(emulator, chatId, wanted);
		const tap = async (data: string): Promise<void> => await tapInGroup(emulator, data);

		// n8n publishes in the background, and a workflow that joins the bot's feed later starts with the
		// updates after it: write to each until it answers, so all three poll before the updates counted.
		const ready = async (what: string, send: (text: string) => Promise<unknown>, chatId: string, prefix: string): Promise<void> => {
			for (let attempt = 0; ; attempt++) {
				assert.ok(attempt < 30, `${what} never answered`);
				await send(`w${attempt}`);
				const answered = await waitFor(what, async () => (await answersIn(chatId)).some((text) => text.startsWith(`${prefix}: w`)), { limitMs: 2000 }).catch(() => false);
				if (answered) return;
			}
		};
		await ready('Private messages', async (text) => await emulator.userSends(text), privateChatId, 'A');
		await ready('Group messages', async (text) => await emulator.userSends(text, groupChatId), groupChatId, 'C');
		await ready('Button clicks', tap, groupChatId, 'B');
		const counted = async (chatId: string): Promise<string[]> => (await answersIn(chatId)).filter((text) => !/^[ABCT]: w\d+$/.test(text));

		await eachAnswersItsOwn(emulator, 1);
		ctx.log('three polling workflows on one bot: a private message, a group message and a click, each answered by its own workflow only');

		const tested = await createListener(n8n, credentialId, 'Being edited', { polling: true, updates: ['message'] }, '=T: {{ $json.chatInput }}');
		const started = await n8n.runManually(tested.id, { triggerToStartFrom: { name: TRIGGER_NAME } });
		assert.ok(started.executionId, `a manual execution waits for the trigger: ${JSON.stringify(started)}`);
		// The test joins the feed once n8n has started it, which nothing outside shows: write until it answers.
		const duringTest: string[] = [];
		let shown: string | undefined;
		while (shown === undefined) {
			assert.ok(duringTest.length < 30, 'the test showed none of 30 messages');
			const text = `p2.${duringTest.length}`;
			duringTest.push(text);
			await emulator.userSends(text);
			shown = await waitFor('an answer of the test', async () => (await answersIn(privateChatId)).find((answer) => answer.startsWith('T: ')), { limitMs: 2000 }).catch(() => undefined);
		}
		for (const text of duringTest) await until(privateChatId, `A: ${text}`);
		ctx.log(`a test on a fourth workflow showed "${shown.slice(3)}" while the published one answered all ${duringTest.length} messages sent during the test`);

		await n8n.stop();
		await emulator.userSends('p3');
		await emulator.userSends('g2', groupChatId);
		await tap('k2');
		await n8n.start();
		await n8n.login();
		await until(privateChatId, 'A: p3');
		await until(groupChatId, 'C: g2');
		await until(groupChatId, 'B: k2');
		ctx.log('n8n restarted: the three messages sent while it was stopped reached each workflow that selects them');

		await emulator.userSends('g3', groupChatId);
		await until(groupChatId, 'C: g3');
		await emulator.idle();
		assert.deepEqual((await counted(privateChatId)).sort(), ['A: p1', ...duringTest.map((text) => `A: ${text}`), shown, 'A: p3'].sort());
		assert.deepEqual((await counted(groupChatId)).sort(), ['C: g1', 'B: k1', 'C: g2', 'B: k2', 'C: g3'].sort());
		const polls = await emulator.calls('getUpdates');
		assert.equal(polls.filter((call) => call.status === 409).length, 0, 'the service never saw two consumers');
		assert.equal(await emulator.webhook(), null);
		ctx.log(`every update answered once by each workflow that selects it, none by another; ${polls.length} getUpdates, none refused with 409`);
	},
};

const outputsByKind: Scenario = {
	name: 'webhook trigger with Separate Outputs by Kind in real n8n: a message, a /command and a click each run only the branch of their output',
	async run(ctx: ScenarioContext) {
		const { emulator, n8n, echo: unused } = await setUp(ctx, { type: WEBHOOK_TRIGGER });
		const { privateChatId } = emulator.demo;
		const credentialId = unused.credentialId;
		const webhookId = randomUUID();
		const answer = (name: string, text: string, y: number): Record<string, unknown> =>
			sendMessage({ id: randomUUID(), name, position: [300, y], credentialId, chatId: '={{ $json.chat_id }}', text });
		const created = await n8n.createWorkflow({
			name: 'Outputs by kind',
			settings: { executionOrder: 'v1' },
			nodes: [
				webhookTrigger({ id: randomUUID(), name: TRIGGER_NAME, position: [0, 0], credentialId, webhookId, typeVersion: 2, updates: ['*'], options: { separateOutputs: true } }),
				answer('On a Message', '=M: {{ $json.chatInput }}', -200),
				answer('On a Command', '=C: {{ $json.chatInput }}', 0),
				answer('On a Click', '=K: {{ $json.chatInput }}', 200),
			],
			connections: {
				[TRIGGER_NAME]: {
					main: [
						[{ node: 'On a Message', type: 'main', index: 0 }],
						[{ node: 'On a Command', type: 'main', index: 0 }],
						[{ node: 'On a Click', type: 'main', index: 0 }],
					],
				},
			},
		});
		const id = String(created.id);
		await n8n.activate(id);
		await waitFor('the trigger to register', async () => ((await emulator.webhook()) ? true : undefined), { limitMs: 60_000 });

		const answers = async (): Promise<string[]> => botTexts(await emulator.history(privateChatId)).filter((text) => /^[MCK]: /.test(text));
		await emulator.userSends('hello');
		await emulator.userSends('/start');
		const sent = await fetch(`${emulator.baseUrl}/bot${emulator.demo.token}/sendMessage`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ chat_id: privateChatId, text: 'Tap', reply_markup: { inline_keyboard: [[{ text: 'Tap', callback_data: 'tapped' }]] } }),
		});
		await emulator.userClicks(((await sent.json()) as { result: { message_id: number } }).result.message_id, 'tapped');
		await waitFor('three answers', async () => ((await answers()).length >= 3 ? true : undefined), { limitMs: 60_000 });
		await emulator.idle();
		assert.deepEqual((await answers()).sort(), ['C: /start', 'K: tapped', 'M: hello']);
		ctx.log('one workflow, no Switch: the message ran "On a Message", the command "On a Command", the click "On a Click", each once');
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
	name: 'polling trigger: a test in the editor shows the next message and acknowledges it; publishing afterwards does not run it again',
	async run(ctx: ScenarioContext) {
		const { emulator, n8n, echo } = await setUp(ctx, { type: POLLING_TRIGGER });

		const started = await n8n.runManually(echo.id, { triggerToStartFrom: { name: TRIGGER_NAME } });
		assert.ok(started.executionId, `a manual execution waits for the trigger: ${JSON.stringify(started)}`);
		await waitFor('the test to poll', async () => ((await emulator.calls('getUpdates')).length > 0 ? true : undefined));
		assert.equal(await say(emulator, 'in the editor'), 'You said: in the editor (test)');
		assert.deepEqual(await pendingUpdates(emulator), [], 'the test acknowledged the message it showed');
		for (const call of await emulator.calls('getUpdates')) {
			assert.equal(call.body.allowed_updates, undefined, 'a test leaves the bot\'s update types alone');
		}
		ctx.log('the test execution showed the message and acknowledged it (no published workflow polls this bot)');

		await n8n.activate(echo.id);
		assert.equal(await say(emulator, 'after publishing'), 'You said: after publishing (production)');
		await emulator.idle();
		assert.deepEqual(
			botTexts(await emulator.history()).filter((text) => text.startsWith('You said: in the editor')),
			['You said: in the editor (test)'],
			'the published workflow did not run the message the test showed',
		);
		ctx.log('published: the poller answers new messages, and not the one the test showed');
	},
};

/**
 * A workflow that answers the bot's clicks as users build it: trigger (All Updates) → Answer Callback
 * Query (node version 3) → Edit Message Text of the clicked message, every field an expression of
 * the trigger's item.
 */
async function createClickHandler(n8n: N8n, credentialId: string, name: string): Promise<Echo> {
	const webhookId = randomUUID();
	const created = await n8n.createWorkflow({
		name,
		settings: { executionOrder: 'v1' },
		nodes: [
			webhookTrigger({ id: randomUUID(), name: TRIGGER_NAME, position: [0, 0], credentialId, webhookId, updates: ['*'], typeVersion: 2 }),
			{
				id: randomUUID(),
				name: 'Answer the Click',
				type: `${PACKAGE_NAME}.serviceBot`,
				typeVersion: 3,
				position: [300, 0],
				parameters: {
					resource: 'callback',
					operation: 'answerCallbackQuery',
					callbackQueryId: '={{ $json.callback_query_id }}',
					additionalFields: { text: '=Got {{ $json.callback_data }}' },
				},
				credentials: serviceBotCredentials(credentialId),
			},
			{
				id: randomUUID(),
				name: 'Show the Choice',
				type: `${PACKAGE_NAME}.serviceBot`,
				typeVersion: 3,
				position: [600, 0],
				parameters: {
					resource: 'message',
					operation: 'editMessageText',
					chatId: { __rl: true, mode: 'id', value: '={{ $json.chat_id }}' },
					messageId: '={{ $json.message_id }}',
					text: `=Chosen (${name})`,
					additionalFields: {},
				},
				credentials: serviceBotCredentials(credentialId),
			},
		],
		connections: inSequence(TRIGGER_NAME, 'Answer the Click', 'Show the Choice'),
	});
	return { id: String(created.id), webhookId, credentialId };
}

const overlappingClicks: Scenario = {
	name: "two published workflows that both run for the bot's clicks: a click runs both, one answers it; the other reports on its item and as a warning on the node that another workflow answered, naming both, and goes on to edit the message; publishing the second says so in n8n's log, and each Answer Callback Query's output names the other workflow answering the clicks",
	async run(ctx: ScenarioContext) {
		const { emulator, n8n, echo: unused } = await setUp(ctx, { type: WEBHOOK_TRIGGER });
		const shop = await createClickHandler(n8n, unused.credentialId, 'Shop bot');
		const log = await createClickHandler(n8n, unused.credentialId, 'Click log');
		await n8n.activate(shop.id);
		await waitFor('the first to register', async () => (listenersOf(await emulator.webhook()).length === 1 ? true : undefined));
		await n8n.activate(log.id);
		await waitFor('both to listen', async () => (listenersOf(await emulator.webhook()).length === 2 ? true : undefined));
		await waitFor('the warning in n8n\'s log', async () => (/workflow "Shop bot" also answers this bot's button clicks/.test(n8n.serverOutput()) ? true : undefined));
		ctx.log('published two workflows that both run for clicks; n8n\'s log names the other one');

		await tapInGroup(emulator, 'tea');
		const finished = async (workflowId: string): Promise<Json> =>
			await waitFor(`an execution of ${workflowId} to finish`, async () => {
				const [latest] = await n8n.executions(workflowId);
				return latest && hasEnded(latest) ? latest : undefined;
			});
		const runs = [await finished(shop.id), await finished(log.id)];
		assert.deepEqual(runs.map((run) => run.status), ['success', 'success'], 'neither workflow failed');
		const answers = await Promise.all(runs.map(async (run) => await clickAnswerOf(n8n, String(run.id))));
		const refused = answers.filter((answer) => answer.json.answered === false);
		assert.equal(answers.filter((answer) => answer.json.answered === true).length, 1, `one answered the click: ${JSON.stringify(answers)}`);
		assert.equal(refused.length, 1, `the other reports it: ${JSON.stringify(answers)}`);
		// Both answered the one click: its ID, as the service received it twice.
		const clickIds = [...new Set((await emulator.calls('answerCallbackQuery')).map((call) => String(call.body.callback_query_id)))];
		assert.equal(clickIds.length, 1, `one click answered twice: ${JSON.stringify(clickIds)}`);
		const notice = `Click ${JSON.stringify(clickIds[0])} was already answered, most likely by another workflow on this bot: workflows "Shop bot" and "Click log" both run for its button clicks. Give only one of them Callback Query (the button clicks) in Trigger On, or a Restrict to Chat IDs of its own, or answer the clicks in one of them only`;
		assert.equal(refused[0].json.notice, notice);
		// Each Answer Callback Query's output also names the other workflow that answers the bot's clicks, answered or not.
		const alsoAnswers = (other: string): Json => ({
			message: `Workflow "${other}" answers this bot's button clicks too: every click runs each of them, and only the first answer counts (the others are refused). Give only one of them Callback Query (the button clicks) in Trigger On, or a Restrict to Chat IDs of its own, or answer the clicks in one of them only`,
			type: 'warning',
			location: 'outputPane',
		});
		const byWorkflow = answers.map((answer, index) => ({ name: index === 0 ? 'Shop bot' : 'Click log', answer }));
		for (const { name, answer } of byWorkflow) {
			const other = name === 'Shop bot' ? 'Click log' : 'Shop bot';
			const expected = answer.json.answered === false ? [{ message: notice, type: 'warning', location: 'outputPane' }, alsoAnswers(other)] : [alsoAnswers(other)];
			assert.deepEqual(answer.hints, expected, `the editor shows on ${name}'s Answer Callback Query what happened and that ${other} answers the clicks too`);
		}
		const edits = (await emulator.calls('editMessageText')).filter((call) => call.status === 200);
		assert.equal(edits.length, 2, 'both workflows went on to their next node');
		ctx.log(`a click ran both: one answered it, the other reported "${notice.slice(0, 60)}…" on its item and as a warning, and both edited the message`);
	},
};

/**
 * Lines users write that made the old Markdown converter take exponential or cubic time (it runs in
 * n8n's process, so every workflow stopped with it): an AI-style echo bot answers them.
 */
const hostileMarkdown: Scenario = {
	name: 'an AI-style bot (trigger → Send Message with Markdown From AI of the user\'s text) answers a line of 24 unclosed globs and a heading padded with 3,000 spaces, and keeps answering',
	async run(ctx: ScenarioContext) {
		const { emulator, n8n, echo: unused } = await setUp(ctx, { type: WEBHOOK_TRIGGER });
		const { credentialId } = unused;
		const webhookId = randomUUID();
		const created = await n8n.createWorkflow({
			name: 'Markdown echo',
			settings: { executionOrder: 'v1' },
			nodes: [
				webhookTrigger({ id: randomUUID(), name: TRIGGER_NAME, position: [0, 0], credentialId, webhookId, updates: ['message'], typeVersion: 2 }),
				{
					id: randomUUID(),
					name: 'Reply',
					type: `${PACKAGE_NAME}.serviceBot`,
					typeVersion: 3,
					position: [300, 0],
					parameters: {
						resource: 'message',
						operation: 'sendMessage',
						chatId: { __rl: true, mode: 'id', value: '={{ $json.chat_id }}' },
						text: '={{ $json.chatInput }}',
						additionalFields: { parseMode: 'markdownFromAi' },
						options: { splitLongText: true },
					},
					credentials: serviceBotCredentials(credentialId),
				},
			],
			connections: inSequence(TRIGGER_NAME, 'Reply'),
		});
		await n8n.activate(String(created.id));
		await waitFor('the bot to register its webhook', async () => (await emulator.webhook()) ?? undefined, { limitMs: 60_000 });

		const globs = `Supported files: ${Array.from({ length: 24 }, (_, index) => `*.t${index}`).join(', ')}`;
		const heading = `# Total${' '.repeat(3000)}#1`;
		const cases: Array<[string, string]> = [
			// Unclosed emphasis stays as written; a heading is bold, its padding and the #1 kept (CommonMark).
			[globs, globs],
			[heading, `<b>Total${' '.repeat(3000)}#1</b>`],
			['after them: **still** here', 'after them: <b>still</b> here'],
		];
		for (const [line, html] of cases) {
			const before = (await emulator.history()).length;
			const sentAt = Date.now();
			await emulator.userSends(line);
			const answer = await waitFor(
				`the answer to a ${line.length}-character line`,
				async () => (await emulator.history()).slice(before).find((message) => message.from?.is_bot === true),
				{ limitMs: 60_000 },
			);
			assert.equal(answer.text, html);
			ctx.log(`a ${line.length}-character line (${JSON.stringify(line.slice(0, 30))}…) answered in ${Date.now() - sentAt} ms`);
		}
	},
};

/** The output item and the warnings of "Answer the Click" in an execution (n8n keeps run data flattened). */
async function clickAnswerOf(n8n: N8n, executionId: string): Promise<{ json: Json; hints: Json[] }> {
	const execution = await n8n.request('GET', `/rest/executions/${executionId}`);
	const data = typeof execution.data === 'string' ? parseFlatted(execution.data) : execution.data;
	const task = data?.resultData?.runData?.['Answer the Click']?.[0];
	return { json: task?.data?.main?.[0]?.[0]?.json ?? {}, hints: task?.hints ?? [] };
}

export const TRIGGER_SCENARIOS: Scenario[] = [
	testThenPublish,
	testWhilePublished,
	threeWorkflowsOneBot,
	pollingAcrossRestarts,
	pollingTest,
	threePollingWorkflowsOneBot,
	outputsByKind,
	overlappingClicks,
	hostileMarkdown,
];
