/**
 * Issue 33, item 5: one feed per bot also when the bot's token is changed in the credential (as after
 * a leak). n8n reads the credential for every request, so a running poller polls with the new token
 * from its next request on; a workflow published afterwards with the new token must join it rather
 * than start a second poller (which the service answers with 409 "terminated by other getUpdates
 * request", splitting the updates between the two). Through n8n-core's TriggerContext against the
 * emulator, which refuses the old token once the bot got a new one.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { ServiceBotPollingTrigger } from '../../../nodes/ServiceBotPollingTrigger/ServiceBotPollingTrigger.node';
import type { Emulator, RecordedCall } from '../../emulator';
import type { RunningTrigger, TestCredentials, TriggerHarness } from '../../harness';
import { findLeak } from '../../hardening/secrecy';
import { freshNodeType, inNewProcess, makeHarness } from '../../harness/trigger-nodes';
import { SHORT_POLL_WAITS, credentialsFor, fetchedUpdate, useEmulator, type LogSpy } from '../../harness/emulator-suite';

let emu: Emulator;
let logs: LogSpy;
const running: RunningTrigger[] = [];
// Conflicts that last are reported after a minute in n8n; here after 2 s, well within a test.
useEmulator({ running, started: (started) => (emu = started), logging: (spy) => (logs = spy), pollWaits: { ...SHORT_POLL_WAITS, conflictReportMs: 2000 } });

/** The spec shows no token format; the emulator's tokens follow Telegram's `<bot id>:<secret>`. */
const NEW_TOKEN = '7000000001:changed-after-a-leak-aaaaaaaaaaaaaaaaaaaa';
/** 409 answered to a getUpdates: two consumers of one bot. */
const CONFLICT = 409;

const ALL: INodeParameters = { updates: ['*'], options: {} };

async function published(workflowName: string, credentials: TestCredentials): Promise<TriggerHarness> {
	return await makeHarness(emu, { nodeType: new ServiceBotPollingTrigger(), workflowName, parameters: ALL, credentials });
}

async function start(harness: TriggerHarness): Promise<RunningTrigger> {
	const trigger = await harness.startTrigger();
	running.push(trigger);
	return trigger;
}

const polls = (): RecordedCall[] => emu.callsTo('getUpdates');
const conflicts = (): RecordedCall[] => polls().filter((call) => call.status === CONFLICT);
const ids = (trigger: RunningTrigger): unknown[] => trigger.emitted.map((run) => (run[0][0].json as IDataObject).update_id);

async function say(text: string): Promise<number> {
	return (await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text })).update_id;
}

