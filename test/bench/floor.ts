/**
 * F, the floor inside n8n: the least any node pays to send one message per item in n8n's engine and
 * HTTP helper. A minimal node that reads the same two parameters per item as A (chat, text) and calls
 * `httpRequestWithAuthentication` once per item, with the same request options as the package's
 * transport and the same number of requests in flight, and nothing else: no checks, no ordering, no
 * output shaping beyond the response body. A/F says what our node adds on top of that floor.
 */
import type { IExecuteFunctions, INodeExecutionData, INodeParameters, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { executeNode } from '../harness';
import type { BenchItem, Contender, Target } from './contenders';

class FloorNode implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Floor',
		name: 'floor',
		group: ['output'],
		version: 1,
		description: 'Sends one message per item and nothing else (benchmark floor)',
		defaults: { name: 'Floor' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'serviceBotApi', required: true }],
		properties: [
			{ displayName: 'Chat', name: 'chatId', type: 'string', default: '' },
			{ displayName: 'Text', name: 'text', type: 'string', default: '' },
			{ displayName: 'Concurrency', name: 'concurrency', type: 'number', default: 8 },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const output: INodeExecutionData[] = new Array(items.length);
		const concurrency = this.getNodeParameter('concurrency', 0) as number;
		let next = 0;
		const worker = async (): Promise<void> => {
			while (next < items.length) {
				const itemIndex = next++;
				const chatId = this.getNodeParameter('chatId', itemIndex) as string;
				const text = this.getNodeParameter('text', itemIndex) as string;
				const response = (await this.helpers.httpRequestWithAuthentication.call(this, 'serviceBotApi', {
					method: 'POST',
					url: '/sendMessage',
					body: { chat_id: chatId, text },
					json: true,
					returnFullResponse: true,
					ignoreHttpStatusErrors: true,
					disableFollowRedirect: true,
				})) as { body: { result: INodeExecutionData['json'] } };
				output[itemIndex] = { json: response.body.result, pairedItem: { item: itemIndex } };
			}
		};
		await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
		return [output];
	}
}

const floorNode = new FloorNode();

function floorParameters(concurrency: number): INodeParameters {
	return { chatId: '={{ $json.chat }}', text: '={{ $json.text }}', concurrency };
}

/** Runs the floor node over the items; the result keeps the output (the memory bench measures it held). */
export async function executeFloor(items: BenchItem[], concurrency: number, target: Target) {
	return await executeNode({
		nodeType: floorNode,
		parameters: floorParameters(concurrency),
		items,
		credentials: { accessToken: target.token, baseUrl: target.baseUrl },
	});
}

export function contenderF(concurrency: number): Contender {
	return async (items, target) => {
		const result = await executeFloor(items, concurrency, target);
		return { sent: result.output.length, error: result.error?.message };
	};
}
