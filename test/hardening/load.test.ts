/**
 * Load without loss. The emulator pushes 1000 updates to the trigger's real HTTP
 * webhook server (harness `startWebhookServer`, n8n-core's WebhookContext per request) with
 * max_connections 40 → 1000 executions, none lost, none duplicated.
 *
 * To make "none duplicated" mean something, some deliveries lose their acknowledgement: the trigger
 * ran the workflow, but the service gets a 500 (as when n8n answers after a crash or a proxy drops
 * the answer), so the service sends the same update again. The trigger must not run it twice.
 * Polling, with n8n killed twice: nothing lost, nothing twice within one n8n process; an update runs
 * again in the next process only when the killed one had been handed its execution and the service
 * had not been told it was done (n8n may have crashed that execution: poll.ts, the deduplication key).
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { Emulator, Update } from '../emulator';
import { startWebhookServer, type TriggerHarness, type WebhookServer } from '../harness';
import { ServiceBotPollingTrigger } from '../../nodes/ServiceBotPollingTrigger/ServiceBotPollingTrigger.node';
import type { RunningTrigger } from '../harness';
import { inNewProcess, makeHarness, sendButton } from '../harness/trigger-nodes';
import { useEmulator } from '../harness/emulator-suite';
import { sleep, startCapture, type Capture } from './secrecy';

const UPDATES = 1000;
const MAX_CONNECTIONS = 40;
/** Every n-th first delivery loses its acknowledgement. */
const LOST_ACK_EVERY = 25;
const RECEIVE_MS = 20;

let emu: Emulator;
let capture: Capture;
useEmulator({ started: (started) => (emu = started) });

beforeAll(() => {
	capture = startCapture();
});

let summary = '';

afterAll(() => {
	capture.stop();
	if (summary) console.log(summary);
});

interface Observed {
	harness: TriggerHarness;
	/** Deliveries per update_id (every POST that reached webhook()). */
	deliveries: Map<number, number>;
	lostAcks: Set<number>;
	inFlight: { now: number; peak: number };
}

/** The harness as the webhook server sees it, counting concurrency and dropping some acknowledgements. */
function observed(harness: TriggerHarness): Observed {
	const deliveries = new Map<number, number>();
	const lostAcks = new Set<number>();
	const inFlight = { now: 0, peak: 0 };
	let first = 0;
	const wrapped: TriggerHarness = {
		...harness,
		receive: async (request) => {
			inFlight.now++;
			inFlight.peak = Math.max(inFlight.peak, inFlight.now);
			try {
				// n8n takes a moment per delivery (it stores the execution before it answers): without it,
				// the in-process handling is so fast that deliveries never overlap.
				await sleep(RECEIVE_MS);
				const receipt = await harness.receive(request);
				const id = (JSON.parse(request.rawBody?.toString('utf8') ?? '{}') as { update_id?: number }).update_id ?? -1;
				const count = (deliveries.get(id) ?? 0) + 1;
				deliveries.set(id, count);
				if (count === 1 && ++first % LOST_ACK_EVERY === 0) {
					lostAcks.add(id);
					return { ...receipt, status: 500, responseBody: { message: 'lost on the way back' } };
				}
				return receipt;
			} finally {
				inFlight.now--;
			}
		},
	};
	return { harness: wrapped, deliveries, lostAcks, inFlight };
}

