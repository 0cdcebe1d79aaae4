/**
 * Issue 33, item 6: Group Messages Within and the bot's other updates. While a user's messages are
 * gathered, the service must keep them (n8n stopping hard fetches them again), so the shared feed asks
 * from the first of them; the spec's getUpdates answers at most 100 updates past that offset. A
 * gathering must still never hold back the bot's other updates, neither another workflow's nor other
 * chats' of the same workflow; the gathered messages run once, and the service is told they are done
 * only once they ran. Through n8n-core's TriggerContext against the emulator.
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { ServiceBotPollingTrigger } from '../../../nodes/ServiceBotPollingTrigger/ServiceBotPollingTrigger.node';
import type { Emulator, RecordedCall } from '../../emulator';
import type { RunningTrigger, TriggerHarness } from '../../harness';
import { LIMITS } from '../../spec';
import { inNewProcess, makeHarness } from '../../harness/trigger-nodes';
import { SHORT_POLL_WAITS, useEmulator } from '../../harness/emulator-suite';

let emu: Emulator;
const running: RunningTrigger[] = [];
useEmulator({ running, started: (started) => (emu = started), pollWaits: SHORT_POLL_WAITS });

/** The longest Group Messages Within (seconds): longer than this test may take. */
const LONGEST_WINDOW = 60;
/** The most updates one getUpdates answers (the spec). */
const LARGEST_ANSWER = LIMITS.updatesLimit.max;

const polls = (): RecordedCall[] => emu.callsTo('getUpdates');

/** A published workflow's trigger that records, for each emit, which of its updates the service no longer kept pending then. */
interface Recorded {
	trigger: RunningTrigger;
	/** Per emit, in order: the updates it ran that the service had marked delivered before n8n was handed the execution. */
	doneBeforeEmit: number[][];
}

async function published(workflowName: string, parameters: INodeParameters): Promise<Recorded> {
	const harness: TriggerHarness = await makeHarness(emu, { nodeType: new ServiceBotPollingTrigger(), workflowName, typeVersion: 2, parameters });
	const doneBeforeEmit: number[][] = [];
	const onEmit = (data: INodeExecutionData[][]): void => {
		// What the emulator itself keeps pending at this moment: an update marked delivered is gone.
		const kept = new Set(emu.pendingUpdates().map((update) => update.update_id));
		doneBeforeEmit.push(updatesOf(data[0][0].json).filter((id) => !kept.has(id)));
	};
	const trigger = await harness.startTrigger({ onEmit });
	running.push(trigger);
	return { trigger, doneBeforeEmit };
}

function items(recorded: Recorded): IDataObject[] {
	return recorded.trigger.emitted.map((run: INodeExecutionData[][]) => run[0][0].json);
}

/** The updates an item ran: a grouped item lists them, any other is one update. */
function updatesOf(item: IDataObject): number[] {
	return Array.isArray(item.updates) ? (item.updates as IDataObject[]).map((update) => update.update_id as number) : [item.update_id as number];
}

/**
 * The acknowledgement rule of the spec (getUpdates with offset N marks every update below N
 * delivered): no update was marked before n8n was handed its execution. Checked at each emit against
 * what the emulator keeps pending then (its own state, so neither when a call reaches it nor a call
 * left over from another test counts).
 */
function acknowledgedBeforeRun(recorded: Recorded): number[] {
	return recorded.doneBeforeEmit.flat();
}

