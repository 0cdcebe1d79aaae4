/**
 * What the queue-mode scenarios and the benchmark put into n8n and push through the service: the
 * credential, the echo bot (test/dev/workflows/demo-bot.json), a bulk sender, chats with users,
 * and the traffic of those users.
 */
import { DEMO_CREDENTIAL_ID, DEMO_TRIGGER, demoCredential, demoWorkflow } from '../../dev/demo';
import type { ScenarioContext } from '../lib/context';
import type { EmulatorProcess, StoredMessage, WebhookView } from '../../real-n8n/emulator-process';
import type { N8n } from '../../real-n8n/n8n';
import { inSequence, pollingTrigger, sendMessage, webhookStart, webhookTrigger } from '../lib/workflow';
import { waitFor } from '../../real-n8n/processes';
import { QueueCluster } from './cluster';
import type { ClusterOptions } from './cluster';

export const BULK_PATH = 'bulk-send';

/**
 * The credential pointing at the emulator (at `baseUrl`, default its own address), saved through the
 * main's REST API; returns its id.
 */
export async function createCredential(main: N8n, emulator: EmulatorProcess, baseUrl = emulator.baseUrl): Promise<string> {
	const credential = demoCredential({ baseUrl, token: emulator.demo.token, privateChatId: emulator.demo.privateChatId });
	delete credential.id;
	const saved = await main.request('POST', '/rest/credentials', credential);
	return String(saved.id);
}

/** Saves a workflow through the main's REST API (as the editor does); returns its id. */
export async function createWorkflow(main: N8n, workflow: Record<string, unknown>): Promise<string> {
	const body = { ...workflow };
	delete body.id;
	delete body.active;
	const created = await main.createWorkflow(body);
	return String(created.id);
}

/** The echo bot (test/dev/workflows/demo-bot.json) with the saved credential. */
export function echoBot(emulator: EmulatorProcess, credentialId: string): Record<string, unknown> {
	const demo = { baseUrl: emulator.baseUrl, token: emulator.demo.token, privateChatId: emulator.demo.privateChatId };
	return JSON.parse(JSON.stringify(demoWorkflow('demoBot', demo)).split(DEMO_CREDENTIAL_ID).join(credentialId)) as Record<string, unknown>;
}

/**
 * Webhook (POST /webhook/bulk-send, answered on receipt) → Split Out `body.messages` → Service Bot
 * "Send Message" to `chat_id` with `text`: one execution sends every message of the request.
 */
export function bulkSender(credentialId: string): Record<string, unknown> {
	return {
		name: 'Service Bot: bulk send',
		settings: { executionOrder: 'v1' },
		nodes: [
			webhookStart({
				id: '5a0d1c2e-0000-4000-8000-000000000001',
				name: 'Bulk Request',
				position: [0, 0],
				webhookId: '5a0d1c2e-0000-4000-8000-0000000000ff',
				path: BULK_PATH,
			}),
			{
				id: '5a0d1c2e-0000-4000-8000-000000000002',
				name: 'One Item per Message',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [220, 0],
				parameters: { fieldToSplitOut: 'body.messages', include: 'noOtherFields', options: {} },
			},
			sendMessage({
				id: '5a0d1c2e-0000-4000-8000-000000000003',
				name: 'Send Message',
				position: [440, 0],
				credentialId,
				chatId: '={{ $json.chat_id }}',
				text: '={{ $json.text }}',
				parameters: { replyMarkup: 'none' },
			}),
		],
		connections: inSequence('Bulk Request', 'One Item per Message', 'Send Message'),
	};
}

/**
 * Service Bot Polling Trigger (messages; the update as it came, no handy fields) → Service Bot
 * "Send Message" answering `You said: <text>` in the message's chat.
 */
export function pollingEcho(credentialId: string): Record<string, unknown> {
	return {
		name: 'Service Bot: echo (polling)',
		settings: { executionOrder: 'v1' },
		nodes: [
			pollingTrigger({ id: '5a0d1c2e-0000-4000-8000-000000000011', name: 'Bot Trigger', position: [0, 0], credentialId }),
			sendMessage({
				id: '5a0d1c2e-0000-4000-8000-000000000012',
				name: 'Echo',
				position: [300, 0],
				credentialId,
				chatId: '={{ $json.message.chat.id }}',
				text: '=You said: {{ $json.message.text }}',
			}),
		],
		connections: inSequence('Bot Trigger', 'Echo'),
	};
}

/**
 * Service Bot Trigger (its Trigger On and options, handy fields) → Service Bot "Send Message" answering
 * `<label>: <text or button data>` in the update's chat: one of several workflows on one bot.
 */
