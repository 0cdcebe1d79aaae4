/**
 * Send and Wait for Response in real n8n 2.41.1: the example workflow
 * "ask for approval in the chat" (Manual → Send and Wait, approval → Send Message with the decision)
 * started as the editor starts it, an active trigger on the same bot, and the emulator's demo user
 * tapping Approve. Once with the echo bot's webhook trigger, once with a polling trigger. n8n's
 * generated human-review tool of the node is listed too.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';

import { APPROVAL_EXAMPLE, DEMO_CREDENTIAL_ID, WORKFLOWS } from '../dev/demo';
import type { ScenarioContext } from './lib/context';
import { launchBrowser } from './lib/browser';
import type { EmulatorProcess, InlineButton, StoredMessage } from '../real-n8n/emulator-process';
import { PACKAGE_NAME } from '../real-n8n/install';
import { hasEnded, type Json, type N8n } from '../real-n8n/n8n';
import { waitFor } from '../real-n8n/processes';
import { exampleCopy, inSequence, untilWebhookOf, pollingTrigger, serviceBotCredentials, webhookTrigger } from './lib/workflow';
import type { Scenario } from './lib/runner';

const ACTION_TYPE = `${PACKAGE_NAME}.serviceBot`;
const QUESTION = 'Refund order #1042 (35.00 EUR)?';
const MANUAL_TRIGGER = 'When clicking ‘Execute workflow’';

function botMessages(history: StoredMessage[]): StoredMessage[] {
	return history.filter((message) => message.from?.is_bot === true);
}

/** The editor's "Execute workflow": a manual run from the manual trigger. Answers the execution id. */
async function executeFromEditor(n8n: N8n, workflowId: string): Promise<string> {
	const started = await n8n.runManually(workflowId, { triggerToStartFrom: { name: MANUAL_TRIGGER } });
	assert.ok(started.executionId, `n8n started a manual execution: ${JSON.stringify(started)}`);
	return String(started.executionId);
}

async function execution(n8n: N8n, id: string): Promise<Json> {
	return await n8n.request('GET', `/rest/executions/${id}`);
}

/** An emulator, a fresh n8n with its owner, and the demo credential and example workflows in it. */
async function setUp(ctx: ScenarioContext) {
	const emulator = await ctx.emulator();
	const n8n = await ctx.n8n();
	await n8n.start();
	await n8n.setupOwner();
	return { emulator, n8n, ...(await ctx.createDemo(n8n, emulator)) };
}

/** What the chat shows for each decision, as the example workflow asks (spec: the buttons are the node's). */
const DECISIONS = { true: '✅ Approve', false: '❌ Decline' } as const;
const ALREADY_ANSWERED = /^This question was already answered/;

/** Runs the approval example until the execution waits; answers its id and the question. */
async function askForApproval(n8n: N8n, emulator: EmulatorProcess, approvalId: string): Promise<{ executionId: string; question: StoredMessage; buttons: InlineButton[] }> {
	const asked = (await emulator.history()).length;
	const executionId = await executeFromEditor(n8n, approvalId);
	const question = await waitFor(
		'the question with its buttons',
		async () => botMessages((await emulator.history()).slice(asked)).find((message) => message.text === QUESTION && message.reply_markup !== undefined),
		{ limitMs: 60_000 },
	);
	await waitFor('the execution to wait', async () => ((await execution(n8n, executionId)).status === 'waiting' ? true : undefined));
	const buttons: InlineButton[] = question.reply_markup?.inline_keyboard?.flat() ?? [];
	assert.deepEqual(
		buttons.map((button) => button.text),
		['✅ Approve', '❌ Decline', '🌐 Answer in the browser'],
	);
	// Answer data v2: `w2:<execution id in base 36>:<choice>:<key>`, at most 64 bytes (the spec's limit).
	assert.match(String(buttons[0].callback_data), new RegExp(`^w2:${Number(executionId).toString(36)}:0:`), 'the Approve button names the waiting execution');
	assert.ok(Buffer.byteLength(String(buttons[0].callback_data), 'utf8') <= 64, "callback data within the spec's 64 bytes");
	return { executionId, question, buttons };
}

/**
 * The question once it shows its answer: the node updates it when n8n has accepted the answer, beside
 * the execution going on, so it may come a moment after the workflow's follow-up.
 */
