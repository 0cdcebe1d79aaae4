/**
 * When the service is told a push arrived: only once the push's execution has run (n8n answers a
 * webhook of response mode "last node" when the execution ends), at the latest at the bound, and never
 * while n8n shuts down before the execution ran. Through n8n-core's WebhookContext (the harness runs
 * webhook() and answers as n8n 2.41 does for the node's response mode); the execution n8n would start
 * is held by the test, so what the service gets meanwhile is seen.
 */
import type { IDataObject } from 'n8n-workflow';

import { ANSWER_TIMING } from '../../../../nodes/ServiceBotTrigger/webhook/answer';
import type { Emulator } from '../../../emulator';
import type { TriggerHarness } from '../../../harness';
import { useEmulator } from '../../../harness/emulator-suite';
import { SECRET_HEADER, makeHarness } from '../../../harness/trigger-nodes';

let emu: Emulator;
useEmulator({ started: (started) => (emu = started) });

/** An execution the test ends: `end('success' | 'error')`; `ended` says whether it has. */
function heldExecution(): { run: () => Promise<'success' | 'error'>; end: (how: 'success' | 'error') => void; readonly ended: boolean } {
	let finish: (how: 'success' | 'error') => void = () => undefined;
	let ended = false;
	const done = new Promise<'success' | 'error'>((resolve) => {
		finish = resolve;
	});
	return {
		run: async () => await done,
		end: (how) => {
			ended = true;
			finish(how);
		},
		get ended() {
			return ended;
		},
	};
}

/** A private message from the demo user with `text`, as the service pushes it. */
function message(updateId: number, text: string): IDataObject {
	return {
		update_id: updateId,
		message: { message_id: updateId, date: 1_700_000_000, chat: { id: emu.demo.privateChatId, type: 'private' }, from: { id: emu.demo.userId, is_bot: false, first_name: 'Demo' }, text },
	};
}

async function published(): Promise<{ harness: TriggerHarness; secret: string }> {
	const harness = await makeHarness(emu, { typeVersion: 2, parameters: { updates: ['message'] } });
	await harness.activate();
	return { harness, secret: emu.webhookOf()?.secretToken ?? '' };
}

/** What the sender was answered, in order, with whether the execution had ended by then. */
type Answer = { status: number; body: unknown; executionEnded: boolean };

describe('a push is answered once its execution has run', () => {
	test('held while the execution runs: the service gets nothing before it ends, then 200 with an empty body', async () => {
		const { harness, secret } = await published();
		const execution = heldExecution();
		const answers: Answer[] = [];
		const receiving = harness.receive({
			headers: { [SECRET_HEADER]: secret },
			body: message(1, '{{ $json.chatInput }} is what a user may type'),
			execution: execution.run,
			onAnswer: (status, body) => answers.push({ status, body, executionEnded: execution.ended }),
		});
		// Held: proven by the order of events, not by time.
		await new Promise((resolve) => setImmediate(resolve));
		execution.end('success');
		const receipt = await receiving;
		expect(receipt.workflowData?.[0]?.[0]?.json).toMatchObject({ chatInput: '{{ $json.chatInput }} is what a user may type', chat_id: emu.demo.privateChatId });
		expect(answers).toEqual([{ status: 200, body: undefined, executionEnded: true }]);
		await harness.delete();
	});

	test('an execution that failed is answered 500 (the service sends the update again); the push sent again is answered 200 at once and not run again', async () => {
		const { harness, secret } = await published();
		const first = await harness.receive({ headers: { [SECRET_HEADER]: secret }, body: message(2, 'fails'), execution: async () => await Promise.resolve('error' as const) });
		expect(first.workflowData).toBeDefined();
		expect(first.status).toBe(500);
		const again = await harness.receive({ headers: { [SECRET_HEADER]: secret }, body: message(2, 'fails') });
		expect(again).toMatchObject({ status: 200 });
		expect(again.workflowData).toBeUndefined();
		await harness.delete();
	});

	test('a push sent again while its execution still runs is answered 200 at once and not run twice', async () => {
		const { harness, secret } = await published();
		const execution = heldExecution();
		const answers: Answer[] = [];
		const firstPush = harness.receive({
			headers: { [SECRET_HEADER]: secret },
			body: message(3, 'slow'),
			execution: execution.run,
			onAnswer: (status, body) => answers.push({ status, body, executionEnded: execution.ended }),
		});
		// The service gave up waiting and sent it again: the duplicate window answers at once.
		const again = await harness.receive({ headers: { [SECRET_HEADER]: secret }, body: message(3, 'slow') });
		expect(again.status).toBe(200);
		expect(again.workflowData).toBeUndefined();
		expect(answers).toEqual([]);
		execution.end('success');
		expect((await firstPush).workflowData).toBeDefined();
		await harness.delete();
	});

	test('an execution that outlasts the bound: the push is answered 200 at the bound while it still runs, and n8n\'s own answer at its end is dropped', async () => {
		jest.replaceProperty(ANSWER_TIMING, 'boundMs', 50);
		const { harness, secret } = await published();
		const execution = heldExecution();
		const answers: Answer[] = [];
		let boundAnswer: () => void = () => undefined;
		const answeredAtTheBound = new Promise<void>((resolve) => {
			boundAnswer = resolve;
		});
		const receiving = harness.receive({
			headers: { [SECRET_HEADER]: secret },
			body: message(4, 'long'),
			execution: execution.run,
			onAnswer: (status, body) => {
				answers.push({ status, body, executionEnded: execution.ended });
				boundAnswer();
			},
		});
		await answeredAtTheBound;
		execution.end('success');
		const receipt = await receiving;
		expect(receipt.workflowData).toBeDefined();
		expect(answers).toEqual([{ status: 200, body: {}, executionEnded: false }]);
		expect(receipt.status).toBe(200);
		await harness.delete();
	});
});

describe('while n8n shuts down', () => {
	test('a push is refused with 503 and nothing runs; the same push to a running n8n then runs', async () => {
		const { harness, secret } = await published();
		const stopping = await harness.receive({ headers: { [SECRET_HEADER]: secret }, body: message(5, 'during shutdown'), server: { listening: false } });
		expect(stopping.status).toBe(503);
		expect(stopping.workflowData).toBeUndefined();
		const later = await harness.receive({ headers: { [SECRET_HEADER]: secret }, body: message(5, 'during shutdown') });
		expect(later.status).toBe(200);
		expect(later.workflowData?.[0]?.[0]?.json).toMatchObject({ chatInput: 'during shutdown' });
		await harness.delete();
	});

	test('the bound does not answer a push whose execution still runs: it is answered when the execution has run', async () => {
		jest.replaceProperty(ANSWER_TIMING, 'boundMs', 20);
		const { harness, secret } = await published();
		const server = { listening: true };
		const answers: Answer[] = [];
		let executionEnded = false;
		const receiving = harness.receive({
			headers: { [SECRET_HEADER]: secret },
			body: message(6, 'running at SIGTERM'),
			server,
			// n8n begins shutting down while the execution runs; it ends after the bound has passed.
			execution: async () => {
				server.listening = false;
				await new Promise((resolve) => setTimeout(resolve, 100));
				executionEnded = true;
				return 'success';
			},
			onAnswer: (status, body) => answers.push({ status, body, executionEnded }),
		});
		const receipt = await receiving;
		expect(receipt.workflowData).toBeDefined();
		expect(answers).toEqual([{ status: 200, body: undefined, executionEnded: true }]);
		await harness.delete();
	});
});
