/**
 * Tiny nodes used only by the harness's own tests and the transport tests. They are not part of the
 * package: `MethodCaller` calls one Bot API method per input item through the real transport, and
 * `EchoTrigger` is a minimal webhook trigger (register / check / delete, secret-checked delivery).
 */
import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import type { RetryPolicy } from '../../nodes/shared/transport/client';
import { apiRequest } from '../../nodes/shared/transport/client';

function parseJsonParameter(value: unknown): IDataObject {
	if (typeof value === 'string') return value.trim() ? (JSON.parse(value) as IDataObject) : {};
	return (value ?? {}) as IDataObject;
}

export class MethodCaller implements INodeType {
	/** Every error `apiRequest` threw, as thrown (n8n keeps only a plain copy in the run data). */
	static readonly thrown: unknown[] = [];

	description: INodeTypeDescription = {
		displayName: 'Method Caller',
		name: 'methodCaller',
		group: ['transform'],
		version: 1,
		description: 'Calls one Bot API method per item (test node)',
		defaults: { name: 'Method Caller' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		usableAsTool: true,
		credentials: [{ name: 'serviceBotApi', required: true }],
		properties: [
			{ displayName: 'Method', name: 'method', type: 'string', default: 'getMyName' },
			{ displayName: 'Body', name: 'body', type: 'json', default: '{}' },
			{ displayName: 'Timeout (Ms)', name: 'timeoutMs', type: 'number', default: 0 },
			{ displayName: 'Retry Policy', name: 'retry', type: 'json', default: '{}' },
			// What the Service Bot node knows from its method definitions: reads may be repeated.
			{ displayName: 'Idempotent', name: 'idempotent', type: 'boolean', default: false },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const output: INodeExecutionData[] = [];
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			try {
				const method = this.getNodeParameter('method', itemIndex) as string;
				const body = parseJsonParameter(this.getNodeParameter('body', itemIndex));
				const timeoutMs = this.getNodeParameter('timeoutMs', itemIndex) as number;
				const retry = parseJsonParameter(this.getNodeParameter('retry', itemIndex)) as Partial<RetryPolicy>;
				const result = await apiRequest(this, method, body, {
					itemIndex,
					idempotent: this.getNodeParameter('idempotent', itemIndex) as boolean,
					timeoutMs: timeoutMs > 0 ? timeoutMs : undefined,
					retry,
				});
				output.push({ json: { result: result as IDataObject }, pairedItem: { item: itemIndex } });
			} catch (error) {
				MethodCaller.thrown.push(error);
				if (this.continueOnFail()) {
					output.push({ json: { error: (error as Error).message }, pairedItem: { item: itemIndex } });
					continue;
				}
				throw error;
			}
		}
		return [output];
	}
}

export const SECRET_HEADER = 'x-service-bot-api-secret-token';

interface EchoStaticData extends IDataObject {
	secret?: string;
	registeredUrl?: string;
}

export class EchoTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Echo Trigger',
		name: 'echoTrigger',
		group: ['trigger'],
		version: 1,
		description: 'Registers a webhook and emits each delivered update (test node)',
		defaults: { name: 'Echo Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'serviceBotApi', required: true }],
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
		properties: [{ displayName: 'Secret', name: 'secret', type: 'string', default: 'harness-secret' }],
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const info = await apiRequest<{ url?: string }>(this, 'getWebhookInfo');
				return info.url === this.getNodeWebhookUrl('default');
			},
			async create(this: IHookFunctions): Promise<boolean> {
				const url = this.getNodeWebhookUrl('default');
				if (!url) throw new NodeOperationError(this.getNode(), 'No webhook URL');
				const secret = this.getNodeParameter('secret') as string;
				await apiRequest(this, 'setWebhook', { url, secret_token: secret });
				const staticData = this.getWorkflowStaticData('node') as EchoStaticData;
				staticData.secret = secret;
				staticData.registeredUrl = url;
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				await apiRequest(this, 'deleteWebhook');
				const staticData = this.getWorkflowStaticData('node') as EchoStaticData;
				delete staticData.secret;
				delete staticData.registeredUrl;
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const { secret } = this.getWorkflowStaticData('node') as EchoStaticData;
		if (!secret || this.getHeaderData()[SECRET_HEADER] !== secret) {
			this.getResponseObject().status(403).json({ ok: false });
			return { noWebhookResponse: true };
		}
		return { workflowData: [this.helpers.returnJsonArray(this.getBodyData())] };
	}
}

/**
 * Stand-ins for n8n's own nodes (n8n-nodes-base is not installed here), doing what those do to items
 * and their pairing: `ReverseText` is a Code node that makes new items from each item (its text
 * reversed as `reply`, nothing else of the item kept), paired with the item it came from;
 * `CommandSwitch` is a Switch with two outputs (commands, then everything else), passing items on
 * unchanged; `FanOut` is a Code node that makes two new items of each item without saying which
 * item they came from (n8n cannot pair them: the counts differ).
 */
export class ReverseText implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Reverse Text',
		name: 'reverseText',
		group: ['transform'],
		version: 1,
		description: 'Each item becomes {reply: its text reversed} (test node)',
		defaults: { name: 'Code' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [
			this.getInputData().map((item, index) => ({
				json: { reply: [...String(item.json.text ?? '')].reverse().join('') },
				pairedItem: { item: index },
			})),
		];
	}
}

export class CommandSwitch implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Command Switch',
		name: 'commandSwitch',
		group: ['transform'],
		version: 1,
		description: 'Items whose text starts with "/" on the first output, the others on the second (test node)',
		defaults: { name: 'Switch' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main, NodeConnectionTypes.Main],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const commands: INodeExecutionData[] = [];
		const others: INodeExecutionData[] = [];
		this.getInputData().forEach((item, index) => {
			(String(item.json.text ?? '').startsWith('/') ? commands : others).push({ json: item.json, pairedItem: { item: index } });
		});
		return [commands, others];
	}
}

export class FanOut implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Fan Out',
		name: 'fanOut',
		group: ['transform'],
		version: 1,
		description: 'Two new unpaired items per item (test node)',
		defaults: { name: 'Split Lines' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [this.getInputData().flatMap((item) => [{ json: { line: 1, text: item.json.text } }, { json: { line: 2, text: item.json.text } }])];
	}
}
