/**
 * 100 activate/deactivate cycles of one trigger (n8n's production activation, or
 * the editor's test registration), with foreign webhooks set before activation, while active, or
 * left over from earlier cycles: by another system, or by another workflow's trigger of the same
 * bot taking the webhook over. After every step:
 * - the trigger never deletes a webhook it does not own (a foreign webhook is untouched, and no
 *   deleteWebhook call is made for it), and neither does the other workflow's trigger;
 * - a successful deactivation never leaves the trigger's own webhook behind;
 * - activation takes a foreign webhook only when "Take Over Existing Webhook" is on;
 * - a test in the editor while production is active either is refused and leaves production alone,
 *   or (with take-over) holds the webhook and, when it ends, hands it back exactly as it was.
 * The cycle plan is generated (fast-check), so a failure shrinks to a short sequence of cycles.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';
import { randomUUID } from 'node:crypto';

import type { Emulator, WebhookView } from '../emulator';
import type { HookMode, TriggerHarness } from '../harness';
import { api, makeHarness, startTestEmulator } from '../serviceBotTrigger/helpers';
import { startCapture, type Capture } from './secrecy';

const CYCLES = 100;
const BASE = 'http://127.0.0.1:5678/';

let emu: Emulator;
let capture: Capture;

beforeAll(async () => {
	emu = await startTestEmulator();
	capture = startCapture();
});

let summary = '';

afterAll(async () => {
	capture.stop();
	await emu.close();
	if (summary) console.log(summary);
});

type Foreign = 'none' | 'system' | 'otherWorkflow';

interface Cycle {
	mode: HookMode;
	takeOver: boolean;
	/** Set just before activation (on top of whatever earlier cycles left). */
	before: Foreign;
	/** Set while the trigger is active. */
	during: Foreign | 'removedBySomeone';
	/** While production is active, the user clicks "listen for test event" (test mode registration). */
	testWhileActive: 'no' | 'refused' | 'takeOver';
	/** Whether a foreign webhook present at the end of the cycle is left for the next one. */
	foreignStays: boolean;
	/** n8n lost the node's static data (e.g. restored from a backup). */
	staticDataLost: boolean;
}

const cycleArb: fc.Arbitrary<Cycle> = fc.record({
	mode: fc.constantFrom<HookMode>('trigger', 'trigger', 'trigger', 'manual'),
	takeOver: fc.boolean(),
	before: fc.constantFrom<Foreign>('none', 'none', 'system', 'otherWorkflow'),
	during: fc.constantFrom<Cycle['during']>('none', 'none', 'none', 'system', 'otherWorkflow', 'removedBySomeone'),
	testWhileActive: fc.constantFrom<Cycle['testWhileActive']>('no', 'no', 'refused', 'takeOver'),
	foreignStays: fc.boolean(),
	staticDataLost: fc.integer({ min: 0, max: 9 }).map((value) => value === 0),
});

const snapshot = (): WebhookView | null => emu.webhookOf();
const deleteCalls = (): number => emu.callsTo('deleteWebhook').length;

interface World {
	ids: { workflowId: string; nodeId: string; webhookId: string };
	staticData: IDataObject;
	other: TriggerHarness;
	counters: { activations: number; refused: number; tookOver: number; deletedOwn: number; leftForeign: number; handedBack: number };
}

async function ours(world: World, cycle: Pick<Cycle, 'takeOver' | 'staticDataLost'>): Promise<TriggerHarness> {
	if (cycle.staticDataLost) for (const key of Object.keys(world.staticData)) delete world.staticData[key];
	// n8n loads the workflow afresh for every activation, with the persisted static data.
	return await makeHarness(emu, {
		...world.ids,
		webhookBaseUrl: BASE,
		staticData: world.staticData,
		parameters: { updates: ['*'], options: { takeOverExistingWebhook: cycle.takeOver } },
	});
}

async function setForeign(world: World, kind: Foreign, label: string): Promise<void> {
	if (kind === 'system') {
		const set = await api(emu, 'setWebhook', { url: `http://127.0.0.1:9/other-system/${label}`, secret_token: `foreign-${label}` });
		expect(set.ok).toBe(true);
	} else if (kind === 'otherWorkflow') {
		await world.other.activate();
		expect(snapshot()?.url).toBe(world.other.webhookUrl);
	}
}

/** Runs `step` and checks that it deleted nothing unless the webhook was `own` before it. */
async function guarded<T>(own: string, step: () => Promise<T>): Promise<{ value: T; deleted: boolean }> {
	const before = snapshot();
	const calls = deleteCalls();
	const value = await step();
	const after = snapshot();
	const deleted = deleteCalls() > calls;
	if (before && before.url !== own) {
		// Someone else's webhook: untouched, and not even a deleteWebhook call.
		expect(after).toEqual(before);
		expect(deleted).toBe(false);
	}
	return { value, deleted };
}