/** Until a getUpdates with `token` is open at the emulator (nothing waits to be fetched). */
async function pollingWith(token: string): Promise<void> {
	while (!polls().some((call) => call.token === token && call.status === 0 && call.response === null)) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** Until every trigger ran `count` updates, the service holds nothing and a long poll is open. */
async function settled(triggers: RunningTrigger[], count: number): Promise<void> {
	for (const trigger of triggers) await trigger.waitForEmits(count);
	while (emu.pendingUpdates().length > 0 || polls().at(-1)?.status !== 0) await new Promise((resolve) => setTimeout(resolve, 5));
}

const fetched = (updateId: number): Promise<void> => fetchedUpdate(emu, updateId);

/** The bot gets a new token at the service, and the user puts it into the credential. */
function changeToken(credentials: TestCredentials): void {
	emu.changeToken(emu.demo.token, NEW_TOKEN);
	credentials.accessToken = NEW_TOKEN;
}

describe('a bot token changed in the credential while workflows poll the bot (issue 33, item 5)', () => {
	test('a workflow published afterwards with the new token joins the running poller: the bot never sees two consumers (no 409), and every later update reaches both workflows once', async () => {
		const credentials = credentialsFor(emu);
		const a = await start(await published('A', credentials));
		const before = await say('before the change');
		await a.waitForEmits(1);

		changeToken(credentials);
		// The poll open with the old token brings it; the next one goes out with the new token.
		const during = await say('while the token changes');
		await a.waitForEmits(2);
		await pollingWith(NEW_TOKEN);

		const b = await start(await published('B', credentials));
		const after = [await say('one'), await say('two'), await say('three')];
		await settled([a, b], 3);

		expect(conflicts()).toEqual([]);
		expect(ids(a)).toEqual([before, during, ...after]);
		expect(ids(b)).toEqual(after);
		expect([...a.errors, ...b.errors]).toEqual([]);
		// One long poll open, with the new token.
		expect(polls().filter((call) => call.status === 0).map((call) => call.token)).toEqual([NEW_TOKEN]);
		const lines = [...logs.messages('warn'), ...logs.messages('info'), ...logs.messages('debug'), ...logs.messages('error')];
		expect(findLeak(NEW_TOKEN, lines)).toBeUndefined();
	});

	test('a workflow published with the new token in a second credential before the first credential was updated: the two pollers become one after their first conflict, and both workflows run every later update once', async () => {
		const first = credentialsFor(emu);
		const a = await start(await published('A', first));
		await pollingWith(first.accessToken);

		emu.changeToken(emu.demo.token, NEW_TOKEN);
		const second = credentialsFor(emu, NEW_TOKEN);
		const b = await start(await published('B', second));
		// Only now the user puts the new token into the first credential: both poll with it.
		first.accessToken = NEW_TOKEN;
		// The poller of the first credential meets the other (409), finds its credential holds the new
		// token now, and hands its workflow over to the poller that polls with it.
		const merged = (): boolean => logs.messages('info').some((line) => line.includes('the bot token in the credential was changed'));
		// (Or conflicts that last are reported: then the assertions below say what went wrong.)
		while (!merged() && a.errors.length + b.errors.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
		const after = [await say('one'), await say('two')];
		await settled([a, b], 2);
		const conflictsSoFar = conflicts().length;
		const last = await say('three');
		await settled([a, b], 3);

		expect(ids(a)).toEqual([...after, last]);
		expect(ids(b)).toEqual([...after, last]);
		expect([...a.errors, ...b.errors]).toEqual([]);
		// Once they had met, the bot had one consumer: no conflict since, one long poll open.
		expect(conflicts()).toHaveLength(conflictsSoFar);
		expect(polls().filter((call) => call.status === 0)).toHaveLength(1);
	});

	test('n8n restarted with the new token: each workflow resumes from its saved offset, so what arrived while n8n was down reaches every workflow once, also one published after the first had fetched it', async () => {
		const credentials = credentialsFor(emu);
		const harnesses = [await published('A', credentials), await published('B', credentials)];
		const [a, b] = [await start(harnesses[0]), await start(harnesses[1])];
		changeToken(credentials);
		const seen = await say('after the change');
		await settled([a, b], 1);
		await a.close();
		await b.close();
		const whileDown = [await say('while down 1'), await say('while down 2')];

		// A new process: A comes back first and fetches what waited; B is published once A ran it.
		const nodeType = freshNodeType('polling');
		const restartedA = await start(await inNewProcess(emu, harnesses[0], 'polling', { nodeType, credentials }));
		await restartedA.waitForEmits(2);
		const restartedB = await start(await inNewProcess(emu, harnesses[1], 'polling', { nodeType, credentials }));
		const later = await say('after the restart');
		await settled([restartedA, restartedB], 1);
		await restartedA.waitForEmits(3);

		expect(ids(a)).toEqual([seen]);
		expect(ids(b)).toEqual([seen]);
		expect(ids(restartedA)).toEqual([...whileDown, later]);
		expect(ids(restartedB)).toEqual([...whileDown, later]);
		expect(conflicts()).toEqual([]);
	});

	test('a workflow unpublished and published again after the change does not run again an update it had run before (its duplicate window and deduplication keys follow the bot, not the token text)', async () => {
		const credentials = credentialsFor(emu);
		const grouping = (workflowName: string, seconds: number): Promise<TriggerHarness> =>
			makeHarness(emu, { nodeType: new ServiceBotPollingTrigger(), workflowName, typeVersion: 2, parameters: { updates: ['*'], options: { groupMessagesSeconds: seconds } }, credentials });
		// This one gathers the message for the longest window: the service keeps it meanwhile.
		const keeper = await start(await grouping('Keeper', 60));
		const harness = await grouping('Support', 60);
		const support = await start(harness);
		const message = await say('hello');
		await fetched(message);

		changeToken(credentials);
		while (!logs.messages('info').some((line) => line.includes('the bot token in the credential was changed'))) await new Promise((resolve) => setTimeout(resolve, 5));
		// Unpublishing runs what it gathered; published again, it is offered the message again (kept for Keeper).
		await support.close();
		const again = await start(harness);
		const next = await say('after publishing again');
		await fetched(next);
		await keeper.close();
		await again.close();

		const ran = [...support.emitted, ...again.emitted].map((run) => (run[0][0].json as IDataObject).updates as IDataObject[]).map((updates) => updates.map((update) => update.update_id));
		expect(ran).toEqual([[message], [next]]);
		expect(keeper.emitted.map((run) => ((run[0][0].json as IDataObject).updates as IDataObject[]).map((update) => update.update_id))).toEqual([[message, next]]);
	});
});
