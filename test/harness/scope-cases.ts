/**
 * The scopes of n8n 2.41.1's expression engine, as the harness models them: where a node may evaluate
 * its expressions and where n8n has already released them. Run by scopes.test.ts (the default
 * engine) and scopes-quickjs.test.ts (n8n's own VM engine on QuickJS): both must agree.
 *
 * The probes are nodes that read their parameter `note`, given as an expression, at each moment n8n
 * gives them, and record what they got: the value, or the error.
 */
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	ITriggerFunctions,
	ITriggerResponse,
	IWebhookFunctions,
	IWebhookResponseData,
	Workflow,
} from 'n8n-workflow';
import { NodeConnectionTypes, WAIT_INDEFINITELY } from 'n8n-workflow';
import { Workflow as N8nWorkflow } from 'n8n-workflow';

import type { Emulator } from '../emulator';
import { credentialsFor, useEmulator } from './emulator-suite';
import { asTheEditorEvaluates, expressionEngine, expressionEngineName } from './expression-engine';
import { TestNodeTypes } from './node-types';
import { createTriggerHarness, freePort } from './trigger-harness';
import { runUntilWait } from './waiting';

/** n8n's error for an expression evaluated outside a scope (@n8n/expression-runtime's ExpressionEvaluator). */
export const NO_BRIDGE = 'No bridge acquired for this context. Call acquire() first.';

/** What each probe read, by moment. */
const readings = new Map<string, string>();

function read(moment: string, fn: () => unknown): void {
	try {
		readings.set(moment, String(fn()));
	} catch (error) {
		readings.set(moment, `error: ${(error as Error).message}`);
	}
}

const NOTE = '={{ "note of " + $json.who }}';

const probeDescription = (name: string, extra: Partial<INodeTypeDescription>): INodeTypeDescription => ({
	displayName: name,
	name,
	group: ['transform'],
	version: 1,
	description: 'Reads its parameter at each moment n8n gives it (test node)',
	defaults: { name },
	inputs: [NodeConnectionTypes.Main],
	outputs: [NodeConnectionTypes.Main],
	properties: [{ displayName: 'Note', name: 'note', type: 'string', default: '' }],
	...extra,
});

/** Waits in execute(); its restart webhook resumes it and replies with an object serialized later. */
class WaitingProbe implements INodeType {
	description = probeDescription('waitingProbe', {
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', responseData: '', path: 'probe', restartWebhook: true }],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		read('execute', () => this.getNodeParameter('note', 0));
		await this.putExecutionToWait(WAIT_INDEFINITELY);
		return [this.getInputData()];
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		read('waiting webhook()', () => this.getNodeParameter('note'));
		const reply = { toJSON: () => (read('waiting reply serialized', () => this.getNodeParameter('note')), { resumed: true }) };
		return { workflowData: [[{ json: { resumed: true } }]], webhookResponse: reply };
	}
}

/** A webhook trigger whose reply is serialized after webhook() returned. */
class WebhookProbe implements INodeType {
	description = probeDescription('webhookProbe', {
		group: ['trigger'],
		inputs: [],
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'probe' }],
	});

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const mode = this.getMode();
		read(`${mode} webhook()`, () => this.getNodeParameter('note'));
		return { webhookResponse: { toJSON: () => (read(`${mode} reply serialized`, () => this.getNodeParameter('note')), { ok: true }) } };
	}
}

/** A trigger() node that reads during trigger(), later (a poll loop), and when n8n closes it. */
class TriggerProbe implements INodeType {
	static later: () => void = () => {};

	description = probeDescription('triggerProbe', { group: ['trigger'], inputs: [] });

	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		read('trigger()', () => this.getNodeParameter('note'));
		TriggerProbe.later = () => read('after trigger() returned', () => this.getNodeParameter('note'));
		return { closeFunction: async () => read('closeFunction', () => this.getNodeParameter('note')) };
	}
}

export function describeScopes(): void {
	let emulator: Emulator;
	const credentials = () => credentialsFor(emulator);
	useEmulator({ started: (started) => (emulator = started) });

	beforeAll(async () => {
		await expressionEngine();
	});

	beforeEach(() => readings.clear());

	it(`${expressionEngineName()}: an execution evaluates; a waiting webhook evaluates in webhook(), not when n8n serializes its reply after releasing the scope`, async () => {
		const execution = await runUntilWait({ nodeType: new WaitingProbe(), parameters: { note: NOTE }, items: [{ who: 'Ann' }], credentials: credentials() });
		const url = `http://localhost:5678/webhook-waiting/${execution.executionId}/probe?signature=${execution.resumeToken}`;
		const receipt = await execution.answer({ method: 'POST', url, headers: { 'content-type': 'application/json' }, rawBody: '{}' });
		expect(receipt).toMatchObject({ status: 200, body: { resumed: true } });
		await receipt.resumed;
		expect(Object.fromEntries(readings)).toEqual({
			execute: 'note of Ann',
			'waiting webhook()': 'note of Ann',
			'waiting reply serialized': `error: ${NO_BRIDGE}`,
		});
	});

	it(`${expressionEngineName()}: a production delivery serializes its reply after the scope; a test delivery before`, async () => {
		const harness = createTriggerHarness({ nodeType: new WebhookProbe(), parameters: { note: '={{ "note of " + $execution.mode }}' }, credentials: credentials(), webhookBaseUrl: `http://127.0.0.1:${await freePort()}/` });
		expect(await harness.receive({ body: {} })).toMatchObject({ status: 200, responseBody: { ok: true } });
		expect(await harness.receive({ body: {}, mode: 'manual' })).toMatchObject({ status: 200, responseBody: { ok: true } });
		expect(Object.fromEntries(readings)).toEqual({
			'webhook webhook()': 'note of production',
			'webhook reply serialized': `error: ${NO_BRIDGE}`,
			'manual webhook()': 'note of test',
			'manual reply serialized': 'note of test',
		});
	});

	it(`${expressionEngineName()}: trigger() and its closeFunction evaluate; the trigger after trigger() returned does not`, async () => {
		const harness = createTriggerHarness({ nodeType: new TriggerProbe(), parameters: { note: '={{ "note of " + $workflow.name }}' }, credentials: credentials(), webhookBaseUrl: 'http://127.0.0.1:5678/', workflowName: 'Probe' });
		const running = await harness.startTrigger();
		TriggerProbe.later();
		await running.close();
		expect(Object.fromEntries(readings)).toEqual({
			'trigger()': 'note of Probe',
			'after trigger() returned': `error: ${NO_BRIDGE}`,
			closeFunction: 'note of Probe',
		});
	});

	it(`${expressionEngineName()}: a workflow of the test's own evaluates as the editor does (asTheEditorEvaluates), outside any scope`, () => {
		const nodeTypes = new TestNodeTypes();
		const type = nodeTypes.add(new TriggerProbe());
		const own: Workflow = new N8nWorkflow({ nodes: [{ id: '1', name: 'Probe', type, typeVersion: 1, position: [0, 0], parameters: {} }], connections: {}, active: false, nodeTypes });
		expect(asTheEditorEvaluates(() => own.expression.getSimpleParameterValue(own.getNode('Probe')!, '={{ 40 + 2 }}', 'internal', {}))).toBe(42);
	});
}