describe('Group Messages Within holds back none of the bot’s other updates (issue 33, item 6)', () => {
	test('while one user’s message is gathered for the longest window, a workflow without grouping and the grouping workflow’s commands from another chat run all 150 updates that follow; the gathered message runs once, and no update is acknowledged before it ran', async () => {
		const grouping = await published('Support (grouping)', { updates: ['*'], options: { groupMessagesSeconds: LONGEST_WINDOW } });
		const plain = await published('Log', { updates: ['*'], options: {} });
		const held = (await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'I need help' })).update_id;
		// Commands run at once, alone (Group Messages Within gathers plain messages only).
		const commands: number[] = [];
		for (let n = 0; n < LARGEST_ANSWER + 50; n++) {
			commands.push((await emu.userSends({ chatId: emu.demo.groupChatId, userId: emu.demo.otherUserId, text: `/status ${n}` })).update_id);
		}
		await plain.trigger.waitForEmits(1 + commands.length);
		await grouping.trigger.waitForEmits(1 + commands.length);

		// Every update ran in both workflows, in the service's order; the gathered message once.
		expect(items(plain).flatMap(updatesOf)).toEqual([held, ...commands]);
		const ran = items(grouping).flatMap(updatesOf);
		expect([...ran].sort((x, y) => x - y)).toEqual([held, ...commands]);
		expect(ran.filter((id) => id !== held)).toEqual(commands);
		expect(items(grouping).filter((item) => updatesOf(item).includes(held))).toEqual([expect.objectContaining({ chatInput: 'I need help' })]);
		expect(acknowledgedBeforeRun(grouping)).toEqual([]);
		expect(acknowledgedBeforeRun(plain)).toEqual([]);
		expect([...plain.trigger.errors, ...grouping.trigger.errors]).toEqual([]);
		const fetched = polls().reduce((sum, call) => sum + ((call.response as { result?: unknown[] } | null)?.result?.length ?? 0), 0);
		console.log(`Group Messages Within beside 150 other updates: ${polls().length} getUpdates fetched ${fetched} updates for ${1 + commands.length}`);
	});

	test('a gathering that holds nothing back is not cut short: with fewer updates after it than one answer holds, the gathered messages still run together once the user is quiet', async () => {
		const grouping = await published('Support (grouping)', { updates: ['*'], options: { groupMessagesSeconds: 2 } });
		const plain = await published('Log', { updates: ['*'], options: {} });
		const first = (await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'one' })).update_id;
		const commands: number[] = [];
		for (let n = 0; n < 10; n++) commands.push((await emu.userSends({ chatId: emu.demo.groupChatId, userId: emu.demo.otherUserId, text: `/status ${n}` })).update_id);
		const second = (await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'two' })).update_id;
		await plain.trigger.waitForEmits(12);
		await grouping.trigger.waitForEmits(11);

		expect(items(plain).flatMap(updatesOf)).toEqual([first, ...commands, second]);
		// The ten commands ran while the two messages were gathered; the two ran together after them.
		expect(items(grouping).map(updatesOf)).toEqual([...commands.map((id) => [id]), [first, second]]);
		expect(acknowledgedBeforeRun(grouping)).toEqual([]);
	});
});

describe('a grouped run and n8n killed right after it (issue 33, item 7)', () => {
	test('the messages of a grouped run that n8n had started form the same run again after the restart, also when the user wrote again before n8n came back (run again, as n8n may have crashed it), and the new message runs on its own', async () => {
		const harness = await makeHarness(emu, { nodeType: new ServiceBotPollingTrigger(), typeVersion: 2, parameters: { updates: ['*'], options: { groupMessagesSeconds: 1 } } });
		// n8n is killed right after it was handed the grouped run: the service was not told yet.
		const dying = await harness.startTrigger({ dieAtEmit: { emit: 1, when: 'after' } });
		running.push(dying);
		const say = async (text: string): Promise<number> => (await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text })).update_id;
		const grouped = [await say('I need help'), await say('with my order')];
		await dying.waitForEmits(1);
		expect(emu.pendingUpdates().map((update) => update.update_id)).toEqual(grouped);
		const later = await say('are you there?');

		const restarted = await (await inNewProcess(emu, harness)).startTrigger();
		running.push(restarted);
		await restarted.waitForEmits(2);
		await restarted.close();

		const ran = [...dying.emitted, ...restarted.emitted].map((run) => updatesOf(run[0][0].json));
		expect(ran).toEqual([grouped, grouped, [later]]);
		expect(restarted.refused).toEqual([]);
		expect(emu.pendingUpdates()).toEqual([]);
	});
});
