/**
 * Runs ANY node type with ANY credential type through n8n-core's real `WorkflowExecute`, exactly the
 * way the harness's `executeNode` runs ours (`Start -> node`, manual execution, the Start node
 * emitting the items), so contender B (n8n's Telegram node, credential `telegramApi`) goes through the
 * same engine as contender A. Only what the harness hard-wires to `serviceBotApi` is generalised:
 * the node type name, the credential type, and a credentials helper serving that type.
 */
import { WorkflowExecute } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IConnections,
	IDataObject,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	IRequestOptionsSimplified,
	IRun,
	IVersionedNodeType,
	IWebhookResponseData,
	IWorkflowBase,
	ExecutionError,
} from 'n8n-workflow';
import { NodeConnectionTypes, Workflow } from 'n8n-workflow';

import { captureErrorReports, createAdditionalData, START_NODE_NAME, TestCredentialsHelper, TestNodeTypes } from '../harness';
import { latestVersion } from '../harness/node-types';

/** Serves one credential type with fixed data; applies the type's `authenticate` function if it has one. */
class AnyCredentialsHelper extends TestCredentialsHelper {
	constructor(
		private readonly type: ICredentialType,
		private readonly data: ICredentialDataDecryptedObject,
	) {
		super({ accessToken: String(data.accessToken ?? ''), baseUrl: String(data.baseUrl ?? '') });
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
	): Promise<IHttpRequestOptions> {
		this.check(typeName);
		const { authenticate } = this.type;
		if (authenticate === undefined) return requestOptions as IHttpRequestOptions;
		if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions as IHttpRequestOptions);
		throw new Error(`bench: generic authentication of "${typeName}" is not supported`);
	}

	async getDecrypted(
		...args: Parameters<TestCredentialsHelper['getDecrypted']>
	): Promise<ICredentialDataDecryptedObject> {
		this.check(args[2]);
		return { ...this.data };
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		this.check(type);
		return this.type.properties;
	}

	private check(type: string): void {
		if (type !== this.type.name) throw new Error(`bench: unknown credential type "${type}"`);
	}
}

/** The harness's Start node: a webhook-style trigger whose output is the execution's start data. */
class BenchStart implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Bench Start',
		name: 'benchStart',
		group: ['trigger'],
		version: 1,
		description: 'Emits the bench items',
		defaults: { name: START_NODE_NAME },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async webhook(): Promise<IWebhookResponseData> {
		return {};
	}
}

export interface ExecuteAnyOptions {
	nodeType: INodeType | IVersionedNodeType;
	/** The node's `type` string, e.g. `n8n-nodes-base.telegram`. */
	typeName: string;
	typeVersion?: number;
	parameters: INodeParameters;
	items: IDataObject[];
	credentialType: ICredentialType;
	credentialData: ICredentialDataDecryptedObject;
}

export interface ExecuteAnyResult {
	output: INodeExecutionData[];
	error?: ExecutionError;
	run: IRun;
}

let executions = 0;

export async function executeAny(options: ExecuteAnyOptions): Promise<ExecuteAnyResult> {
	captureErrorReports();
	const nodeTypes = new TestNodeTypes();
	const startType = nodeTypes.add(new BenchStart());
	const testedType = nodeTypes.add(options.nodeType, options.typeName);
	const typeVersion = options.typeVersion ?? latestVersion(options.nodeType);
	const description = nodeTypes.getByNameAndVersion(testedType, typeVersion).description;
	const nodeName = description.defaults.name ?? description.displayName;

	const nodes: INode[] = [
		{ id: 'start', name: START_NODE_NAME, type: startType, typeVersion: 1, position: [0, 0], parameters: {} },
		{
			id: 'node-under-test',
			name: nodeName,
			type: testedType,
			typeVersion,
			position: [220, 0],
			parameters: options.parameters,
			credentials: { [options.credentialType.name]: { id: 'bench-credential', name: 'Bench account' } },
		},
	];
	const connections: IConnections = {
		[START_NODE_NAME]: { main: [[{ node: nodeName, type: NodeConnectionTypes.Main, index: 0 }]] },
	};
	const workflowData: IWorkflowBase = {
		id: 'bench-workflow',
		name: 'Bench workflow',
		active: false,
		isArchived: false,
		activeVersionId: null,
		createdAt: new Date(0),
		updatedAt: new Date(0),
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
	};
	const workflow = new Workflow({
		id: workflowData.id,
		name: workflowData.name,
		nodes,
		connections,
		active: false,
		nodeTypes,
		settings: workflowData.settings,
	});
	const executionId = `bench-${++executions}`;
	const additionalData = createAdditionalData({
		credentials: { accessToken: '', baseUrl: '' },
		executionId,
		hooks: { mode: 'manual', workflowData },
	});
	additionalData.credentialsHelper = new AnyCredentialsHelper(options.credentialType, options.credentialData);
	const items = options.items.map((json): INodeExecutionData => ({ json }));

	const run = await new WorkflowExecute(additionalData, 'manual').run({
		workflow,
		startNode: workflow.getNode(START_NODE_NAME) ?? undefined,
		triggerToStartFrom: {
			name: START_NODE_NAME,
			data: { startTime: Date.now(), executionTime: 0, executionIndex: 0, source: [], data: { main: [items] } },
		},
	});
	const task = run.data.resultData.runData[nodeName]?.[0];
	return { output: task?.data?.main?.[0] ?? [], error: task?.error ?? run.data.resultData.error, run };
}
