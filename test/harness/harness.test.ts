/**
 * The harness's own tests: `executeNode` runs a node through n8n-core's real WorkflowExecute, and the
 * trigger harness runs webhook methods and deliveries in fresh real HookContext / WebhookContext.
 */
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeBaseDescription,
	INodeTypeDescription,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError, VersionedNodeType } from 'n8n-workflow';

import type { Emulator } from '../emulator';
import { credentialsFor, useEmulator } from './emulator-suite';
import { createTriggerHarness, executeNode, freePort, startWebhookServer, type TriggerHarness } from './index';
import { EchoTrigger, MethodCaller, SECRET_HEADER } from './test-nodes';

let emulator: Emulator;
useEmulator({ emulator: { webhookRetryBaseMs: 20 }, started: (started) => (emulator = started) });

beforeEach(() => {
	MethodCaller.thrown.length = 0;
});

const credentials = () => credentialsFor(emulator);

/** A node without HTTP, to measure the harness itself: echoes its items with a resolved parameter. */
class Echo implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Echo',
		name: 'echo',
		group: ['transform'],
		version: 1,
		description: 'Echoes items',
		defaults: { name: 'Echo' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		usableAsTool: true,
		properties: [{ displayName: 'Tag', name: 'tag', type: 'string', default: 'plain' }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [
			this.getInputData().map((item, itemIndex) => ({
				json: { ...item.json, tag: this.getNodeParameter('tag', itemIndex) as string },
				pairedItem: { item: itemIndex },
			})),
		];
	}
}

function versioned(): VersionedNodeType {
	const make = (version: number): INodeType => ({
		description: {
			displayName: 'Versioned',
			name: 'versioned',
			group: ['transform'],
			version,
			description: 'Reports its version',
			defaults: { name: 'Versioned' },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			properties: [],
		},
		async execute(this: IExecuteFunctions) {
			return [[{ json: { version: this.getNode().typeVersion }, pairedItem: { item: 0 } }]];
		},
	});
	const base: INodeTypeBaseDescription = {
		displayName: 'Versioned',
		name: 'versioned',
		group: ['transform'],
		description: 'Reports its version',
		defaultVersion: 2,
	};
	return new VersionedNodeType({ 1: make(1), 2: make(2) }, base);
}

describe('executeNode', () => {
	it('runs a node through WorkflowExecute against the emulator', async () => {
		const { output, error, run } = await executeNode({
			nodeType: new MethodCaller(),
			parameters: { method: 'getMyName' },
			credentials: credentials(),
		});
		expect(error).toBeUndefined();
		expect(output).toEqual([{ json: { result: { name: 'Demo Bot' } }, pairedItem: { item: 0 } }]);
		expect(run.status).toBe('success');
		expect(run.mode).toBe('manual');
		expect(Object.keys(run.data.resultData.runData)).toEqual(['Start', 'Method Caller']);
		expect(emulator.calls[0]).toMatchObject({ token: emulator.demo.token, method: 'getMyName' });
	});

	it('feeds the items to the node and resolves expressions per item', async () => {
		const { output } = await executeNode({
			nodeType: new MethodCaller(),
			parameters: { method: '={{ $json.method }}' },
			items: [{ method: 'getMyName' }, { method: 'getMyShortDescription' }],
			credentials: credentials(),
		});
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(emulator.calls.map((recorded) => recorded.method)).toEqual(['getMyName', 'getMyShortDescription']);
	});

	it('fails the execution with the node error, or continues with "On Error: Continue"', async () => {
		const failing = await executeNode({
			nodeType: new MethodCaller(),
			parameters: { method: 'getChat', body: JSON.stringify({ chat_id: emulator.demo.foreignChatId }) },
			credentials: credentials(),
		});
		expect(failing.output).toEqual([]);
		expect(failing.error).toMatchObject({ name: 'NodeApiError', message: 'Forbidden: bot is not a member of the chat. Add the bot to the chat (as an administrator where posting needs it, such as a channel), then run the workflow again' });
		expect(failing.run.status).toBe('error');

		const continuing = await executeNode({
			nodeType: new MethodCaller(),
			parameters: { method: 'getChat', body: JSON.stringify({ chat_id: emulator.demo.foreignChatId }) },
			credentials: credentials(),
			continueOnFail: true,
		});
		expect(continuing.error).toBeUndefined();
		expect(continuing.output[0].json).toEqual({ error: 'Forbidden: bot is not a member of the chat. Add the bot to the chat (as an administrator where posting needs it, such as a channel), then run the workflow again' });
		expect(continuing.run.status).toBe('success');
	});

	it('picks the newest version of a versioned node unless told otherwise', async () => {
		const latest = await executeNode({ nodeType: versioned(), parameters: {}, credentials: credentials() });
		expect(latest.output[0].json).toEqual({ version: 2 });
		const older = await executeNode({ nodeType: versioned(), parameters: {}, credentials: credentials(), typeVersion: 1 });
		expect(older.output[0].json).toEqual({ version: 1 });
	});

	it('runs 1, 100 and 2,000 items in a row and reports the timings (not asserted: see npm run bench)', async () => {
		const run = async (count: number, nodeType: INodeType, parameters = {}) => {
			const started = performance.now();
			const { output } = await executeNode({
				nodeType,
				parameters,
				items: Array.from({ length: count }, (_, index) => ({ index })),
				credentials: credentials(),
			});
			expect(output).toHaveLength(count);
			return performance.now() - started;
		};
		for (let warmUp = 0; warmUp < 3; warmUp++) await run(1, new MethodCaller());
		const single: number[] = [];
		for (let index = 0; index < 10; index++) single.push(await run(1, new MethodCaller()));
		single.sort((a, b) => a - b);
		const median = single[5];
		const hundred = await run(100, new MethodCaller());
		const harnessOnly = await run(2000, new Echo(), { tag: '={{ $json.index }}' });
		process.stdout.write(
			`executeNode timings: 1 item (1 HTTP call) median ${median.toFixed(1)} ms; ` +
				`100 items (100 sequential HTTP calls) ${hundred.toFixed(0)} ms; ` +
				`2000 items without HTTP, one expression each ${harnessOnly.toFixed(0)} ms\n`,
		);
		// Timings are reported, not asserted (benchmarks are separate commands); the runs must work.
		expect(Number.isFinite(median) && Number.isFinite(hundred) && Number.isFinite(harnessOnly)).toBe(true);
	});
});

