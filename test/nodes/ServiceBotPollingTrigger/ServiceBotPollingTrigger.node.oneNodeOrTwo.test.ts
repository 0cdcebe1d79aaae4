/**
 * Why polling is a node of its own, not "Delivery: Webhook | Polling" on one node: n8n cannot keep
 * such a node's webhook behaviour intact.
 *
 * A test webhook delivery starts a manual execution whose first node is the trigger, holding the
 * webhook's items (packages/cli/src/webhooks/webhook-helpers.ts, prepareExecutionData). n8n-core's
 * WorkflowExecute.runNode passes those items through only for a node type without trigger(): for a
 * type with trigger() it calls trigger() in manual mode and waits for its emit instead. So a node with
 * webhooks and trigger() would lose every test event in webhook mode. Shown here with n8n-core's own
 * WorkflowExecute on two probe node types (the same check in real n8n 2.41.1 is described in README).
 */
import { WorkflowExecute } from 'n8n-core';
import type {
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	ITriggerFunctions,
	ITriggerResponse,
	IWebhookResponseData,
	IWorkflowBase,
} from 'n8n-workflow';
import { NodeConnectionTypes, Workflow, createRunExecutionData } from 'n8n-workflow';

import { TestNodeTypes, createAdditionalData } from '../../harness';

function probeDescription(name: string): INodeTypeDescription {
	return {
		displayName: name,
		name,
		group: ['trigger'],
		version: 1,
		description: 'Probe',
		defaults: { name },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
		properties: [],
	};
}

class WebhookOnly implements INodeType {
	description = probeDescription('webhookOnly');
	async webhook(): Promise<IWebhookResponseData> {
		return {};
	}
}

class WebhookAndTrigger implements INodeType {
	static triggerCalls = 0;
	description = probeDescription('webhookAndTrigger');
	async webhook(): Promise<IWebhookResponseData> {
		return {};
	}
	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		WebhookAndTrigger.triggerCalls++;
		// A poller in test mode emits what it fetched; here, something that is not the webhook's item.
		return { manualTriggerFunction: async () => this.emit([[{ json: { from: 'trigger()' } }]]) };
	}
}

/** What n8n runs after a test webhook delivered `items` to a workflow whose only node is `nodeType`. */
async function testWebhookExecution(nodeType: INodeType, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const nodeTypes = new TestNodeTypes();
	const type = nodeTypes.add(nodeType);
	const node = { id: 'probe', name: 'Probe', type, typeVersion: 1, position: [0, 0] as [number, number], parameters: {} };
	const workflowData: IWorkflowBase = {
		id: 'probe-workflow',
		name: 'Probe',
		active: false,
		isArchived: false,
		activeVersionId: null,
		createdAt: new Date(0),
		updatedAt: new Date(0),
		nodes: [node],
		connections: {},
		settings: { executionOrder: 'v1' },
	};
	const workflow = new Workflow({ id: workflowData.id, nodes: [node], connections: {}, active: false, nodeTypes, settings: workflowData.settings });
	const additionalData = createAdditionalData({ credentials: { accessToken: '', baseUrl: '' }, hooks: { mode: 'manual', workflowData } });
	// As prepareExecutionData builds it: the trigger first on the stack, with the webhook's items.
	const runExecutionData = createRunExecutionData({
		executionData: { nodeExecutionStack: [{ node, data: { main: [items] }, source: null }] },
	});
	const run = await new WorkflowExecute(additionalData, 'manual', runExecutionData).processRunExecutionData(workflow);
	return run.data.resultData.runData.Probe?.[0]?.data?.main?.[0] ?? [];
}

describe('why polling is a second trigger node', () => {
	const delivered: INodeExecutionData[] = [{ json: { update_id: 1, message: { text: 'from the webhook' } } }];

	test('a webhook-only trigger: the test event\'s items come out of the trigger', async () => {
		const output = await testWebhookExecution(new WebhookOnly(), delivered);
		expect(output.map((item) => item.json)).toEqual(delivered.map((item) => item.json));
	});

	test('a trigger with webhooks and trigger(): n8n calls trigger() and the test event\'s items are lost', async () => {
		const output = await testWebhookExecution(new WebhookAndTrigger(), delivered);
		expect(WebhookAndTrigger.triggerCalls).toBe(1);
		expect(output.map((item) => item.json)).toEqual([{ from: 'trigger()' }]);
	});
});
