/**
 * An execution n8n's queue mode lost with its worker runs again, through n8n-core against the
 * emulator: the Polling Trigger → Send Message `You said: {{ $json.text }}`, each emit's execution
 * really run (`runWorkflow`), except those the test hands back as n8n 2.41's main does when a worker
 * died under them (the job stalled; written here from n8n's workflow-runner.js `processError`:
 * status `error`, not finished, no run data, the MaxStalledCountError's message).
 */
import type { IDataObject, INodeParameters, IRun } from 'n8n-workflow';

import { ServiceBot } from '../../../nodes/ServiceBot/ServiceBot.node';
import { ServiceBotPollingTrigger } from '../../../nodes/ServiceBotPollingTrigger/ServiceBotPollingTrigger.node';
import type { Emulator } from '../../emulator';
import type { RunningTrigger } from '../../harness';
import { credentialsFor, SHORT_POLL_WAITS, useEmulator } from '../../harness/emulator-suite';
import { prepareExecution, startExecution } from '../../harness/execute-node';
import { makeHarness } from '../../harness/trigger-nodes';

let emu: Emulator;
const running: RunningTrigger[] = [];
useEmulator({ running, started: (started) => (emu = started), pollWaits: SHORT_POLL_WAITS });

const TRIGGER = 'Service Bot Polling Trigger';

/** n8n 2.41.1's MaxStalledCountError message (errors/max-stalled-count.error.js). */
const STALLED =
	'This execution failed to be processed too many times and will no longer retry. To allow this execution to complete, please break down your workflow or scale up your workers or adjust your worker settings.';

/** The run n8n's main settles the done promise with when the worker running it died (processError). */
function lostRun(): IRun {
	return {
		data: { resultData: { error: { message: STALLED, name: 'MaxStalledCountError' }, runData: {} } },
		finished: false,
		mode: 'trigger',
		startedAt: new Date(),
		stoppedAt: new Date(),
		status: 'error',
	} as unknown as IRun;
}

const reply: INodeParameters = {
	resource: 'message',
	operation: 'sendMessage',
	chatId: { __rl: true, mode: 'id', value: `={{ $('${TRIGGER}').item.json.chat_id }}` },
	text: '=You said: {{ $json.text }}',
};

/**
 * How the test's n8n settles each emit, in order: `lost` (the worker died), `runs` (it ran), or
 * `lostWhenReleased` (the worker died; n8n hands the run back when the test calls `releaseLost`, as
 * it does 60-120 s after the kill).
 */
type Fate = 'lost' | 'runs' | 'failsOnItsOwn' | 'lostWhenReleased';

/** Hands back the runs of `lostWhenReleased` emits. */
let releaseLost: () => void = () => undefined;

async function pollingTrigger(fates: Fate[], options: IDataObject = {}): Promise<{ trigger: RunningTrigger; keys: Set<string> }> {
	const harness = await makeHarness(emu, {
		nodeType: new ServiceBotPollingTrigger(),
		typeVersion: 2,
		parameters: { updates: ['message'], options: options as INodeParameters },
	});
	let emits = 0;
	const trigger = await harness.startTrigger({
		runWorkflow: async (data) => {
			const fate = fates[emits++] ?? 'runs';
			if (fate === 'lost') return lostRun();
			if (fate === 'lostWhenReleased') return await new Promise<IRun>((resolve) => (releaseLost = () => resolve(lostRun())));
			return await startExecution(
				prepareExecution({
					start: { name: TRIGGER, nodeType: new ServiceBotPollingTrigger(), typeVersion: 2 },
					nodeType: new ServiceBot(),
					nodeName: 'Send Message',
					parameters: fate === 'failsOnItsOwn' ? { ...reply, chatId: { __rl: true, mode: 'id', value: 'not a chat' } } : reply,
					items: data[0].map((item) => item.json),
					credentials: credentialsFor(emu),
					mode: 'trigger',
				}),
			);
		},
	});
	running.push(trigger);
	return { trigger, keys: harness.executionKeys };
}

const P = (): string => emu.demo.privateChatId;
/** The demo user writes `text` in the private chat. */
const say = async (text: string): Promise<unknown> => await emu.userSends({ chatId: P(), userId: emu.demo.userId, text });
const replies = (): unknown[] => emu.calls.filter((call) => call.method === 'sendMessage' && call.status === 200).map((call) => call.body.text);

