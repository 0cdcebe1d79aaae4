/**
 * `executeNode`: runs the node under test for real, through n8n-core's `WorkflowExecute`, in a
 * two-node workflow `Start -> <node under test>`, as a manual execution.
 *
 * The Start node is a webhook-style trigger: like n8n's Webhook node in an execution started by a
 * webhook call, it outputs exactly the items it is given (WorkflowExecute passes the input of a node
 * that only has `webhook()` straight through). So the node under test sees `items` as its input,
 * with real `ExecuteContext`, parameter resolution, credentials, HTTP helpers and error handling.
 *
 * Workflows as users build them: `start` puts another node in Start's place (a Service Bot Trigger
 * that emits the items given, as n8n runs a webhook trigger's execution), `before` nodes run between
 * it and the node under test, `after` nodes run after it (each fed by the output its predecessor names).
 */
import { WorkflowExecute } from 'n8n-core';
import type {
	ICredentialsHelper,
	ExecutionError,
	IConnections,
	IBinaryKeyData,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	INodeTypeDescription,
	IRun,
	IVersionedNodeType,
	IWebhookResponseData,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	OnError,
} from 'n8n-workflow';
import { NodeConnectionTypes, Workflow } from 'n8n-workflow';

import { captureErrorReports } from './error-reports';
import { expressionEngine, runByTheHarness } from './expression-engine';
import { createAdditionalData, nextExecutionId } from './additional-data';
import type { TestCredentials } from './credentials-helper';
import { latestVersion, TestNodeTypes } from './node-types';

export const START_NODE_NAME = 'Start';

export const TEST_CREDENTIAL_REF = { id: 'test-credential', name: 'Service Bot account' };

/** Stands in for a webhook trigger: its output is whatever the execution is started with. */
class HarnessStart implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Harness Start',
		name: 'harnessStart',
		group: ['trigger'],
		version: 1,
		description: 'Emits the test items',
		defaults: { name: START_NODE_NAME },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async webhook(): Promise<IWebhookResponseData> {
		return {};
	}
}

const harnessStart = new HarnessStart();

export interface ExecuteNodeOptions {
	nodeType: INodeType | IVersionedNodeType;
	parameters: INodeParameters;
	/** Input items' json; default `[{}]`. */
	items?: IDataObject[];
	/** The workflow's id as n8n knows it (default `harness-workflow`): a published workflow's, to run as part of it. */
	workflowId?: string;
	/** Binary data of the input items, by position (storeFiles() in binary-data.ts). */
	binaries?: ReadonlyArray<IBinaryKeyData | undefined>;
	credentials: TestCredentials;
	/**
	 * The node's "On Error" setting, as n8n stores it: 'stopWorkflow' (n8n's default), 'continueRegularOutput'
	 * ("Continue"), or 'continueErrorOutput' ("Continue (using error output)": n8n-core then moves failed
	 * items to a second, error output).
	 */
	onError?: OnError;
	/** Shorthand for `onError: 'continueRegularOutput'`. */
	continueOnFail?: boolean;
	typeVersion?: number;
	/** Name of the node under test; default its `defaults.name`. */
	nodeName?: string;
	/** The node's `type` string; default `n8n-nodes-service-bot.<name>`. */
	typeName?: string;
	/** Another credential type and the helper that serves it (the benchmark runs n8n's Telegram node). */
	credential?: { typeName: string; helper: ICredentialsHelper };
	/** n8n's webhook base (N8N_WEBHOOK_URL): resume URLs of waiting executions start with it. */
	webhookBaseUrl?: string;
	/** The node's output goes back to its input: a workflow that runs the node again (asks again). */
	loop?: boolean;
	/** Another node in Start's place (e.g. the Service Bot Trigger, emitting `items` as a delivery gave them). */
	start?: ChainNode;
	/** Nodes between the start and the node under test, in order. */
	before?: readonly ChainNode[];
	/** Nodes after the node under test, in order. */
	after?: readonly ChainNode[];
	/**
	 * The execution's mode; default 'manual'. 'trigger' is how n8n runs an execution a trigger() node's
	 * emit started: the trigger node (`start`) then outputs the emitted items instead of running trigger().
	 */
	mode?: 'manual' | 'trigger';
}

/** A node of the workflow around the node under test. */
export interface ChainNode {
	name: string;
	nodeType: INodeType | IVersionedNodeType;
	parameters?: INodeParameters;
	typeVersion?: number;
	/** Which of this node's outputs feeds the next node; default 0. */
	output?: number;
}

export interface ExecuteNodeResult {
	/** The node's first output (with 'continueErrorOutput': the success output). */
	output: INodeExecutionData[];
	/** With 'continueErrorOutput': the error output, as n8n-core filled it; otherwise empty. */
	errorOutput: INodeExecutionData[];
	/** The node's error when it failed (also set on the execution when not continuing on fail). */
	error?: ExecutionError;
	run: IRun;
}

/** A workflow `Start -> node under test`, ready to run as a manual execution. */
export interface PreparedExecution {
	workflow: Workflow;
	/**
	 * The same workflow loaded again, as n8n loads it from the database for each request to a waiting
	 * execution (and for each resumed run): another `Workflow`, so another caller of the expression engine.
	 */
	loadWorkflow(): Workflow;
	additionalData: IWorkflowExecuteAdditionalData;
	/** The node under test. */
	node: INode;
	items: INodeExecutionData[];
	/** The node the execution starts at. */
	startName: string;
	mode: 'manual' | 'trigger';
}

