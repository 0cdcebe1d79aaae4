/**
 * The triggers in the tests (not a test file itself): a trigger on the emulator's bot through n8n-core's
 * harness, the same trigger in a new n8n process, one listening on a real HTTP server, and what the
 * service or a user sends it.
 */
import type { IDataObject, INodeExecutionData, INodeParameters, INodeType } from 'n8n-workflow';

import { ServiceBotTrigger } from '../../nodes/ServiceBotTrigger/ServiceBotTrigger.node';
import { POLL_TIMING } from '../../nodes/ServiceBotPollingTrigger/feed';
import type { Emulator } from '../emulator';
import type { TestCredentials } from './credentials-helper';
import { credentialsFor } from './emulator-suite';
import {
	createTriggerHarness,
	freePort,
	startWebhookServer,
	type TriggerHarness,
	type TriggerHarnessOptions,
	type WebhookServer,
} from './trigger-harness';
import type { WaitingRouter } from './waiting';

export const SECRET_HEADER = 'X-Service-Bot-Api-Secret-Token';
export const SECRET_PATTERN = /^[A-Za-z0-9_-]{32,256}$/;

export interface HarnessOptions {
	parameters?: INodeParameters;
	token?: string;
	workflowId?: string;
	workflowName?: string;
	webhookId?: string;
	nodeId?: string;
	staticData?: IDataObject;
	executionKeys?: Set<string>;
	/** n8n's webhook base; default a loopback URL on a free port, so a webhook server can listen there. */
	webhookBaseUrl?: string;
	/** The credential's base URL; default the emulator's. */
	serviceBaseUrl?: string;
	/** Default the Service Bot Trigger. */
	nodeType?: INodeType;
	/** The credential itself, to change it while the trigger runs (default: the emulator's demo bot). */
	credentials?: TestCredentials;
	/**
	 * The node version (default 1: what saved workflows have; its output is the update, plus the handy
	 * fields when turned on). Version 2's own output is tested where a test says so.
	 */
	typeVersion?: number;
	/** Nodes after the trigger, in a chain (what the trigger reads of its workflow). */
	after?: TriggerHarnessOptions['after'];
}

export async function makeHarness(emu: Emulator, options: HarnessOptions = {}): Promise<TriggerHarness> {
	const harnessOptions: TriggerHarnessOptions = {
		nodeType: options.nodeType ?? new ServiceBotTrigger(),
		parameters: options.parameters ?? { updates: ['*'], options: {} },
		credentials: options.credentials ?? { ...credentialsFor(emu, options.token), baseUrl: options.serviceBaseUrl ?? emu.baseUrl },
		webhookBaseUrl: options.webhookBaseUrl ?? `http://127.0.0.1:${await freePort()}/`,
		workflowId: options.workflowId,
		workflowName: options.workflowName,
		webhookId: options.webhookId,
		nodeId: options.nodeId,
		staticData: options.staticData,
		executionKeys: options.executionKeys,
		typeVersion: options.typeVersion ?? 1,
		after: options.after,
	};
	return createTriggerHarness(harnessOptions);
}

/** A trigger node type loaded afresh, as a new n8n process loads it (nothing of the old one in memory). */
export function freshNodeType(trigger: 'polling' | 'webhook' = 'polling'): INodeType {
	let fresh: INodeType | undefined;
	jest.isolateModules(() => {
		// The new process waits as this one was told to (tests shorten POLL_TIMING).
		Object.assign(jest.requireActual<FeedModule>('../../nodes/ServiceBotPollingTrigger/feed').POLL_TIMING, POLL_TIMING);
		fresh =
			trigger === 'polling'
				? new (jest.requireActual<PollingModule>('../../nodes/ServiceBotPollingTrigger/ServiceBotPollingTrigger.node').ServiceBotPollingTrigger)()
				: new (jest.requireActual<WebhookModule>('../../nodes/ServiceBotTrigger/ServiceBotTrigger.node').ServiceBotTrigger)();
	});
	if (!fresh) throw new Error('module not loaded');
	return fresh;
}