describe('trigger harness', () => {
	async function harness(options: { webhookBaseUrl?: string; staticData?: Record<string, never> } = {}) {
		return createTriggerHarness({
			nodeType: new EchoTrigger(),
			parameters: { secret: 'harness-secret' },
			credentials: credentials(),
			webhookBaseUrl: options.webhookBaseUrl ?? 'http://127.0.0.1:5678/',
			workflowId: 'wf-1',
			webhookId: '2b0c7b1e-7a36-4c39-9d0e-2b4f1a2d0c11',
			staticData: options.staticData,
		});
	}

	function update(text: string) {
		return { update_id: 1, message: { message_id: 1, date: 0, chat: { id: 'c', type: 'private' }, text } };
	}

	it('computes the production and test webhook URLs as n8n does', async () => {
		const trigger = await harness();
		expect(trigger.webhookUrl).toBe('http://127.0.0.1:5678/webhook/2b0c7b1e-7a36-4c39-9d0e-2b4f1a2d0c11/webhook');
		expect(trigger.testWebhookUrl).toBe('http://127.0.0.1:5678/webhook-test/2b0c7b1e-7a36-4c39-9d0e-2b4f1a2d0c11/webhook');
	});

	it('runs checkExists / create / delete in real HookContexts, in both modes', async () => {
		const trigger = await harness();
		expect(await trigger.checkExists()).toBe(false);
		expect(await trigger.create()).toBe(true);
		expect(emulator.webhookOf()).toMatchObject({ url: trigger.webhookUrl, secretToken: 'harness-secret' });
		expect(trigger.staticData).toEqual({
			'node:Echo Trigger': { secret: 'harness-secret', registeredUrl: trigger.webhookUrl },
		});
		expect(await trigger.checkExists()).toBe(true);
		expect(await trigger.checkExists('manual')).toBe(false);

		expect(await trigger.activate('manual')).toBe(true);
		expect(emulator.webhookOf()?.url).toBe(trigger.testWebhookUrl);

		expect(await trigger.delete()).toBe(true);
		expect(emulator.webhookOf()).toBeNull();
		expect(trigger.staticData).toEqual({ 'node:Echo Trigger': {} });
	});

	it('delivers in a fresh WebhookContext, sharing only persisted static data', async () => {
		const staticData = {};
		const first = await harness({ staticData });
		await first.create();
		// Another "process": a second harness on the same persisted static data.
		const second = await harness({ staticData });
		const accepted = await second.receive({ headers: { [SECRET_HEADER]: 'harness-secret' }, body: update('hi') });
		expect(accepted).toMatchObject({
			status: 200,
			workflowData: [[{ json: update('hi') }]],
			responseBody: { message: 'Workflow was started' },
			responseMode: 'onReceived',
		});

		const rejected = await second.receive({ headers: { [SECRET_HEADER]: 'wrong' }, body: update('hi') });
		expect(rejected).toMatchObject({ status: 403, workflowData: undefined, responseBody: { ok: false } });

		const fromRaw = await second.receive({
			headers: { [SECRET_HEADER]: 'harness-secret' },
			rawBody: Buffer.from(JSON.stringify(update('raw'))),
		});
		expect(fromRaw.workflowData?.[0][0].json).toEqual(update('raw'));
	});

	it('answers 500 when webhook() throws, as n8n does', async () => {
		class Throwing extends EchoTrigger {
			async webhook(this: IWebhookFunctions): Promise<never> {
				throw new NodeOperationError(this.getNode(), 'boom');
			}
		}
		const trigger = createTriggerHarness({
			nodeType: new Throwing(),
			parameters: {},
			credentials: credentials(),
			webhookBaseUrl: 'http://127.0.0.1:5678/',
		});
		const receipt = await trigger.receive({ body: {} });
		expect(receipt.status).toBe(500);
		expect(receipt.error?.message).toBe('boom');
	});

	it('receives pushes from the emulator through a real HTTP server', async () => {
		const trigger: TriggerHarness = await harness({ webhookBaseUrl: `http://127.0.0.1:${await freePort()}/` });
		const server = await startWebhookServer(trigger);
		try {
			expect(await trigger.activate()).toBe(true);
			const demo = emulator.demo;
			await emulator.userSends({ chatId: demo.privateChatId, userId: demo.userId, text: 'one' });
			await emulator.userSends({ chatId: demo.privateChatId, userId: demo.userId, text: 'two' });
			await emulator.idle();
			expect(server.executions.map((execution) => execution[0][0].json.message)).toMatchObject([
				{ text: 'one' },
				{ text: 'two' },
			]);
			expect(server.receipts.map((receipt) => receipt.status)).toEqual([200, 200]);
			expect(emulator.webhookOf()?.pendingUpdateCount).toBe(0);
		} finally {
			await server.close();
		}
	});
});
