/**
 * "Placeholder While Thinking" on the Service Bot Polling Trigger, through n8n-core against the
 * emulator, with workflows built as users build them: the trigger (option on) → a slow step standing in
 * for an AI Agent → Send Message with Chat left at From Trigger and Text `{{ $json.output }}`.
 *
 * The trigger posts the placeholder as it hands the message over; the first Send Message that answers
 * in that chat edits it into the answer; a run that ends without doing so has it deleted. Each emit's
 * execution really runs (`runWorkflow`): its done promise settles with that run, as n8n's does.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeParameters, INodeType, INodeTypeDescription, IRun } from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { ServiceBot } from '../../../nodes/ServiceBot/ServiceBot.node';
import { ServiceBotPollingTrigger } from '../../../nodes/ServiceBotPollingTrigger/ServiceBotPollingTrigger.node';
import type { Emulator, RecordedCall } from '../../emulator';
import type { RunningTrigger } from '../../harness';
import { credentialsFor, SHORT_POLL_WAITS, useEmulator } from '../../harness/emulator-suite';
import type { ChainNode } from '../../harness/execute-node';
import { prepareExecution, startExecution } from '../../harness/execute-node';
import { makeHarness } from '../../harness/trigger-nodes';

let emu: Emulator;
const running: RunningTrigger[] = [];
useEmulator({ running, started: (started) => (emu = started), pollWaits: SHORT_POLL_WAITS });

const THINKING = 'Thinking…';
const TRIGGER = 'Service Bot Polling Trigger';

/** Stands in for an AI Agent: each item's answer as `output` (Markdown, as models write it), paired. */
class AgentStandIn implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Agent Stand-In',
		name: 'agentStandIn',
		group: ['transform'],
		version: 1,
		description: 'Answers each item (test node)',
		defaults: { name: 'AI Agent' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [{ displayName: 'Fail', name: 'fail', type: 'boolean', default: false }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		if (this.getNodeParameter('fail', 0) === true) throw new NodeOperationError(this.getNode(), 'The model is unavailable');
		// Takes a while, as a model does.
		await new Promise((resolve) => setTimeout(resolve, 30));
		return [this.getInputData().map((item, index) => ({ json: { output: `**Answer:** ${String(item.json.chatInput)}` }, pairedItem: { item: index } }))];
	}
}

const FROM_TRIGGER = { __rl: true, mode: 'trigger', value: '' };

const answer: INodeParameters = {
	resource: 'message',
	operation: 'sendMessage',
	chatId: FROM_TRIGGER,
	text: '={{ $json.output }}',
	additionalFields: { parseMode: 'markdownFromAi' },
};

interface Workflow {
	/** The node after the agent (default: Send Message of the answer). */
	node?: { nodeType: INodeType; parameters: INodeParameters; name?: string };
	agentFails?: boolean;
	after?: ChainNode[];
	/** What n8n hands the trigger back as the run (default: the run as it ran). */
	handBack?: (run: IRun) => IRun;
	/** Another workflow polling the same bot (default: the harness's one workflow). */
	workflowId?: string;
}

/** The runs of the executions the test's triggers started, in order. */
let runs: Array<Promise<IRun>>;
beforeEach(() => {
	runs = [];
});

async function pollingTrigger(options: IDataObject, workflow: Workflow = {}): Promise<RunningTrigger> {
	const harness = await makeHarness(emu, {
		nodeType: new ServiceBotPollingTrigger(),
		typeVersion: 2,
		parameters: { updates: ['message'], options: options as INodeParameters },
		workflowId: workflow.workflowId,
	});
	const trigger = await harness.startTrigger({
		runWorkflow: async (data) => {
			const run = startExecution(
				prepareExecution({
					start: { name: TRIGGER, nodeType: new ServiceBotPollingTrigger(), typeVersion: 2 },
					before: [{ name: 'AI Agent', nodeType: new AgentStandIn(), parameters: { fail: workflow.agentFails === true } }],
					nodeType: workflow.node?.nodeType ?? new ServiceBot(),
					nodeName: workflow.node?.name ?? 'Send Message',
					parameters: workflow.node?.parameters ?? answer,
					after: workflow.after,
					items: data[0].map((item) => item.json),
					credentials: credentialsFor(emu),
					mode: 'trigger',
				}),
			);
			runs.push(run);
			return workflow.handBack ? workflow.handBack(await run) : await run;
		},
	});
	running.push(trigger);
	return trigger;
}