async function answeredQuestion(emulator: EmulatorProcess, messageId: number): Promise<StoredMessage> {
	return await waitFor(
		'the question to show its answer and lose its buttons',
		async () => (await emulator.history()).find((message) => message.message_id === messageId && message.reply_markup === undefined),
		{ limitMs: 60_000 },
	);
}

async function finishedExecution(n8n: N8n, executionId: string): Promise<Json> {
	const finished = await waitFor('the execution to finish', async () => {
		const data = await execution(n8n, executionId);
		return hasEnded(data) ? data : undefined;
	});
	assert.equal(finished.status, 'success', `the execution ends in success: ${JSON.stringify(finished).slice(0, 500)}`);
	return finished;
}

/** The follow-up message of the example workflow (`approved: <bool> (<name>)`) sent after `after` messages. */
async function decisionMessage(emulator: EmulatorProcess, after: number): Promise<StoredMessage> {
	return await waitFor(
		'the follow-up message with the decision',
		async () => botMessages((await emulator.history()).slice(after)).find((message) => message.text?.startsWith('approved: ')),
		{ limitMs: 60_000 },
	);
}

/**
 * The approval example, tapped ✅ Approve and ❌ Decline at the same moment (both clicks are queued
 * before either is delivered): one answer resumes the execution, and the question, the follow-up and
 * both taps' notices agree with the one the workflow got.
 */
async function doubleTapInTheChat(ctx: ScenarioContext, n8n: N8n, emulator: EmulatorProcess, approvalId: string): Promise<void> {
	const { executionId, question, buttons } = await askForApproval(n8n, emulator, approvalId);
	const sent = (await emulator.history()).length;
	ctx.log(`execution ${executionId} waits; the question has ${buttons.map((button) => button.text).join(' / ')}`);

	const [approve, decline] = await Promise.all([
		emulator.userClicks(question.message_id, String(buttons[0].callback_data)),
		emulator.userClicks(question.message_id, String(buttons[1].callback_data)),
	]);
	const decision = await decisionMessage(emulator, sent);
	await finishedExecution(n8n, executionId);
	const approved = decision.text === 'approved: true (Demo)';
	assert.ok(approved || decision.text === 'approved: false (Demo)', `the follow-up says the decision: ${String(decision.text)}`);
	const won = approved ? approve : decline;
	const lost = approved ? decline : approve;

	await emulator.idle();
	const tapOf = (update: Record<string, unknown>) => String((update.callback_query as { id: string }).id);
	const notices = await waitFor('both taps to be answered', async () => {
		const answers = await emulator.callbackAnswers();
		const of = (update: Record<string, unknown>) => answers.filter((answer) => answer.callback_query_id === tapOf(update)).map((answer) => String(answer.text));
		return of(won).length > 0 && of(lost).length > 0 ? { won: of(won), lost: of(lost) } : undefined;
	});
	const chosen = DECISIONS[approved ? 'true' : 'false'];
	assert.deepEqual(notices.won, [chosen], 'the tap that counted is told its answer');
	assert.equal(notices.lost.length, 1, `the other tap is answered once: ${JSON.stringify(notices.lost)}`);
	assert.match(notices.lost[0], ALREADY_ANSWERED, `the other tap is told the question was already answered: "${notices.lost[0]}"`);
	assert.ok(!notices.lost[0].includes(DECISIONS[approved ? 'false' : 'true']), `the other tap is not told its own answer counted: ${notices.lost[0]}`);
	const answered = await answeredQuestion(emulator, question.message_id);
	assert.equal(answered.text, `${QUESTION}\n\n${chosen} — Demo`, 'the question shows the answer the workflow got');
	const edits = (await emulator.calls('editMessageText')).filter((call) => call.body.message_id === question.message_id);
	assert.equal(edits.length, 1, 'the question is edited once');
	const bot = botMessages((await emulator.history()).slice(sent)).filter((message) => message.text?.startsWith('approved: '));
	assert.equal(bot.length, 1, 'one follow-up: the execution resumed once');
	ctx.log(`tapped Approve and Decline at once → "${String(decision.text)}"; notices: "${notices.won[0]}" / "${notices.lost[0]}"; question edited ${edits.length}×`);
}

/**
 * The approval example answered by a tap whose click carries only `message_id` and `chat.id` (what
 * Telegram sends for a message older than 48 hours: `date: 0`, no content): it resumes the execution.
 */
