/**
 * Send and Wait for Response in real n8n 2.41.1 (issue 13): the example workflow
 * "ask for approval in the chat" (Manual → Send and Wait, approval → Send Message with the decision)
 * started as the editor starts it, an active trigger on the same bot, and the emulator's demo user
 * tapping Approve. Once with the echo bot's webhook trigger, once with a polling trigger. n8n's
 * generated human-review tool of the node is listed too.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';

import { WORKFLOWS } from '../dev/demo';
import type { ScenarioContext } from './lib/context';
import type { EmulatorProcess, InlineButton, StoredMessage } from './lib/emulator';
import { PACKAGE_NAME } from './lib/install';
import type { Json, N8n } from './lib/n8n';
import { waitFor } from './lib/processes';
import { inSequence, pollingTrigger } from './lib/workflow';
import type { Scenario } from './lib/runner';

const ACTION_TYPE = `${PACKAGE_NAME}.serviceBot`;
const QUESTION = 'Refund order #1042 (35.00 EUR)?';
const MANUAL_TRIGGER = 'When clicking ‘Execute workflow’';

function botMessages(history: StoredMessage[]): StoredMessage[] {
	return history.filter((message) => message.from?.is_bot === true);
}

/** The editor's "Execute workflow": a manual run from the manual trigger. Answers the execution id. */
async function executeFromEditor(n8n: N8n, workflowId: string): Promise<string> {
	const started = await n8n.request('POST', `/rest/workflows/${workflowId}/run`, { triggerToStartFrom: { name: MANUAL_TRIGGER } });
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

/** Runs the approval example, taps Approve as the demo user, and checks the execution's end. */
async function approveInTheChat(ctx: ScenarioContext, n8n: N8n, emulator: EmulatorProcess, approvalId: string): Promise<void> {
	const executionId = await executeFromEditor(n8n, approvalId);
	const question = await waitFor(
		'the question with its buttons',
		async () => botMessages(await emulator.history()).find((message) => message.text === QUESTION && message.reply_markup !== undefined),
		{ limitMs: 60_000 },
	);
	await waitFor('the execution to wait', async () => ((await execution(n8n, executionId)).status === 'waiting' ? true : undefined));
	const buttons: InlineButton[] = question.reply_markup?.inline_keyboard?.flat() ?? [];
	assert.deepEqual(
		buttons.map((button) => button.text),
		['✅ Approve', '❌ Decline', '🌐 Answer in the browser'],
	);
	const approve = buttons[0];
	assert.match(String(approve.callback_data), new RegExp(`^w1:${executionId}:0:`), 'the Approve button names the waiting execution');
	assert.ok(Buffer.byteLength(String(approve.callback_data), 'utf8') <= 64, 'callback data within the spec\'s 64 bytes');
	ctx.log(`execution ${executionId} waits; the question has ${buttons.map((button) => button.text).join(' / ')}`);

	await emulator.userClicks(question.message_id, String(approve.callback_data));
	const decision = await waitFor(
		'the follow-up message with the decision',
		async () => botMessages(await emulator.history()).find((message) => message.text?.startsWith('approved: ')),
		{ limitMs: 60_000 },
	);
	assert.equal(decision.text, 'approved: true (Demo)');
	const finished = await waitFor('the execution to finish', async () => {
		const data = await execution(n8n, executionId);
		return data.finished === true || ['success', 'error', 'crashed'].includes(data.status) ? data : undefined;
	});
	assert.equal(finished.status, 'success', `the execution ends in success: ${JSON.stringify(finished).slice(0, 500)}`);
	const answered = (await emulator.history()).find((message) => message.message_id === question.message_id);
	assert.equal(answered?.text, `${QUESTION}\n\n✅ Approve — Demo`, 'the question shows the answer');
	assert.equal(answered?.reply_markup, undefined, 'the question lost its buttons');
	const callbackAnswers = await emulator.callbackAnswers();
	assert.equal(callbackAnswers.at(-1)?.text, '✅ Approve', 'the tap was answered (the spinner stops) with the decision');
	ctx.log(`tapped Approve → "${decision.text}"; execution ${executionId}: ${finished.status}; the tap answered "${String(callbackAnswers.at(-1)?.text)}"`);
}

const approvalWithWebhookTrigger: Scenario = {
	name: 'send and wait: approval tapped in the chat resumes the execution through the published webhook trigger; the human-review tool is listed',
	async run(ctx) {
		const { emulator, n8n, workflowIds } = await setUp(ctx);
		const nodes = (await n8n.request('GET', '/types/nodes.json')) as Json[];
		const hitl = nodes.find((node: Json) => node.name === `${ACTION_TYPE}HitlTool`);
		assert.ok(hitl, `${ACTION_TYPE}HitlTool is not in /types/nodes.json: ${nodes.filter((node: Json) => String(node.name).startsWith(ACTION_TYPE)).map((node: Json) => node.name).join(', ')}`);
		ctx.log(`/types/nodes.json lists the human-review tool ${hitl.name} ("${hitl.displayName}")`);

		await n8n.activate(workflowIds.demoBot);
		await waitFor('the echo bot to register its webhook', async () => (await emulator.webhook()) ?? undefined, { limitMs: 60_000 });
		ctx.log(`published the echo bot (webhook trigger, ${WORKFLOWS.demoBot.file})`);
		await approveInTheChat(ctx, n8n, emulator, workflowIds.approval);
		const echoRuns = await n8n.executions(workflowIds.demoBot);
		assert.equal(echoRuns.length, 0, 'the tap did not start the echo bot');
	},
};

const approvalWithPollingTrigger: Scenario = {
	name: 'send and wait: approval tapped in the chat resumes the execution through a published polling trigger',
	async run(ctx) {
		const { emulator, n8n, workflowIds, credentialId } = await setUp(ctx);
		const poller = await n8n.request('POST', '/rest/workflows', {
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
		await approveInTheChat(ctx, n8n, emulator, workflowIds.approval);
		assert.equal((await n8n.executions(String(poller.id))).length, 0, 'the tap did not start the polling workflow');
	},
};

export const ANSWER_SCENARIOS: Scenario[] = [approvalWithWebhookTrigger, approvalWithPollingTrigger];
