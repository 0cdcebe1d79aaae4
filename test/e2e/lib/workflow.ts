/**
 * The nodes the e2e scenarios put into workflows through n8n's REST API, written as n8n saves them:
 * a production Webhook start, the package's triggers and its "Send Message". Each caller gives ids
 * and positions, so saved workflows stay as they were.
 */
import { DEMO_CREDENTIAL_NAME, exampleWorkflow } from '../../dev/demo';
import type { EmulatorProcess } from '../../real-n8n/emulator-process';
import { PACKAGE_NAME } from '../../real-n8n/install';
import { waitFor } from '../../real-n8n/processes';

export type WorkflowNode = Record<string, unknown>;

interface Placed {
	id: string;
	name: string;
	position: [number, number];
}

/**
 * An example workflow of test/dev/workflows as a user saves a copy of it in another n8n: each
 * credential id of the example replaced by this n8n's (`credentialIds`: the example's id → the id
 * here), without the example's own id and active flag.
 */
export function exampleCopy(example: { file: string }, credentialIds: Record<string, string>): WorkflowNode {
	let text = JSON.stringify(exampleWorkflow(example));
	for (const [from, to] of Object.entries(credentialIds)) text = text.split(from).join(to);
	const copy = JSON.parse(text) as WorkflowNode;
	delete copy.id;
	delete copy.active;
	return copy;
}

/** Resolves once the service's webhook is the one of `workflow`'s Service Bot Trigger (its webhookId in the URL). */
export async function untilWebhookOf(emulator: EmulatorProcess, workflow: WorkflowNode, label: string): Promise<void> {
	const trigger = (workflow.nodes as WorkflowNode[]).find((node) => node.name === 'Service Bot Trigger');
	const webhookId = String(trigger?.webhookId);
	await waitFor(`${label} to register its webhook`, async () => (String((await emulator.webhook())?.url ?? '').includes(webhookId) ? true : undefined), { limitMs: 60_000 });
}

/** The credential reference of a package node. */
export function serviceBotCredentials(credentialId: string): WorkflowNode {
	return { serviceBotApi: { id: credentialId, name: DEMO_CREDENTIAL_NAME } };
}

/** n8n's Webhook node: POST `path`, answered on receipt. */
export function webhookStart(node: Placed & { webhookId: string; path: string }): WorkflowNode {
	return {
		id: node.id,
		name: node.name,
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2.1,
		position: node.position,
		webhookId: node.webhookId,
		parameters: { httpMethod: 'POST', path: node.path, responseMode: 'onReceived', options: {} },
	};
}

/**
 * Service Bot Trigger (webhook delivery) with its Trigger On and options, with the handy fields: turned
 * on in version 1 (default), on by default in version 2 (which adds sessionId and chatInput); version 3
 * adds a Files output to Separate Outputs by Kind.
 */
export function webhookTrigger(
	node: Placed & { credentialId: string; webhookId: string; updates: string[]; options?: Record<string, unknown>; typeVersion?: 1 | 2 | 3 },
): WorkflowNode {
	const typeVersion = node.typeVersion ?? 1;
	return {
		id: node.id,
		name: node.name,
		type: `${PACKAGE_NAME}.serviceBotTrigger`,
		typeVersion,
		position: node.position,
		webhookId: node.webhookId,
		parameters: { updates: node.updates, options: { ...(typeVersion === 1 ? { addHandyFields: true } : {}), ...node.options } },
		credentials: serviceBotCredentials(node.credentialId),
	};
}

/**
 * Service Bot Polling Trigger: on messages, the update as it came (version 1), unless told otherwise
 * (Trigger On, options, version 2 as the editor adds it today).
 */
export function pollingTrigger(
	node: Placed & { credentialId: string; updates?: string[]; options?: Record<string, unknown>; typeVersion?: 1 | 2 | 3 },
): WorkflowNode {
	return {
		id: node.id,
		name: node.name,
		type: `${PACKAGE_NAME}.serviceBotPollingTrigger`,
		typeVersion: node.typeVersion ?? 1,
		position: node.position,
		parameters: { updates: node.updates ?? ['message'], options: { ...node.options } },
		credentials: serviceBotCredentials(node.credentialId),
	};
}

/** Service Bot "Send Message" (version 1) to the chat and with the text given as expressions. */
export function sendMessage(
	node: Placed & { credentialId: string; chatId: string; text: string; parameters?: Record<string, unknown> },
): WorkflowNode {
	return {
		id: node.id,
		name: node.name,
		type: `${PACKAGE_NAME}.serviceBot`,
		typeVersion: 1,
		position: node.position,
		parameters: {
			resource: 'message',
			operation: 'sendMessage',
			chatId: { __rl: true, mode: 'id', value: node.chatId },
			text: node.text,
			...node.parameters,
			additionalFields: {},
			options: {},
		},
		credentials: serviceBotCredentials(node.credentialId),
	};
}

/** Connections of nodes one after another, by name. */
export function inSequence(...names: string[]): Record<string, unknown> {
	return Object.fromEntries(names.slice(0, -1).map((name, index) => [name, { main: [[{ node: names[index + 1], type: 'main', index: 0 }]] }]));
}