async function tapOnOldMessage(ctx: ScenarioContext, n8n: N8n, emulator: EmulatorProcess, approvalId: string): Promise<void> {
	const { executionId, question, buttons } = await askForApproval(n8n, emulator, approvalId);
	const sent = (await emulator.history()).length;
	const click = await emulator.userClicks(question.message_id, String(buttons[1].callback_data), { oldMessage: true });
	const message = (click.callback_query as { message: Record<string, unknown> }).message;
	assert.deepEqual(Object.keys(message).sort(), ['chat', 'date', 'message_id'], 'the click carries only message_id, chat and date 0');
	const decision = await decisionMessage(emulator, sent);
	assert.equal(decision.text, 'approved: false (Demo)');
	await finishedExecution(n8n, executionId);
	ctx.log(`a tap on an "old" question (click without the message's content) resumed execution ${executionId}: "${String(decision.text)}"`);
}

const approvalWithWebhookTrigger: Scenario = {
	name: 'send and wait through the published webhook trigger: Approve and Decline tapped at once resume the execution once and the chat agrees with it; a tap on an old message resumes; the human-review tool is listed',
	async run(ctx) {
		const { emulator, n8n, workflowIds } = await setUp(ctx);
		const nodes = (await n8n.request('GET', '/types/nodes.json')) as Json[];
		const hitl = nodes.find((node: Json) => node.name === `${ACTION_TYPE}HitlTool`);
		// n8n 2.x makes a human-review tool of every node with a Send and Wait operation; n8n 1.x makes none.
		if (n8n.options.install.major >= 2) {
			assert.ok(hitl, `${ACTION_TYPE}HitlTool is not in /types/nodes.json: ${nodes.filter((node: Json) => String(node.name).startsWith(ACTION_TYPE)).map((node: Json) => node.name).join(', ')}`);
			ctx.log(`/types/nodes.json lists the human-review tool ${hitl.name} ("${hitl.displayName}")`);
		} else {
			assert.equal(hitl, undefined, `n8n ${n8n.options.install.n8nVersion} lists a human-review tool`);
			ctx.log(`n8n ${n8n.options.install.n8nVersion} lists no human-review tools (n8n 2.x makes them)`);
		}

		await n8n.activate(workflowIds.demoBot);
		await waitFor('the echo bot to register its webhook', async () => (await emulator.webhook()) ?? undefined, { limitMs: 60_000 });
		ctx.log(`published the echo bot (webhook trigger, ${WORKFLOWS.demoBot.file})`);
		await doubleTapInTheChat(ctx, n8n, emulator, workflowIds.approval);
		await tapOnOldMessage(ctx, n8n, emulator, workflowIds.approval);
		const echoRuns = await n8n.executions(workflowIds.demoBot);
		assert.equal(echoRuns.length, 0, 'the tap did not start the echo bot');
	},
};

const approvalWithPollingTrigger: Scenario = {
	name: 'send and wait through a published polling trigger: Approve and Decline tapped at once resume the execution once and the chat agrees with it; a tap on an old message resumes',
	async run(ctx) {
		const { emulator, n8n, workflowIds, credentialId } = await setUp(ctx);
		const poller = await n8n.createWorkflow({
			name: 'Messages (polling)',
			settings: { executionOrder: 'v1' },
			nodes: [
				pollingTrigger({ id: randomUUID(), name: 'Bot Trigger', position: [0, 0], credentialId }),
				{ id: randomUUID(), name: 'Done', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [300, 0], parameters: {} },
			],
			connections: inSequence('Bot Trigger', 'Done'),
		});
		await n8n.activate(String(poller.id));
		await waitFor('the trigger to poll', async () => ((await emulator.calls('getUpdates')).length > 0 ? true : undefined), { limitMs: 60_000 });
		const allowed = (await emulator.calls('getUpdates')).at(-1)?.body.allowed_updates;
		assert.deepEqual(allowed, ['message', 'callback_query'], 'Trigger On has only messages, yet the poller asks for clicks (answers)');
		ctx.log('published a polling trigger on messages only; it asks the service for messages and clicks');
		await doubleTapInTheChat(ctx, n8n, emulator, workflowIds.approval);
		await tapOnOldMessage(ctx, n8n, emulator, workflowIds.approval);
		assert.equal((await n8n.executions(String(poller.id))).length, 0, 'the tap did not start the polling workflow');
	},
};