export function labelledListener(
	credentialId: string,
	label: string,
	trigger: { updates: string[]; options?: Record<string, unknown> },
	index: number,
): Record<string, unknown> {
	const id = (n: number): string => `5a0d1c2e-0000-4000-8000-0000000002${index}${n}`;
	return {
		name: `Service Bot: ${label}`,
		settings: { executionOrder: 'v1' },
		nodes: [
			webhookTrigger({ id: id(1), name: 'Bot Trigger', position: [0, 0], credentialId, webhookId: `5a0d1c2e-0000-4000-8000-0000000003${index}0`, ...trigger }),
			sendMessage({
				id: id(2),
				name: 'Answer',
				position: [300, 0],
				credentialId,
				chatId: '={{ $json.chat_id }}',
				text: `=${label}: {{ $json.text ?? $json.callback_data }}`,
				parameters: { replyMarkup: 'none' },
			}),
		],
		connections: inSequence('Bot Trigger', 'Answer'),
	};
}

export const APPROVAL_PATH = 'ask-for-approval';

/**
 * The approval example (test/dev/workflows/approval.json: Send and Wait for Response, approval, in the
 * chat → "approved: <decision> (<name>)") started by a production Webhook node (POST
 * /webhook/ask-for-approval, answered on receipt) instead of the editor, so it runs on a worker.
 */
export function approvalOnWebhook(emulator: EmulatorProcess, credentialId: string): Record<string, unknown> {
	const demo = { baseUrl: emulator.baseUrl, token: emulator.demo.token, privateChatId: emulator.demo.privateChatId };
	const example = JSON.parse(JSON.stringify(demoWorkflow('approval', demo)).split(DEMO_CREDENTIAL_ID).join(credentialId)) as {
		nodes: Array<Record<string, unknown>>;
		connections: Record<string, unknown>;
	};
	const [manual, ...rest] = example.nodes;
	const start = 'Approval Request';
	const connections: Record<string, unknown> = { ...example.connections, [start]: example.connections[String(manual.name)] };
	delete connections[String(manual.name)];
	return {
		...example,
		name: 'Service Bot: ask for approval (webhook)',
		nodes: [
			webhookStart({
				id: String(manual.id),
				name: start,
				position: manual.position as [number, number],
				webhookId: '5a0d1c2e-0000-4000-8000-0000000000fe',
				path: APPROVAL_PATH,
			}),
			...rest,
		],
		connections,
	};
}

export interface Chat {
	chatId: string;
	userId: string;
}

/** `count` users, each in a private chat with the demo bot. */
export async function createChats(emulator: EmulatorProcess, count: number): Promise<Chat[]> {
	const chats: Chat[] = [];
	for (let i = 0; i < count; i += 1) {
		const { userId } = await emulator.addUser(`User ${i + 1}`);
		const { chatId } = await emulator.addPrivateChat(userId);
		chats.push({ chatId, userId });
	}
	return chats;
}

export interface SentText {
	chat: Chat;
	text: string;
	updateId: number;
}

/**
 * Each chat's user sends `perChat` messages (`<prefix><i> from chat <c>`), the chats taking turns
 * (message i of every chat before message i + 1 of any), as fast as the service's control API takes them.
 */
export async function sendMessages(emulator: EmulatorProcess, chats: Chat[], perChat: number, prefix = 'm'): Promise<SentText[]> {
	const sent: SentText[] = [];
	for (let i = 0; i < perChat; i += 1) {
		for (const [c, chat] of chats.entries()) {
			const text = `${prefix}${i} from chat ${c}`;
			const update = await emulator.userSends(text, chat.chatId, chat.userId);
			sent.push({ chat, text, updateId: Number(update.update_id) });
		}
	}
	return sent;
}

export function botMessages(history: StoredMessage[]): StoredMessage[] {
	return history.filter((message) => message.from?.is_bot === true);
}

/** The bot's messages of every chat. */
export async function botHistories(emulator: EmulatorProcess, chats: Chat[]): Promise<Map<string, StoredMessage[]>> {
	const histories = new Map<string, StoredMessage[]>();
	for (const chat of chats) histories.set(chat.chatId, botMessages(await emulator.history(chat.chatId)));
	return histories;
}

/** Waits until the emulator recorded `count` successful calls of `method`; returns when it did (ms since epoch). */
export async function waitForCalls(emulator: EmulatorProcess, method: string, count: number, limitMs = 600_000): Promise<number> {
	await waitFor(
		`${count} ${method} calls`,
		async () => (await emulator.calls(method)).filter((call) => call.status === 200).length >= count,
		{ limitMs, intervalMs: 250 },
	);
	return Date.now();
}

/**
 * POSTs `body` as JSON to the production webhook `path` through the load balancer; resolves with the
 * answer. Until the webhook processes have learnt of a newly published webhook they answer 404, so
 * that is waited out.
 */