/** The bot's calls the service took, other than polling: `method {fields}`. */
function botCalls(): RecordedCall[] {
	return emu.calls.filter((call) => !['getUpdates', 'getWebhookInfo', 'getMe', 'deleteWebhook', 'setWebhook'].includes(call.method));
}

function described(call: RecordedCall): string {
	const { method, body } = call;
	const fields = ['message_id', 'text'].filter((key) => body[key] !== undefined).map((key) => `${key}=${String(body[key])}`);
	return [method, ...fields].join(' ');
}

async function until(condition: () => boolean): Promise<void> {
	while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** Every run has ended and what the trigger does after a run has reached the service. */
async function settled(expectedCalls: number): Promise<void> {
	await until(() => runs.length > 0);
	await Promise.all(runs);
	await until(() => botCalls().length >= expectedCalls && botCalls().every((call) => call.status !== 0));
	// Nothing else on its way: a marker call made now arrives after anything sent before it.
	await emu.idle();
}

function placeholderIdOf(trigger: RunningTrigger, emit = 0): unknown {
	return trigger.emitted[emit][0][0].json.placeholder_message_id;
}

const P = (): string => emu.demo.privateChatId;

test('the placeholder is posted at once and the answer replaces it in place: sendMessage, then editMessageText of that message, no second message', async () => {
	const trigger = await pollingTrigger({ placeholderWhileThinking: THINKING });
	await emu.userSends({ chatId: P(), userId: emu.demo.userId, text: 'hello' });
	await trigger.waitForEmits(1);
	await settled(2);
	const [posted, edited] = botCalls();
	expect(botCalls().map(described)).toEqual([`sendMessage text=${THINKING}`, `editMessageText message_id=${String(placeholderIdOf(trigger))} text=<b>Answer:</b> hello`]);
	expect(posted.body.chat_id).toBe(P());
	expect(edited.body).toMatchObject({ chat_id: P(), parse_mode: 'HTML' });
	// The item carries the placeholder's id; Send Message outputs the message, whose id is the placeholder's.
	const placeholderId = (posted.response as { result: { message_id: number } }).result.message_id;
	expect(placeholderIdOf(trigger)).toBe(placeholderId);
	const run = await runs[0];
	const sent = run.data.resultData.runData['Send Message'][0].data!.main[0]![0].json;
	expect(sent.message_id).toBe(placeholderId);
	// The chat shows the answer where the placeholder was, formatted, and no "Thinking…".
	const botMessages = emu.history(P()).filter((message) => message.sent_by_bot);
	expect(botMessages.map((message) => [message.message_id, message.text, message.parse_mode])).toEqual([[placeholderId, '<b>Answer:</b> hello', 'HTML']]);
});

test('a run handed back without its custom data (queue mode reads it back) keeps the answer: the placeholder the answer replaced is never deleted', async () => {
	const withoutMetadata = (run: IRun): IRun => ({ ...run, data: { ...run.data, resultData: { ...run.data.resultData, metadata: undefined } } });
	const trigger = await pollingTrigger({ placeholderWhileThinking: THINKING }, { handBack: withoutMetadata });
	await emu.userSends({ chatId: P(), userId: emu.demo.userId, text: 'hello' });
	await trigger.waitForEmits(1);
	await settled(2);
	// A deletion would follow the handed-back run: time for it to have been sent (on the unfixed code it arrives within this), then all that was sent has arrived.
	await new Promise((resolve) => setTimeout(resolve, 300));
	await emu.idle();
	expect(botCalls().map(described)).toEqual([`sendMessage text=${THINKING}`, `editMessageText message_id=${String(placeholderIdOf(trigger))} text=<b>Answer:</b> hello`]);
	const botMessages = emu.history(P()).filter((message) => message.sent_by_bot);
	expect(botMessages.map((message) => message.text)).toEqual(['<b>Answer:</b> hello']);
});

test('a run that fails has its placeholder deleted', async () => {
	const trigger = await pollingTrigger({ placeholderWhileThinking: THINKING }, { agentFails: true });
	await emu.userSends({ chatId: P(), userId: emu.demo.userId, text: 'hello' });
	await trigger.waitForEmits(1);
	await settled(2);
	expect((await runs[0]).data.resultData.error?.message).toBe('The model is unavailable');
	expect(botCalls().map(described)).toEqual([`sendMessage text=${THINKING}`, `deleteMessage message_id=${String(placeholderIdOf(trigger))}`]);
	expect(botCalls()[1].status).toBe(200);
	expect(emu.history(P()).filter((message) => message.sent_by_bot)).toEqual([]);
});

test('a run that answers only with a photo sends it and has the placeholder deleted', async () => {
	const { mediaId } = emu.addMedia({ kind: 'photo' });
	const trigger = await pollingTrigger(
		{ placeholderWhileThinking: THINKING },
		{ node: { nodeType: new ServiceBot(), name: 'Send Photo', parameters: { resource: 'message', operation: 'sendPhoto', chatId: FROM_TRIGGER, photo: mediaId, additionalFields: { caption: '={{ $json.output }}' } } } },
	);
	await emu.userSends({ chatId: P(), userId: emu.demo.userId, text: 'a picture please' });
	await trigger.waitForEmits(1);
	await settled(3);
	expect(botCalls().map((call) => call.method)).toEqual(['sendMessage', 'sendPhoto', 'deleteMessage']);
	expect(botCalls()[2].body.message_id).toBe(placeholderIdOf(trigger));
	expect(emu.history(P()).filter((message) => message.sent_by_bot).map((message) => message.photo !== undefined)).toEqual([true]);
});

test('with two Send Message nodes only the first replaces the placeholder; the second sends a new message', async () => {
	const trigger = await pollingTrigger(
		{ placeholderWhileThinking: THINKING },
		{ after: [{ name: 'Send Message 2', nodeType: new ServiceBot(), parameters: { resource: 'message', operation: 'sendMessage', chatId: FROM_TRIGGER, text: 'Anything else?' } }] },
	);
	await emu.userSends({ chatId: P(), userId: emu.demo.userId, text: 'hello' });
	await trigger.waitForEmits(1);
	await settled(3);
	const placeholderId = placeholderIdOf(trigger);
	expect(botCalls().map(described)).toEqual([
		`sendMessage text=${THINKING}`,
		`editMessageText message_id=${String(placeholderId)} text=<b>Answer:</b> hello`,
		'sendMessage text=Anything else?',
	]);
	expect(emu.history(P()).filter((message) => message.sent_by_bot).map((message) => message.text)).toEqual(['<b>Answer:</b> hello', 'Anything else?']);
});

test('Send Message with the same chat mapped By ID from the trigger also replaces it', async () => {
	const trigger = await pollingTrigger(
		{ placeholderWhileThinking: THINKING },
		{ node: { nodeType: new ServiceBot(), parameters: { ...answer, chatId: { __rl: true, mode: 'id', value: `={{ $('${TRIGGER}').item.json.chat_id }}` } } } },
	);
	await emu.userSends({ chatId: P(), userId: emu.demo.userId, text: 'hello' });
	await trigger.waitForEmits(1);
	await settled(2);
	expect(botCalls().map((call) => call.method)).toEqual(['sendMessage', 'editMessageText']);
	expect(botCalls()[1].body.message_id).toBe(placeholderIdOf(trigger));
});

test('with Group Messages Within, one placeholder per delivered group', async () => {
	const trigger = await pollingTrigger({ placeholderWhileThinking: THINKING, groupMessagesSeconds: 1 });
	await emu.userSends({ chatId: P(), userId: emu.demo.userId, text: 'one' });
	await emu.userSends({ chatId: P(), userId: emu.demo.userId, text: 'two' });
	await trigger.waitForEmits(1);
	await settled(2);
	expect(trigger.emitted).toHaveLength(1);
	expect(botCalls().map(described)).toEqual([`sendMessage text=${THINKING}`, `editMessageText message_id=${String(placeholderIdOf(trigger))} text=<b>Answer:</b> one\ntwo`]);
});

test('the placeholder is not a reason to fail: a chat that refuses it still gets its run, with no id on the item', async () => {
	emu.injectFault({ kind: 'status', method: 'sendMessage', status: 403, description: 'Forbidden: bot was blocked by the user', count: 1 });
	const trigger = await pollingTrigger({ placeholderWhileThinking: THINKING });
	await emu.userSends({ chatId: P(), userId: emu.demo.userId, text: 'hello' });
	await trigger.waitForEmits(1);
	expect(placeholderIdOf(trigger)).toBeNull();
	await settled(2);
	// The answer goes out as a new message; nothing to edit or delete.
	expect(botCalls().map((call) => `${call.method} ${call.status}`)).toEqual(['sendMessage 403', 'sendMessage 200']);
});

test('off: not one call more than without the option, and the item is as before', async () => {
	const trigger = await pollingTrigger({});
	await emu.userSends({ chatId: P(), userId: emu.demo.userId, text: 'hello' });
	await trigger.waitForEmits(1);
	await settled(1);
	expect(botCalls().map(described)).toEqual(['sendMessage text=<b>Answer:</b> hello']);
	expect('placeholder_message_id' in trigger.emitted[0][0][0].json).toBe(false);
});

test('two workflows polling one bot, each with the option: each posts its own placeholder and its own answer replaces it; nothing deleted', async () => {
	const first = await pollingTrigger({ placeholderWhileThinking: THINKING }, { workflowId: 'support-a' });
	const second = await pollingTrigger(
		{ placeholderWhileThinking: 'One moment…' },
		{ workflowId: 'support-b', node: { nodeType: new ServiceBot(), parameters: { ...answer, text: '=B: {{ $json.output }}' } } },
	);
	await emu.userSends({ chatId: P(), userId: emu.demo.userId, text: 'hello' });
	await first.waitForEmits(1);
	await second.waitForEmits(1);
	await settled(4);
	await until(() => runs.length === 2);
	await Promise.all(runs);
	await emu.idle();
	const firstId = placeholderIdOf(first);
	const secondId = placeholderIdOf(second);
	expect(typeof firstId).toBe('number');
	expect(secondId).not.toBe(firstId);
	expect(botCalls().map(described).sort()).toEqual(
		[
			`sendMessage text=${THINKING}`,
			'sendMessage text=One moment…',
			`editMessageText message_id=${String(firstId)} text=<b>Answer:</b> hello`,
			`editMessageText message_id=${String(secondId)} text=B: <b>Answer:</b> hello`,
		].sort(),
	);
	const botMessages = emu.history(P()).filter((message) => message.sent_by_bot);
	expect(botMessages.map((message) => [message.message_id, message.text]).sort()).toEqual(
		[
			[firstId, '<b>Answer:</b> hello'],
			[secondId, 'B: <b>Answer:</b> hello'],
		].sort(),
	);
});

test('429 on the placeholder: the message is handed over at once without one (no id), and the answer goes out as a new message', async () => {
	emu.injectFault({ kind: 'status', method: 'sendMessage', status: 429, retryAfter: 1, count: 1 });
	const trigger = await pollingTrigger({ placeholderWhileThinking: THINKING });
	await emu.userSends({ chatId: P(), userId: emu.demo.userId, text: 'hello' });
	await trigger.waitForEmits(1);
	expect(placeholderIdOf(trigger)).toBeNull();
	await settled(2);
	expect(botCalls().map((call) => `${call.method} ${call.status}`)).toEqual(['sendMessage 429', 'sendMessage 200']);
	expect(emu.history(P()).filter((message) => message.sent_by_bot).map((message) => message.text)).toEqual(['<b>Answer:</b> hello']);
});

test('429 on the edit that replaces the placeholder: the answer waits the retry_after and still replaces it; one message, nothing deleted', async () => {
	emu.injectFault({ kind: 'status', method: 'editMessageText', status: 429, retryAfter: 1, count: 1 });
	const trigger = await pollingTrigger({ placeholderWhileThinking: THINKING });
	await emu.userSends({ chatId: P(), userId: emu.demo.userId, text: 'hello' });
	await trigger.waitForEmits(1);
	await settled(3);
	const placeholderId = placeholderIdOf(trigger);
	const calls = botCalls();
	expect(calls.map((call) => `${call.method} ${call.status}`)).toEqual(['sendMessage 200', 'editMessageText 429', 'editMessageText 200']);
	expect(calls[2].body).toMatchObject({ message_id: placeholderId, text: '<b>Answer:</b> hello' });
	// The service asked for 1 s: the edit came again no sooner.
	expect(calls[2].at - calls[1].at).toBeGreaterThanOrEqual(1000);
	expect(emu.history(P()).filter((message) => message.sent_by_bot).map((message) => [message.message_id, message.text])).toEqual([[placeholderId, '<b>Answer:</b> hello']]);
});

test('429 on the deletion of a failed run\'s placeholder: it is deleted after the retry_after', async () => {
	emu.injectFault({ kind: 'status', method: 'deleteMessage', status: 429, retryAfter: 1, count: 1 });
	const trigger = await pollingTrigger({ placeholderWhileThinking: THINKING }, { agentFails: true });
	await emu.userSends({ chatId: P(), userId: emu.demo.userId, text: 'hello' });
	await trigger.waitForEmits(1);
	await settled(3);
	expect(botCalls().map((call) => `${call.method} ${call.status}`)).toEqual(['sendMessage 200', 'deleteMessage 429', 'deleteMessage 200']);
	expect(botCalls()[2].body.message_id).toBe(placeholderIdOf(trigger));
	expect(emu.history(P()).filter((message) => message.sent_by_bot)).toEqual([]);
});