const approvalOnTheWebPage: Scenario = {
	name: "send and wait: the question's browser link opens n8n's answer page; Decline there resumes the execution, the page says so, the question shows the answer, and the link then says the question was answered",
	async run(ctx) {
		const { emulator, n8n, workflowIds } = await setUp(ctx);
		// Asked in the chat (the page link is its second way to answer), so a trigger of this n8n holds the bot.
		await n8n.activate(workflowIds.demoBot);
		await waitFor('the echo bot to register its webhook', async () => (await emulator.webhook()) ?? undefined, { limitMs: 60_000 });
		const { executionId, question, buttons } = await askForApproval(n8n, emulator, workflowIds.approval);
		const sent = (await emulator.history()).length;
		const link = String(buttons[2].url);
		assert.ok(link.startsWith(`${n8n.baseUrl.replace(/\/$/, '')}/webhook-waiting/${executionId}/`), `the browser button links to n8n's resume URL: ${link}`);

		const browser = await launchBrowser(ctx.install);
		ctx.defer(() => browser.close());
		const { page } = browser;
		const errors: string[] = [];
		page.on('pageerror', (error) => errors.push(String(error.message)));
		await page.goto(link, { waitUntil: 'domcontentloaded', timeout: 60_000 });
		await page.getByText(QUESTION).first().waitFor({ timeout: 30_000 });
		const before = join(ctx.screenshotDir, 'send-and-wait-web-page.png');
		await page.screenshot({ path: before });
		await page.locator('button[value="1"]').click();
		const result = page.locator('#result');
		await waitFor('the page to show the outcome', async () => {
			const text = (await result.innerText()).trim();
			return text !== '' && text !== 'Sending…' ? text : undefined;
		});
		const shown = (await result.innerText()).trim();
		const after = join(ctx.screenshotDir, 'send-and-wait-web-page-answered.png');
		await page.screenshot({ path: after });
		assert.equal(shown, 'Thank you. Your answer: ❌ Decline', 'the page says the answer counted');
		assert.deepEqual(errors, [], 'no script error on the page');
		const decision = await decisionMessage(emulator, sent);
		assert.equal(decision.text, 'approved: false (on the web page)');
		await finishedExecution(n8n, executionId);
		const answered = await answeredQuestion(emulator, question.message_id);
		assert.equal(answered.text, `${QUESTION}\n\n❌ Decline`, 'the question shows the answer given on the page');

		// The link again, after the answer: n8n's page for a question that needs nothing more.
		await page.goto(link, { waitUntil: 'domcontentloaded', timeout: 60_000 });
		const again = await page.locator('body').innerText();
		assert.doesNotMatch(again, /Approve/, `the answered link offers no answer: ${again.slice(0, 200)}`);
		ctx.log(`the page answered "${shown}" → "${String(decision.text)}"; the link afterwards shows: "${again.trim().slice(0, 80)}"; screenshots ${before}, ${after}`);
	},
};


/**
 * The approval as a new user builds it, nothing mapped: Service Bot Trigger → Send and Wait →
 * Send Message, both action nodes as the editor adds them today (version 4, Chat left at its default,
 * From Trigger). A request in the group chat is asked about there, and the decision goes there. Then
 * the same bot as `npm run dev` has it ready (approval-from-chat.json), tried in the private chat.
 */