export function prepareExecution(options: ExecuteNodeOptions): PreparedExecution {
	captureErrorReports();
	const nodeTypes = new TestNodeTypes();
	const startType = nodeTypes.add(harnessStart);
	const testedType = nodeTypes.add(options.nodeType, options.typeName);
	const typeVersion = options.typeVersion ?? latestVersion(options.nodeType);
	const description = nodeTypes.getByNameAndVersion(testedType, typeVersion).description;
	const nodeName = options.nodeName ?? description.defaults.name ?? description.displayName;

	const startName = options.start?.name ?? START_NODE_NAME;
	const chainNode = (chain: ChainNode, index: number, x: number): INode => ({
		id: `chain-${index}`,
		name: chain.name,
		type: nodeTypes.add(chain.nodeType),
		typeVersion: chain.typeVersion ?? latestVersion(chain.nodeType),
		position: [x, 0],
		parameters: chain.parameters ?? {},
	});
	const startNode: INode = options.start
		? { ...chainNode(options.start, 0, 0), id: 'start' }
		: { id: 'start', name: START_NODE_NAME, type: startType, typeVersion: 1, position: [0, 0], parameters: {} };
	const before = (options.before ?? []).map((chain, index) => chainNode(chain, index + 1, 220 * (index + 1)));
	const testedNode: INode = {
		id: 'node-under-test',
		name: nodeName,
		type: testedType,
		typeVersion,
		position: [220 * (before.length + 1), 0],
		parameters: options.parameters,
		credentials: { [options.credential?.typeName ?? 'serviceBotApi']: TEST_CREDENTIAL_REF },
		onError: options.onError ?? (options.continueOnFail ? 'continueRegularOutput' : 'stopWorkflow'),
	};
	const after = (options.after ?? []).map((chain, index) => ({
		...chainNode(chain, before.length + index + 2, 220 * (before.length + index + 2)),
		credentials: { serviceBotApi: TEST_CREDENTIAL_REF },
	}));
	// start -> before… -> node under test -> after…, each from the output its chain entry names.
	const order: Array<{ node: INode; output: number }> = [
		{ node: startNode, output: options.start?.output ?? 0 },
		...before.map((node, index) => ({ node, output: options.before?.[index].output ?? 0 })),
		{ node: testedNode, output: 0 },
		...after.map((node, index) => ({ node, output: options.after?.[index].output ?? 0 })),
	];
	const connections: IConnections = {};
	for (let index = 0; index + 1 < order.length; index++) {
		const { node, output } = order[index];
		const main: IConnections[string]['main'] = Array.from({ length: output + 1 }, () => []);
		main[output] = [{ node: order[index + 1].node.name, type: NodeConnectionTypes.Main, index: 0 }];
		connections[node.name] = { main };
	}
	if (options.loop) connections[nodeName] = { main: [[{ node: nodeName, type: NodeConnectionTypes.Main, index: 0 }]] };
	const workflowData: IWorkflowBase = {
		id: options.workflowId ?? 'harness-workflow',
		name: 'Harness workflow',
		active: false,
		isArchived: false,
		activeVersionId: null,
		createdAt: new Date(0),
		updatedAt: new Date(0),
		nodes: [startNode, ...before, testedNode, ...after],
		connections,
		settings: { executionOrder: 'v1' },
	};
	const loadWorkflow = (): Workflow => {
		const loaded = new Workflow({
			id: workflowData.id,
			name: workflowData.name,
			nodes: workflowData.nodes.map((node) => structuredClone(node)),
			connections,
			active: false,
			nodeTypes,
			settings: workflowData.settings,
		});
		return runByTheHarness(loaded);
	};
	const workflow = loadWorkflow();

	const executionId = nextExecutionId();
	const additionalData = createAdditionalData({
		credentials: options.credentials,
		executionId,
		webhookBaseUrl: options.webhookBaseUrl,
		hooks: { mode: options.mode ?? 'manual', workflowData },
	});
	if (options.credential) additionalData.credentialsHelper = options.credential.helper;
	const items = (options.items ?? [{}]).map((json, index): INodeExecutionData => {
		const binary = options.binaries?.[index];
		return binary ? { json, binary } : { json };
	});
	return { workflow, loadWorkflow, additionalData, node: testedNode, items, startName, mode: options.mode ?? 'manual' };
}

/** What the node under test did in a run: its outputs and its error. */
export function resultOf(run: IRun, node: INode, which: 'first' | 'last' = 'first'): ExecuteNodeResult {
	const tasks = run.data.resultData.runData[node.name];
	const task = which === 'first' ? tasks?.[0] : tasks?.[tasks.length - 1];
	return {
		output: task?.data?.main?.[0] ?? [],
		errorOutput: node.onError === 'continueErrorOutput' ? (task?.data?.main?.[1] ?? []) : [],
		error: task?.error ?? run.data.resultData.error,
		run,
	};
}

/** Runs a prepared execution from the Start node with its items. */
export async function startExecution(prepared: PreparedExecution): Promise<IRun> {
	const { workflow, additionalData, items } = prepared;
	// WorkflowExecute acquires and releases the workflow's scope itself (n8n-core's workflow-execute.js).
	await expressionEngine();
	return await new WorkflowExecute(additionalData, prepared.mode).run({
		workflow,
		startNode: workflow.getNode(prepared.startName) ?? undefined,
		triggerToStartFrom: {
			name: prepared.startName,
			data: { startTime: Date.now(), executionTime: 0, executionIndex: 0, source: [], data: { main: [items] } },
		},
	});
}

export async function executeNode(options: ExecuteNodeOptions): Promise<ExecuteNodeResult> {
	const prepared = prepareExecution(options);
	return resultOf(await startExecution(prepared), prepared.node);
}