async function runCycle(world: World, cycle: Cycle, index: number): Promise<void> {
	const trigger = await ours(world, cycle);
	const own = cycle.mode === 'manual' ? trigger.testWebhookUrl : trigger.webhookUrl;
	await setForeign(world, cycle.before, `${index}-before`);

	// Activation.
	const before = snapshot();
	const foreignBefore = before !== null && before.url !== own;
	const activation = await trigger.activate(cycle.mode).then(
		() => undefined,
		(error: unknown) => error as Error,
	);
	world.counters.activations++;
	if (foreignBefore && !cycle.takeOver) {
		expect(activation?.message).toMatch(/^The bot's webhook belongs to someone else/);
		expect(snapshot()).toEqual(before);
		world.counters.refused++;
	} else {
		expect(activation).toBeUndefined();
		expect(snapshot()?.url).toBe(own);
		if (foreignBefore) world.counters.tookOver++;
	}

	if (activation === undefined && cycle.mode === 'trigger' && cycle.testWhileActive === 'refused') {
		// The editor's test registration while production is active: refused (no take-over), and
		// removing the test registration (n8n cleans up with delete) leaves production alone.
		const test = await ours(world, { takeOver: false, staticDataLost: false });
		const production = snapshot();
		await expect(test.activate('manual')).rejects.toThrow(/^This workflow is published and its trigger owns the bot's webhook/);
		await guarded(test.testWebhookUrl, async () => await test.delete('manual'));
		expect(snapshot()).toEqual(production);
	}
	if (activation === undefined && cycle.mode === 'trigger' && cycle.testWhileActive === 'takeOver') {
		// With take-over the test holds the webhook, and hands it back when it ends, as it was.
		const test = await ours(world, { takeOver: true, staticDataLost: false });
		const production = snapshot();
		await test.activate('manual');
		expect(snapshot()?.url).toBe(test.testWebhookUrl);
		expect(await test.delete('manual')).toBe(true);
		expect(snapshot()).toMatchObject({
			url: production?.url,
			secretToken: production?.secretToken,
			allowedUpdates: production?.allowedUpdates,
			maxConnections: production?.maxConnections,
		});
		world.counters.handedBack++;
	}

	// While active.
	if (cycle.during === 'removedBySomeone') {
		expect((await api(emu, 'deleteWebhook')).ok).toBe(true);
	} else {
		await setForeign(world, cycle.during, `${index}-during`);
	}

	// Deactivation: always reported as success here (no service errors in this test).
	const atDeactivation = snapshot();
	const { value: removed, deleted } = await guarded(own, async () => await trigger.delete(cycle.mode));
	expect(removed).toBe(true);
	const after = snapshot();
	expect(after?.url).not.toBe(own);
	if (atDeactivation?.url === own) {
		expect(after).toBeNull();
		expect(deleted).toBe(true);
		world.counters.deletedOwn++;
	} else if (atDeactivation) {
		world.counters.leftForeign++;
	}

	// The other party, done with its webhook or not.
	if (!cycle.foreignStays && after) {
		if (after.url === world.other.webhookUrl) {
			await guarded(world.other.webhookUrl, async () => await world.other.delete());
		} else {
			expect((await api(emu, 'deleteWebhook')).ok).toBe(true);
		}
	}
	// The other workflow's trigger never deletes ours either (it may be deactivated at any time).
	if (after === null || after.url !== world.other.webhookUrl) {
		await guarded(world.other.webhookUrl, async () => await world.other.delete());
	}
}

describe(`${CYCLES} activate/deactivate cycles with foreign webhooks in between`, () => {
	it('never deletes a webhook it does not own, never leaves its own behind', async () => {
		const totals = { activations: 0, refused: 0, tookOver: 0, deletedOwn: 0, leftForeign: 0, handedBack: 0 };
		await fc.assert(
			fc.asyncProperty(fc.array(cycleArb, { minLength: CYCLES, maxLength: CYCLES }), async (cycles) => {
				await api(emu, 'deleteWebhook');
				const world: World = {
					ids: { workflowId: `wf-${randomUUID()}`, nodeId: randomUUID(), webhookId: randomUUID() },
					staticData: {},
					other: await makeHarness(emu, {
						webhookBaseUrl: BASE,
						parameters: { updates: ['*'], options: { takeOverExistingWebhook: true } },
					}),
					counters: { activations: 0, refused: 0, tookOver: 0, deletedOwn: 0, leftForeign: 0, handedBack: 0 },
				};
				for (let index = 0; index < cycles.length; index++) {
					try {
						await runCycle(world, cycles[index], index);
					} catch (error) {
						throw new Error(`cycle ${index} (${JSON.stringify(cycles[index])}): ${String(error)}`);
					}
				}
				Object.assign(totals, world.counters);
				// Every kind of cycle happened.
				expect(world.counters.activations).toBe(CYCLES);
				expect(world.counters.refused).toBeGreaterThan(0);
				expect(world.counters.tookOver).toBeGreaterThan(0);
				expect(world.counters.deletedOwn).toBeGreaterThan(0);
				expect(world.counters.leftForeign).toBeGreaterThan(0);
				expect(world.counters.handedBack).toBeGreaterThan(0);
			}),
			// The failing cycle is named in the error; shrinking 100 cycles would outlast the timeout.
			{ numRuns: 1, endOnFailure: true },
		);
		// The log says why a foreign webhook was left alone.
		expect(capture.logged('warn').join('\n')).toContain('left untouched');
		expect(totals.activations).toBe(CYCLES);
		summary = `lifecycle: ${JSON.stringify(totals)}`;
	}, 120_000);
});