const approvalWithNothingMapped: Scenario = {
	name: 'a new approval bot with every Chat left at its default: the question and the decision go to the chat the request came from; so does the ready example approval-from-chat',
	async run(ctx) {
		const emulator = await ctx.emulator();
		const n8n = await ctx.n8n();
		await n8n.start();
		await n8n.setupOwner();
		const { credentialId } = await ctx.createDemo(n8n, emulator);
		const chat = emulator.demo.groupChatId;
		const action = (id: string, name: string, x: number, parameters: Record<string, unknown>) => ({
			id,
			name,
			type: ACTION_TYPE,
			typeVersion: 4,
			position: [x, 0],
			parameters,
			credentials: serviceBotCredentials(credentialId),
		});
		const workflow = await n8n.createWorkflow({
			name: 'Refunds (nothing mapped)',
			settings: { executionOrder: 'v1' },
			nodes: [
				webhookTrigger({ id: randomUUID(), name: 'Service Bot Trigger', position: [0, 0], credentialId, webhookId: randomUUID(), updates: ['message'], typeVersion: 2 }),
				action(randomUUID(), 'Ask', 250, { resource: 'message', operation: 'sendAndWait', message: '={{ "Approve " + $json.text + "?" }}' }),
				action(randomUUID(), 'Tell', 500, { resource: 'message', operation: 'sendMessage', text: '={{ $json.approved ? "Refund approved" : "Refund declined" }} ({{ $json.chat_id === $(\'Service Bot Trigger\').item.json.chat_id }})' }),
			],
			connections: inSequence('Service Bot Trigger', 'Ask', 'Tell'),
		});
		await n8n.activate(String(workflow.id));
		await waitFor('the trigger to register its webhook', async () => (await emulator.webhook()) ?? undefined, { limitMs: 60_000 });
		await emulator.userSends('refund 42', chat);
		const question = await waitFor(
			'the question in the chat the request came from',
			async () => botMessages(await emulator.history(chat)).find((message) => message.text === 'Approve refund 42?' && message.reply_markup !== undefined),
			{ limitMs: 60_000 },
		);
		const approve = question.reply_markup?.inline_keyboard?.flat()[0];
		assert.equal(approve?.text, '✅ Approve');
		await emulator.userClicks(question.message_id, String(approve?.callback_data), { chatId: chat });
		const decision = await waitFor(
			'the decision in the same chat',
			async () => botMessages(await emulator.history(chat)).find((message) => message.text?.startsWith('Refund ')),
			{ limitMs: 60_000 },
		);
		assert.equal(decision.text, 'Refund approved (true)', 'the decision, and the answer names its chat as the trigger does (chat_id)');
		assert.equal(botMessages(await emulator.history()).filter((message) => message.text?.startsWith('Refund')).length, 0, 'nothing went to the private chat');
		const runs = await n8n.endedExecutions(String(workflow.id));
		assert.equal(runs.length, 1, 'one execution');
		assert.equal(runs[0].status, 'success', `the execution ends in success: ${JSON.stringify(runs[0]).slice(0, 300)}`);
		ctx.log(`"refund 42" in the group chat → "${String(question.text)}" there → ✅ Approve → "${String(decision.text)}" there; Chat mapped nowhere`);

		// The same bot ready in `npm run dev` (approval-from-chat.json), as its user publishes it: the
		// trigger at its defaults (every update, clicks too), Send and Wait with only its Message set.
		await n8n.deactivate(String(workflow.id));
		const example = exampleCopy(APPROVAL_EXAMPLE, { [DEMO_CREDENTIAL_ID]: credentialId });
		const exampleId = String((await n8n.createWorkflow(example)).id);
		await n8n.activate(exampleId);
		await untilWebhookOf(emulator, example, 'the example');
		// In the private chat, the chat page's default, where a person tries it.
		await emulator.userSends('refund 7');
		const asked = await waitFor(
			'the example\'s question in the chat',
			async () => botMessages(await emulator.history()).find((message) => message.text === 'Approve this refund 7?' && message.reply_markup !== undefined),
			{ limitMs: 60_000 },
		);
		const decline = asked.reply_markup?.inline_keyboard?.flat()[1];
		assert.equal(decline?.text, '❌ Decline', 'Approval at its defaults: ✅ Approve and ❌ Decline');
		await emulator.userClicks(asked.message_id, String(decline?.callback_data));
		const outcome = await waitFor(
			'the example\'s outcome in the same chat',
			async () => botMessages(await emulator.history()).find((message) => message.text?.startsWith('Your refund was')),
			{ limitMs: 60_000 },
		);
		assert.equal(outcome.text, 'Your refund was declined.');
		const exampleRuns = await n8n.endedExecutions(exampleId);
		assert.deepEqual(exampleRuns.map((run: Json) => run.status), ['success'], 'one execution: the tap resumed it and started none');
		// What the person sees on the chat page.
		const browser = await launchBrowser(ctx.install);
		ctx.defer(() => browser.close());
		await browser.page.goto(`${emulator.baseUrl}/`, { waitUntil: 'domcontentloaded', timeout: 60_000 });
		await browser.page.getByText('Your refund was declined.').first().waitFor({ timeout: 30_000 });
		const shot = join(ctx.screenshotDir, 'chat-page-approval-example.png');
		await browser.page.screenshot({ path: shot });
		ctx.log(`the ready example: "refund 7" → "${String(asked.text)}" → ❌ Decline → "${String(outcome.text)}", one execution; ${shot}`);
	},
};

export const ANSWER_SCENARIOS: Scenario[] = [approvalWithWebhookTrigger, approvalWithPollingTrigger, approvalOnTheWebPage];

/** Replies with nothing mapped (Service Bot version 4): after the other scenarios, so their numbers stay. */
export const NOTHING_MAPPED_ANSWER_SCENARIOS: Scenario[] = [approvalWithNothingMapped];
