/**
 * Confirm Delivery: when the service is told a push arrived. The service keeps an update and sends it
 * again until a push of it is answered 2xx (spec: setWebhook), and n8n never runs an execution again
 * that its process took along when it died. So with "When the Run Ends" a push is answered once its run has ended:
 * in response mode "streaming" n8n ends the push's response when the execution ends (the harness does
 * as n8n does). Through n8n-core's WebhookContext against the emulator.
 */
import { randomUUID } from 'node:crypto';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { ANSWER_TIMING } from '../../../../nodes/ServiceBotTrigger/webhook/answer';
import { TYPING_TIMING } from '../../../../nodes/shared/trigger/typing';
import type { Emulator } from '../../../emulator';
import { freePort, startWebhookServer, type TriggerHarness, type WebhookServer } from '../../../harness';
import { useEmulator } from '../../../harness/emulator-suite';
import { SECRET_HEADER, makeHarness, messageUpdate } from '../../../harness/trigger-nodes';

let emu: Emulator;
let server: WebhookServer | undefined;
const made: TriggerHarness[] = [];
const running: Array<() => Promise<void>> = [];
useEmulator({ running, started: (started) => (emu = started), logging: true });

beforeEach(() => {
	running.push(async () => {
		for (const harness of made.splice(0)) await harness.delete().catch(() => false);
		await server?.close();
		server = undefined;
	});
});

/** A run that ends when the test says so. */
function heldRun(): { ends: Promise<'succeeded' | 'failed'>; end: (outcome: 'succeeded' | 'failed') => void } {
	let end: (outcome: 'succeeded' | 'failed') => void = () => undefined;
	const ends = new Promise<'succeeded' | 'failed'>((resolve) => (end = resolve));
	return { ends, end };
}

const AFTER_RUN = { confirmDelivery: 'afterRun' };

const moment = async (ms = 150): Promise<void> => await new Promise((resolve) => setTimeout(resolve, ms));

async function published(options: INodeParameters = {}, typeVersion?: number): Promise<{ harness: TriggerHarness; secret: string }> {
	const harness = await makeHarness(emu, { typeVersion, parameters: { updates: ['*'], options } });
	made.push(harness);
	await harness.activate();
	return { harness, secret: emu.webhookOf()?.secretToken ?? '' };
}

describe('When the Run Ends', () => {
	test.each([
		['chosen in version 1', AFTER_RUN, 1, 700],
		["version 3's default, the option not added", {}, 3, 701],
	])('%s: the service gets no answer while the run goes on, and 200 once it ended', async (_how, options, typeVersion, updateId) => {
		const { harness, secret } = await published(options, typeVersion);
		const run = heldRun();
		let answered = false;
		const delivery = harness
			.receive({ headers: { [SECRET_HEADER]: secret }, body: messageUpdate(updateId, emu.demo.privateChatId, emu.demo.userId), runEnds: run.ends })
			.then((receipt) => {
				answered = true;
				return receipt;
			});
		await moment();
		expect(answered).toBe(false);
		run.end('succeeded');
		const receipt = await delivery;
		expect(receipt.status).toBe(200);
		expect((receipt.workflowData?.[0][0].json as IDataObject).update_id).toBe(updateId);
	});

	test('a run that failed is answered 200 (sent again, it would fail again), and the same update sent again does not run', async () => {
		const { harness, secret } = await published(AFTER_RUN);
		const update = messageUpdate(710, emu.demo.privateChatId, emu.demo.userId);
		const failed = await harness.receive({ headers: { [SECRET_HEADER]: secret }, body: update, runEnds: Promise.resolve('failed') });
		expect(failed.status).toBe(200);
		expect(failed.workflowData).toBeDefined();
		const again = await harness.receive({ headers: { [SECRET_HEADER]: secret }, body: update });
		expect(again.status).toBe(200);
		expect(again.workflowData).toBeUndefined();
	});

	test('a run longer than the bound is answered 200 at the bound, and n8n answering when it ends later changes nothing and throws nothing', async () => {
		jest.replaceProperty(ANSWER_TIMING, 'boundMs', 200);
		const { harness, secret } = await published(AFTER_RUN);
		const run = heldRun();
		const receipt = await harness.receive({ headers: { [SECRET_HEADER]: secret }, body: messageUpdate(720, emu.demo.privateChatId, emu.demo.userId), runEnds: run.ends });
		expect(receipt).toMatchObject({ status: 200, responseBody: { message: 'Workflow was started' } });
		run.end('failed');
		await moment(20);
		// What n8n does when the run ends, on the response the bound answered already (express: status, json).
		const response = receipt.response!;
		expect(() => response.status(500).json({ message: 'Error in workflow' })).not.toThrow();
		expect(response.body).toEqual({ message: 'Workflow was started' });
	});

	test('with Show Typing, "typing…" is renewed while the run goes on and stops when n8n answers at its end', async () => {
		jest.replaceProperty(TYPING_TIMING, 'renewEveryMs', 40);
		const { harness, secret } = await published({ ...AFTER_RUN, showTyping: true });
		const run = heldRun();
		const delivery = harness.receive({ headers: { [SECRET_HEADER]: secret }, body: messageUpdate(750, emu.demo.privateChatId, emu.demo.userId), runEnds: run.ends });
		await moment(300);
		const whileRunning = emu.chatActions().length;
		expect(whileRunning).toBeGreaterThan(2);
		run.end('succeeded');
		expect((await delivery).status).toBe(200);
		// A renewal already on its way when the run ended may still arrive.
		await moment(300);
		const atTheEnd = emu.chatActions().length;
		await moment(300);
		expect(emu.chatActions().length).toBe(atTheEnd);
	});

	test('n8n gets its reply as webhook() returns, so it releases the push\'s expression scope (an isolate) while the push is held for its run', async () => {
		const { harness, secret } = await published(AFTER_RUN);
		const run = heldRun();
		const delivery = harness.receive({ headers: { [SECRET_HEADER]: secret }, body: messageUpdate(760, emu.demo.privateChatId, emu.demo.userId), runEnds: run.ends });
		await moment();
		expect(harness.deliveryScopesHeld()).toBe(0);
		run.end('succeeded');
		expect((await delivery).status).toBe(200);
		expect(harness.deliveryScopesHeld()).toBe(0);
	});

	test('n8n could not create the execution: its request handler was done when webhook() returned, so the bound answers 200 and the update is not run again in this process', async () => {
		jest.replaceProperty(ANSWER_TIMING, 'boundMs', 200);
		const { harness, secret } = await published(AFTER_RUN);
		const update = messageUpdate(730, emu.demo.privateChatId, emu.demo.userId);
		const arrived = Date.now();
		const failed = await harness.receive({ headers: { [SECRET_HEADER]: secret }, body: update, startFails: true });
		expect(failed).toMatchObject({ status: 200, responseBody: { message: 'Workflow was started' } });
		expect(Date.now() - arrived).toBeGreaterThanOrEqual(190);
		const again = await harness.receive({ headers: { [SECRET_HEADER]: secret }, body: update });
		expect(again.status).toBe(200);
		expect(again.workflowData).toBeUndefined();
	});
});