async function until(condition: () => boolean): Promise<void> {
	while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

test("an execution lost with its queue-mode worker runs again once, under a new deduplication key: the user gets the reply", async () => {
	const { trigger, keys } = await pollingTrigger(['lost', 'runs']);
	await say('hello');
	await trigger.waitForEmits(2);
	await until(() => replies().length === 1);
	await emu.idle();
	expect(trigger.emitted.map((emit) => emit[0][0].json.text)).toEqual(['hello', 'hello']);
	expect(trigger.emitted[1][0][0].json.update_id).toBe(trigger.emitted[0][0][0].json.update_id);
	// Two executions, two keys: the first's, then one of its own (n8n refuses a key it has seen).
	const [first, second] = [...keys];
	expect(keys.size).toBe(2);
	expect(second.startsWith(first)).toBe(true);
	expect(second).not.toBe(first);
	expect(trigger.refused).toEqual([]);
	expect(replies()).toEqual(['You said: hello']);
});

test('a run that failed on the workflow\'s own error is not run again', async () => {
	const { trigger, keys } = await pollingTrigger(['failsOnItsOwn']);
	await say('hello');
	await trigger.waitForEmits(1);
	// A second update after it: once it is emitted, the first's run has long been settled.
	await say('again');
	await trigger.waitForEmits(2);
	await until(() => replies().length === 1);
	await emu.idle();
	expect(trigger.emitted.map((emit) => emit[0][0].json.text)).toEqual(['hello', 'again']);
	expect(keys.size).toBe(2);
	expect(replies()).toEqual(['You said: again']);
});

test('lost twice: run again only once (a second loss is left to n8n to show)', async () => {
	const { trigger, keys } = await pollingTrigger(['lost', 'lost']);
	await say('hello');
	await trigger.waitForEmits(2);
	await say('next');
	await trigger.waitForEmits(3);
	await until(() => replies().length === 1);
	await emu.idle();
	expect(trigger.emitted.map((emit) => emit[0][0].json.text)).toEqual(['hello', 'hello', 'next']);
	expect(keys.size).toBe(3);
	expect(replies()).toEqual(['You said: next']);
});

test('with Placeholder While Thinking, a lost run keeps the placeholder for the run again, whose reply replaces it; nothing deleted', async () => {
	const { trigger } = await pollingTrigger(['lost', 'runs'], { placeholderWhileThinking: 'Thinking…' });
	await say('hello');
	await trigger.waitForEmits(2);
	const botCalls = () => emu.calls.filter((call) => !['getUpdates', 'getWebhookInfo', 'getMe', 'deleteWebhook', 'setWebhook'].includes(call.method));
	await until(() => botCalls().some((call) => call.method === 'editMessageText' && call.status === 200));
	// A deletion would follow the run again's end: time for it to have been sent, then all that was sent has arrived.
	await new Promise((resolve) => setTimeout(resolve, 300));
	await emu.idle();
	const placeholderId = trigger.emitted[0][0][0].json.placeholder_message_id;
	expect(typeof placeholderId).toBe('number');
	expect(trigger.emitted[1][0][0].json.placeholder_message_id).toBe(placeholderId);
	expect(botCalls().map((call) => `${call.method} ${String(call.body.message_id ?? call.body.text)}`)).toEqual([
		'sendMessage Thinking…',
		`editMessageText ${String(placeholderId)}`,
	]);
	expect(emu.history(P()).filter((message) => message.sent_by_bot).map((message) => message.text)).toEqual(['You said: hello']);
});

test('lost after the workflow was unpublished: not run again, and its placeholder is deleted', async () => {
	const { trigger } = await pollingTrigger(['lostWhenReleased', 'runs'], { placeholderWhileThinking: 'Thinking…' });
	await say('hello');
	await trigger.waitForEmits(1);
	await trigger.close();
	releaseLost();
	// The run's end is followed either by the placeholder's deletion or, run again, by the reply replacing it.
	const settledBy = () => emu.calls.filter((call) => ['deleteMessage', 'editMessageText'].includes(call.method) && call.status === 200);
	await until(() => settledBy().length > 0);
	await emu.idle();
	const placeholderId = trigger.emitted[0][0][0].json.placeholder_message_id;
	expect(typeof placeholderId).toBe('number');
	expect(trigger.emitted).toHaveLength(1);
	expect(settledBy().map((call) => `${call.method} ${String(call.body.message_id)}`)).toEqual([`deleteMessage ${String(placeholderId)}`]);
	expect(emu.history(P()).filter((message) => message.sent_by_bot)).toEqual([]);
});
