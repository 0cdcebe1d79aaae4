/** The Service Bot action node in the tests (not a test file itself): run against the emulator, and what the editor shows. */
import type {
	IBinaryKeyData,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameterResourceLocator,
	INodeParameters,
	INodeProperties,
	OnError,
} from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { ServiceBot } from '../../nodes/ServiceBot/ServiceBot.node';
import { credentialsFor, type Suite } from './emulator-suite';
import { executeNode } from './execute-node';
import type { ExecuteNodeResult } from './execute-node';

export const nodeType = new ServiceBot();

/** The newest node version: what a new node gets in the editor. */
export const NEWEST_VERSION = Math.max(...[nodeType.description.version].flat());

/** The properties the editor shows for one operation at a node version, displayOptions resolved the way n8n does. */
export function shownFor(
	resource: string,
	operation: string,
	extra: INodeParameters = {},
	typeVersion: number = NEWEST_VERSION,
): INodeProperties[] {
	const { description } = nodeType;
	const node = { typeVersion, parameters: {} } as unknown as INode;
	// With the defaults filled in, as the editor shows a node: e.g. a Set / Remove choice at "Set".
	const parameters =
		NodeHelpers.getNodeParameters(description.properties, { resource, operation, ...extra }, true, false, node, description) ?? {};
	return description.properties.filter((property) => NodeHelpers.displayParameter(parameters, property, node, description));
}

/** The node's name for a wire parameter (the names saved workflows hold): `reply_to_message_id` → `replyToMessageId`. */
export const fieldName = (wireName: string): string =>
	wireName.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());

/** A chat field (resource locator) in ID mode. */
export const byId = (value: string): INodeParameterResourceLocator => ({ __rl: true, mode: 'id', value });

/** Send Message with chat and text from each item (`{{ $json.chat }}`, `{{ $json.text }}`), plus `extra`. */
export const sendFromItems = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'message',
	operation: 'sendMessage',
	chatId: byId('={{ $json.chat }}'),
	text: '={{ $json.text }}',
	...extra,
});
/** A chat field in Username mode. */
export const byUsername = (value: string): INodeParameterResourceLocator => ({ __rl: true, mode: 'username', value });

export interface RunOptions {
	items?: IDataObject[];
	/** Binary data of the items, by position (storeFiles()). */
	binaries?: ReadonlyArray<IBinaryKeyData | undefined>;
	continueOnFail?: boolean;
	onError?: OnError;
	token?: string;
	/** Node version; default the newest. */
	typeVersion?: number;
}

/** Runs the node once through n8n-core's WorkflowExecute against the emulator. */
export async function run(ctx: Suite, parameters: INodeParameters, options: RunOptions = {}): Promise<ExecuteNodeResult> {
	return await executeNode({
		nodeType,
		parameters,
		items: options.items,
		binaries: options.binaries,
		credentials: credentialsFor(ctx.emu, options.token),
		continueOnFail: options.continueOnFail,
		onError: options.onError,
		typeVersion: options.typeVersion,
	});
}

/** Runs and expects success; returns the output. */
export async function runOk(ctx: Suite, parameters: INodeParameters, options: RunOptions = {}): Promise<INodeExecutionData[]> {
	const result = await run(ctx, parameters, options);
	if (result.error) throw new Error(`node failed: ${result.error.message} ${result.error.description ?? ''}`);
	return result.output;
}

export const jsonOf = (output: INodeExecutionData[]): IDataObject[] => output.map((item) => item.json);
export const pairingOf = (output: INodeExecutionData[]): unknown[] =>
	output.map((item) => (item.pairedItem as { item: number } | undefined)?.item);

/** Sends a message straight to the emulator (setup for edit/delete/pin tests). */
export async function seedMessage(ctx: Suite, chatId: string, body: IDataObject = {}): Promise<IDataObject> {
	const response = await fetch(`${ctx.emu.baseUrl}/bot${ctx.d.token}/${body.photo ? 'sendPhoto' : 'sendMessage'}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ chat_id: chatId, ...(body.photo ? {} : { text: 'seed' }), ...body }),
	});
	const envelope = (await response.json()) as { ok: boolean; result: IDataObject };
	if (!envelope.ok) throw new Error(`seed failed: ${JSON.stringify(envelope)}`);
	return envelope.result;
}