describe('When the Run Starts (the default before version 3)', () => {
	test.each([
		['left at its default in version 2', 2, {}],
		['left at its default in version 1', 1, {}],
		['chosen in version 3', 3, { confirmDelivery: 'whenStarted' }],
	])('%s: the service is answered once the execution exists, while the run still goes on', async (_how, typeVersion, options) => {
		const { harness, secret } = await published(options, typeVersion);
		const run = heldRun();
		const receipt = await harness.receive({ headers: { [SECRET_HEADER]: secret }, body: messageUpdate(740, emu.demo.privateChatId, emu.demo.userId), runEnds: run.ends });
		expect(receipt).toMatchObject({ status: 200, responseBody: { message: 'Workflow was started' } });
		run.end('succeeded');
	});
});

describe('several workflows on one bot', () => {
	test('the service is told only once every workflow of the bot has run the update: the receiver\'s answer waits for the other workflow\'s run', async () => {
		const base = `http://127.0.0.1:${await freePort()}/`;
		const [receiver, other] = [0, 1].map(() => makeHarness(emu, { webhookBaseUrl: base, workflowId: `wf-${randomUUID().slice(0, 8)}`, parameters: { updates: ['*'], options: AFTER_RUN } }));
		made.push(await receiver, await other);
		const otherPath = new URL((await other).webhookUrl).pathname;
		const otherRun = heldRun();
		let otherStarted = false;
		server = await startWebhookServer([await receiver, await other], {
			runEnds: (path) => {
				if (path !== otherPath) return undefined;
				otherStarted = true;
				return otherRun.ends;
			},
		});
		await (await receiver).activate();
		await (await other).activate();
		const update = await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'both of you' });
		while (!otherStarted) await moment(5);
		await moment();
		// The receiver's own run has ended; the other workflow's has not: the service still holds the update.
		expect(emu.webhookOf()).toMatchObject({ pendingUpdateCount: 1 });
		otherRun.end('succeeded');
		await emu.idle();
		expect(emu.webhookOf()).toMatchObject({ pendingUpdateCount: 0, lastError: null });
		const ranBy = (harness: TriggerHarness) => server!.executionsOf(harness).map((data) => Number((data[0][0].json as IDataObject).update_id));
		expect(ranBy(await receiver)).toEqual([update.update_id]);
		expect(ranBy(await other)).toEqual([update.update_id]);
	});
});