export async function callProductionWebhook(cluster: QueueCluster, path: string, body: unknown): Promise<Response> {
	return await waitFor(`the webhook ${path} to take the request`, async () => {
		const answer = await fetch(`${cluster.proxy.url}/webhook/${path}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(body),
		});
		return answer.status === 404 ? undefined : answer;
	});
}

/** Execution states after which n8n does nothing more with an execution. */
export const UNFINISHED = new Set(['new', 'running', 'waiting']);

/**
 * The service's webhook timeout: long enough that a loaded 2-core machine never makes the emulator
 * send an update twice by itself (scenario 2 makes it re-send on purpose, by dropping answers).
 */
export const PATIENT_SERVICE_MS = 60_000;

export interface EchoBotSetUp {
	emulator: EmulatorProcess;
	cluster: QueueCluster;
	workflowId: string;
	credentialId: string;
	hook: WebhookView;
}

/**
 * The recipe for "once" across webhook processes with n8n's own shared store: n8n's Remove Duplicates
 * node (2) right after the trigger, "Remove Items Processed in Previous Executions", keeping items whose
 * `update_id` is new (its history is kept in n8n's database, which every process shares).
 */
export function withRemoveDuplicates(workflow: Record<string, unknown>, trigger: string): Record<string, unknown> {
	const nodes = workflow.nodes as Array<Record<string, unknown>>;
	const connections = workflow.connections as Record<string, unknown>;
	const name = 'Once per Update';
	return {
		...workflow,
		nodes: [
			...nodes,
			{
				id: '0b1c2d3e-0000-4000-8000-0000000000d1',
				name,
				type: 'n8n-nodes-base.removeDuplicates',
				typeVersion: 2,
				position: [110, 200],
				parameters: { operation: 'removeItemsSeenInPreviousExecutions', logic: 'removeItemsWithAlreadySeenKeyValues', dedupeValue: '={{ $json.update_id }}', options: {} },
			},
		],
		connections: { ...connections, [trigger]: { main: [[{ node: name, type: 'main', index: 0 }]] }, [name]: connections[trigger] },
	};
}

/** Emulator, cluster, owner, credential and the echo bot, activated through the main. */
export async function echoBotInCluster(
	ctx: ScenarioContext,
	options: ClusterOptions & { removeDuplicates?: boolean; telegramSecretHeader?: boolean } = {},
): Promise<EchoBotSetUp> {
	const emulator = await ctx.emulator({ timeoutMs: PATIENT_SERVICE_MS, telegramSecretHeader: options.telegramSecretHeader });
	const cluster = await QueueCluster.start(ctx, options);
	await cluster.main.setupOwner();
	const credentialId = await createCredential(cluster.main, emulator);
	const bot = echoBot(emulator, credentialId);
	const workflowId = await createWorkflow(cluster.main, options.removeDuplicates ? withRemoveDuplicates(bot, 'Service Bot Trigger') : bot);
	await cluster.main.activate(workflowId);
	const hook = await waitFor('activation to set the webhook', async () => (await emulator.webhook()) ?? undefined, { limitMs: 120_000 });
	const expected = `${cluster.proxy.url}/webhook/${DEMO_TRIGGER.webhookId}/webhook`;
	if (hook.url !== expected) throw new Error(`the bot's webhook is ${hook.url}, not the load balancer's ${expected}`);
	ctx.log(`echo bot ${workflowId} active; the bot's webhook is ${hook.url}`);
	return { emulator, cluster, workflowId, credentialId, hook };
}

/**
 * Cluster, owner, credential and the polling echo bot, activated through the main and polling. With
 * `recordCallsTo`, the credential addresses the service through each process's recording proxy.
 */
export async function pollingEchoInCluster(ctx: ScenarioContext, emulator: EmulatorProcess, options: ClusterOptions = {}): Promise<{ cluster: QueueCluster; workflowId: string }> {
	const cluster = await QueueCluster.start(ctx, options);
	await cluster.main.setupOwner();
	const credentialId = await createCredential(cluster.main, emulator, cluster.serviceCalls?.baseUrlThroughProxy);
	const workflowId = await createWorkflow(cluster.main, pollingEcho(credentialId));
	await cluster.main.activate(workflowId);
	await waitFor('the trigger to poll', async () => (await emulator.calls('getUpdates')).length > 0, { limitMs: 120_000 });
	return { cluster, workflowId };
}

/** Waits until the service has no push running or due and n8n has finished every execution of the workflow. */
export async function settled(
	emulator: EmulatorProcess,
	cluster: QueueCluster,
	workflowId: string,
	atLeast: number,
): Promise<Array<{ id: string; status: string; mode: string }>> {
	// The service keeps an update pending until it was answered with a 2xx (or given up on).
	await waitFor('the service to deliver every update', async () => (await emulator.pendingUpdates()).length === 0, { limitMs: 600_000, intervalMs: 250 });
	return await finishedExecutions(cluster, workflowId, atLeast);
}

/** Waits until the workflow has at least `atLeast` executions and none of them is unfinished; returns them. */
export async function finishedExecutions(
	cluster: QueueCluster,
	workflowId: string,
	atLeast: number,
): Promise<Array<{ id: string; status: string; mode: string }>> {
	return await waitFor(
		`${atLeast} finished executions`,
		async () => {
			const executions = await cluster.executions(workflowId);
			return executions.length >= atLeast && executions.every((execution) => !UNFINISHED.has(execution.status)) ? executions : undefined;
		},
		{ limitMs: 600_000, intervalMs: 500 },
	);
}
