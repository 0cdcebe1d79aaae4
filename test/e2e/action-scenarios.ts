/**
 * Real-n8n scenarios of the action node beyond the examples: what n8n does around the node.
 */
import assert from 'node:assert/strict';

import { DEMO_CREDENTIAL_ID, DEMO_CREDENTIAL_NAME } from '../dev/demo';
import type { Scenario } from './lib/runner';
import { PACKAGE_NAME } from './lib/install';
import type { Json } from './lib/n8n';


const ERROR_OUTPUT_WORKFLOW = 'SvcBotErrorOut01';

/** Manual trigger → Code (three items) → Service Bot "Send Message" with "Continue (using error output)" → Sent | Failed. */
function errorOutputWorkflow(items: Array<{ chat: string; text: string }>): Json {
	const node = (name: string, type: string, position: [number, number], extra: Json = {}): Json => ({
		id: `e0e0e0e0-0000-4000-8000-${String(position[0]).padStart(6, '0')}${String(position[1] + 500).padStart(6, '0')}`,
		name,
		type,
		typeVersion: 1,
		position,
		parameters: {},
		...extra,
	});
	return {
		id: ERROR_OUTPUT_WORKFLOW,
		name: 'Service Bot: error output',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', [0, 0]),
			node('Items', 'n8n-nodes-base.code', [220, 0], {
				typeVersion: 2,
				parameters: { jsCode: `return ${JSON.stringify(items.map((json) => ({ json })))};` },
			}),
			node('Send', `${PACKAGE_NAME}.serviceBot`, [440, 0], {
				typeVersion: 2,
				onError: 'continueErrorOutput',
				parameters: {
					resource: 'message',
					operation: 'sendMessage',
					chatId: { __rl: true, mode: 'id', value: '={{ $json.chat }}' },
					text: '={{ $json.text }}',
					options: { concurrency: 1 },
				},
				credentials: { serviceBotApi: { id: DEMO_CREDENTIAL_ID, name: DEMO_CREDENTIAL_NAME } },
			}),
			node('Sent', 'n8n-nodes-base.noOp', [660, -100]),
			node('Failed', 'n8n-nodes-base.noOp', [660, 100]),
		],
		connections: {
			Start: { main: [[{ node: 'Items', type: 'main', index: 0 }]] },
			Items: { main: [[{ node: 'Send', type: 'main', index: 0 }]] },
			Send: { main: [[{ node: 'Sent', type: 'main', index: 0 }], [{ node: 'Failed', type: 'main', index: 0 }]] },
		},
		pinData: {},
	};
}

const errorOutput: Scenario = {
	name: 'On Error "Continue (using error output)": sent items on the success output, input and service errors on the error output',
	async run(ctx) {
		const emulator = await ctx.emulator();
		const n8n = await ctx.n8n();
		await ctx.importDemo(n8n, emulator);
		const items = [
			{ chat: emulator.demo.privateChatId, text: 'good' },
			{ chat: String(emulator.demo.foreignChatId), text: 'refused by the service' },
			{ chat: 'not a chat', text: 'bad input' },
		];
		await n8n.importWorkflows([errorOutputWorkflow(items)]);
		const result = await n8n.execute(ERROR_OUTPUT_WORKFLOW);
		assert.equal(result.code, 0, `n8n execute failed:\n${result.output.slice(-3000)}`);
		const runData = result.data?.data?.resultData?.runData;
		const outputs = runData?.Send?.[0]?.data?.main as Json[][] | undefined;
		assert.ok(outputs, `no run data for the Service Bot node:\n${result.output.slice(-3000)}`);
		const [success, failed] = outputs;
		assert.deepEqual(
			success.map((item: Json) => item.json.text),
			['good'],
			'only the sent item is on the success output',
		);
		assert.deepEqual(
			failed.map((item: Json) => item.json.error),
			[
				'Forbidden: bot is not a member of the chat. Add the bot to the chat (as an administrator where posting needs it, such as a channel), then run the workflow again',
				"Chat: 'not a chat' is not a chat UUID or @username [item 2]",
			],
			'the service error and the input error are on the error output',
		);
		assert.deepEqual(
			failed.map((item: Json) => item.pairedItem?.item),
			[1, 2],
			'each error item is paired with its input',
		);
		for (const item of failed) assert.equal(typeof item.json.details?.description, 'string', 'error items carry the details');
		assert.deepEqual(
			runData.Failed?.[0]?.data?.main?.[0]?.map((item: Json) => item.json.text),
			['refused by the service', 'bad input'],
			'the error branch received both failed items with their input',
		);
		assert.deepEqual(
			(await emulator.calls('sendMessage')).map((call) => call.body.text),
			['good', 'refused by the service'],
			'the bad input was never sent',
		);
		ctx.log('success output: 1 sent item; error output: the refused and the bad item, paired, with details');
	},
};

export const ACTION_SCENARIOS: Scenario[] = [errorOutput];