describe('load', () => {
	let server: WebhookServer | undefined;

	afterEach(async () => {
		await server?.close();
	});

	it(`${UPDATES} updates pushed with max_connections ${MAX_CONNECTIONS}: ${UPDATES} executions, 0 lost, 0 duplicated`, async () => {
		const harness = await makeHarness(emu, { parameters: { updates: ['*'], options: { maxConnections: MAX_CONNECTIONS } } });
		const watch = observed(harness);
		server = await startWebhookServer(watch.harness);
		await harness.activate();
		expect(emu.webhookOf()).toMatchObject({ url: harness.webhookUrl, maxConnections: MAX_CONNECTIONS });

		// Messages from two chats and two users, and button clicks, as fast as the emulator takes them.
		const started = performance.now();
		const buttons = await Promise.all([0, 1, 2, 3, 4].map(async (index) => await sendButton(emu, emu.demo.groupChatId, `b${index}`)));
		const sends: Array<Promise<Update>> = [];
		for (let index = 0; index < UPDATES; index++) {
			if (index % 20 === 19) {
				const button = index % 5;
				sends.push(emu.userClicks({ chatId: emu.demo.groupChatId, userId: emu.demo.otherUserId, messageId: buttons[button], data: `b${button}` }));
			} else {
				const chatId = index % 2 === 0 ? emu.demo.privateChatId : emu.demo.groupChatId;
				sends.push(emu.userSends({ chatId, userId: emu.demo.userId, text: `load ${index}` }));
			}
		}
		const updates = await Promise.all(sends);
		await emu.idle(60_000);
		const elapsed = performance.now() - started;

		const sent = updates.map((update) => update.update_id);
		expect(new Set(sent).size).toBe(UPDATES);
		const executed = server.executions.map((run: INodeExecutionData[][]) => {
			expect(run[0]).toHaveLength(1);
			return (run[0][0].json as IDataObject).update_id as number;
		});

		// 1000 executions: every update once, none lost, none twice.
		expect(executed).toHaveLength(UPDATES);
		expect(new Set(executed).size).toBe(UPDATES);
		expect([...executed].sort((a, b) => a - b)).toEqual([...sent].sort((a, b) => a - b));
		// What ran is what the users did.
		const byId = new Map(updates.map((update) => [update.update_id, update]));
		for (const run of server.executions) {
			const json = run[0][0].json as IDataObject;
			expect(json).toEqual(byId.get(json.update_id as number));
		}

		// The lost acknowledgements were delivered again, and not run again.
		expect(watch.lostAcks.size).toBe(UPDATES / LOST_ACK_EVERY);
		for (const id of watch.lostAcks) expect(watch.deliveries.get(id)).toBeGreaterThanOrEqual(2);
		const deliveries = [...watch.deliveries.values()].reduce((sum, count) => sum + count, 0);
		expect(deliveries).toBeGreaterThanOrEqual(UPDATES + watch.lostAcks.size);

		// The service used the connections it was allowed, and no more.
		expect(watch.inFlight.peak).toBeLessThanOrEqual(MAX_CONNECTIONS);
		expect(watch.inFlight.peak).toBeGreaterThanOrEqual(MAX_CONNECTIONS / 2);
		expect(emu.webhookOf()?.pendingUpdateCount).toBe(0);
		summary = `load: ${UPDATES} updates, ${deliveries} deliveries (${watch.lostAcks.size} acknowledgements lost), ${executed.length} executions, peak ${watch.inFlight.peak} concurrent, ${(elapsed / 1000).toFixed(1)} s`;
		await harness.delete();
	}, 90_000);
});