/**
 * The same trigger in a new n8n process: the node's modules loaded afresh (nothing in memory), the
 * same workflow, node, saved static data and executions in the database. Several workflows of one
 * new process share one `nodeType` from `freshNodeType`.
 */
export async function inNewProcess(
	emu: Emulator,
	harness: TriggerHarness,
	trigger: 'polling' | 'webhook' = 'polling',
	extra: Pick<HarnessOptions, 'webhookBaseUrl' | 'credentials' | 'nodeType'> = {},
): Promise<TriggerHarness> {
	const { node, staticData, workflowId, executionKeys } = harness;
	return await makeHarness(emu, {
		nodeType: extra.nodeType ?? freshNodeType(trigger),
		parameters: node.parameters,
		workflowId,
		nodeId: node.id,
		webhookId: node.webhookId,
		staticData,
		executionKeys,
		typeVersion: node.typeVersion,
		...extra,
	});
}

type FeedModule = typeof import('../../nodes/ServiceBotPollingTrigger/feed');
type PollingModule = typeof import('../../nodes/ServiceBotPollingTrigger/ServiceBotPollingTrigger.node');
type WebhookModule = typeof import('../../nodes/ServiceBotTrigger/ServiceBotTrigger.node');

export interface LiveTrigger {
	harness: TriggerHarness;
	server: WebhookServer;
	/** The secret the emulator holds for the bot's webhook after activation. */
	secret: string;
	/** The JSON of every item the trigger emitted, in order. */
	emitted(): IDataObject[];
	close(): Promise<void>;
}

/** A trigger activated against the emulator, with a real HTTP server the emulator pushes to. */
export async function liveTrigger(emu: Emulator, options: HarnessOptions & { waiting?: WaitingRouter } = {}): Promise<LiveTrigger> {
	const harness = await makeHarness(emu, options);
	const server = await startWebhookServer(harness, { waiting: options.waiting });
	await harness.activate();
	const hook = emu.webhookOf(options.token);
	if (!hook?.secretToken) throw new Error('activation did not set a webhook secret');
	return {
		harness,
		server,
		secret: hook.secretToken,
		emitted: () => server.executions.flatMap((run: INodeExecutionData[][]) => run[0].map((item) => item.json)),
		close: async () => await server.close(),
	};
}

export interface Envelope<T> {
	ok: boolean;
	result?: T;
	description?: string;
}

/** Calls the emulator's Bot API directly, as another system (or the user) would. */
export async function api<T = unknown>(
	emu: Emulator,
	method: string,
	body: Record<string, unknown> = {},
	token: string = emu.demo.token,
): Promise<Envelope<T>> {
	const response = await fetch(`${emu.baseUrl}/bot${token}/${method}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	return (await response.json()) as Envelope<T>;
}

/** The bot sends a message with one inline button into a chat; returns its message_id. */
export async function sendButton(emu: Emulator, chatId: string, data: string): Promise<number> {
	const sent = await api<{ message_id: number }>(emu, 'sendMessage', {
		chat_id: chatId,
		text: 'Choose',
		reply_markup: { inline_keyboard: [[{ text: 'Press', callback_data: data }]] },
	});
	if (!sent.ok || !sent.result) throw new Error(`sendMessage failed: ${sent.description ?? ''}`);
	return sent.result.message_id;
}

/** A minimal well-formed message update (for cases the emulator cannot produce). */
export function messageUpdate(updateId: number, chatId: string, userId: string, text = 'hello'): IDataObject {
	return {
		update_id: updateId,
		message: {
			message_id: updateId,
			date: 1_700_000_000,
			chat: { id: chatId, type: 'private' },
			from: { id: userId, is_bot: false, first_name: 'Test' },
			text,
		},
	};
}

/** The same string with its last character changed: same length, different secret. */
export function tweakLastChar(secret: string): string {
	const last = secret.slice(-1);
	return `${secret.slice(0, -1)}${last === 'A' ? 'B' : 'A'}`;
}