describe('load while polling', () => {
	const BURSTS = 10;
	const PER_BURST = UPDATES / BURSTS;

	it(`${UPDATES} updates in ${BURSTS} bursts, n8n dying twice (after an emit, before an emit) and broken answers: every update runs, in order, none twice within one process, again only after a kill that came before it was acknowledged`, async () => {
		const harness = await makeHarness(emu, { nodeType: new ServiceBotPollingTrigger(), parameters: { updates: ['*'], options: {} } });
		// Every 7th getUpdates is executed by the service, but its answer breaks on the way back.
		let polls = 0;
		emu.injectFault({ kind: 'reset', method: 'getUpdates', execute: true, count: 10_000, when: () => ++polls % 7 === 0 });
		const button = await sendButton(emu, emu.demo.groupChatId, 'load');

		const started = performance.now();
		const sending = (async () => {
			const sent: Update[] = [];
			for (let burst = 0; burst < BURSTS; burst++) {
				const updates = await Promise.all(
					Array.from({ length: PER_BURST }, async (_, index) =>
						index % 10 === 9
							? await emu.userClicks({ chatId: emu.demo.groupChatId, userId: emu.demo.otherUserId, messageId: button, data: 'load' })
							: await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: `burst ${burst} #${index}` }),
					),
				);
				sent.push(...updates);
				await sleep(20);
			}
			return sent;
		})();

		const runs: RunningTrigger[] = [];
		const first = await harness.startTrigger({ dieAtEmit: { emit: 250, when: 'after' } });
		runs.push(first);
		await first.waitForEmits(250);
		/** The last call the service had when each n8n died (a dead process sends nothing more). */
		const died = [emu.calls.at(-1)?.seq ?? 0];
		await first.close();
		const second = await (await inNewProcess(emu, harness)).startTrigger({ dieAtEmit: { emit: 250, when: 'before' } });
		runs.push(second);
		await second.waitForEmits(250);
		died.push(emu.calls.at(-1)?.seq ?? 0);
		await second.close();
		const third = await (await inNewProcess(emu, harness)).startTrigger();
		runs.push(third);
		const sent = await sending;
		const before = runs.slice(0, 2).reduce((sum, run) => sum + run.emitted.length, 0);
		await third.waitForEmits(UPDATES - before);
		const elapsed = performance.now() - started;
		await third.close();

		const perRun = runs.map((run) => run.emitted.map((items) => {
			expect(items[0]).toHaveLength(1);
			return items[0][0].json as IDataObject;
		}));
		const executed = perRun.flat();
		const idsOf = (jsons: IDataObject[]): number[] => jsons.map((json) => json.update_id as number);
		expect(new Set(sent.map((update) => update.update_id)).size).toBe(UPDATES);
		// Within each process in order and never twice.
		for (const jsons of perRun) expect(idsOf(jsons)).toEqual([...new Set(idsOf(jsons))].sort((a, b) => a - b));
		// Every update ran, exactly what the users did.
		expect([...new Set(idsOf(executed))].sort((a, b) => a - b)).toEqual([...sent.map((update) => update.update_id)].sort((a, b) => a - b));
		// Again in a later process only what a killed one ran before the service was told it was done.
		const toldBefore = (id: number, seq: number): boolean => emu.callsTo('getUpdates').some((call) => typeof call.body.offset === 'number' && call.body.offset > id && call.seq <= seq);
		const again = perRun.flatMap((jsons, index) => idsOf(jsons).filter((id) => perRun.slice(0, index).some((earlier) => idsOf(earlier).includes(id))));
		const unexplained = again.filter((id) => {
			const ranFirstIn = perRun.findIndex((jsons) => idsOf(jsons).includes(id));
			return ranFirstIn >= died.length || toldBefore(id, died[ranFirstIn]);
		});
		expect(unexplained).toEqual([]);
		const byId = new Map(sent.map((update) => [update.update_id, update]));
		for (const json of executed) expect(json).toEqual(byId.get(json.update_id as number));
		expect(runs.every((run) => run.errors.length === 0)).toBe(true);
		// One more restart: its first poll acknowledges the rest, and nothing runs again.
		emu.clearFaults();
		const fourth = await (await inNewProcess(emu, harness)).startTrigger();
		while (emu.pendingUpdates().length > 0) await sleep(10);
		await fourth.close();
		expect(fourth.emitted).toEqual([]);
		const broken = emu.callsTo('getUpdates').filter((call) => call.response !== null && typeof call.response === 'string').length;
		summary += `\nload while polling: ${UPDATES} updates in ${BURSTS} bursts, ${runs.map((run) => run.emitted.length).join(' + ')} executions over 3 processes (${executed.length - UPDATES} again after a kill), ${emu.callsTo('getUpdates').length} getUpdates (${broken} answers broken), ${(elapsed / 1000).toFixed(1)} s`;
	}, 90_000);
});
