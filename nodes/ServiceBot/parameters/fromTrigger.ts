/**
 * The update that started an item: the item followed back, through the nodes before this one, to the
 * Service Bot trigger's item it came from. n8n records for every output item which input item it came
 * from (paired items); its expression `$('Trigger').itemMatching(i)` follows them, and this uses the
 * same (the workflow data proxy), so it works wherever that expression works: after a Switch, a Code
 * node that keeps its items paired, an AI Agent, Send and Wait. Where it cannot, the error names the
 * node that did not pair its items and what to map instead.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { isObject } from '../../shared/json';
import type { ReceivedUpdate } from '../../shared/trigger/update';
import { parseUpdate } from '../../shared/trigger/update';
import { inputError } from './errors';
import type { ReadItem } from './kind';

/** The node names (after the package's prefix) of the triggers whose items are updates. */
const TRIGGER_NAMES = ['serviceBotTrigger', 'serviceBotPollingTrigger'];

/** The resource locator mode that takes its value from the trigger's update (the chat, the click). */
export const FROM_TRIGGER_MODE = 'trigger';

/**
 * What a field takes From Trigger and what to do instead, in the words of its errors: the same
 * wherever following the item back fails.
 */
export interface FollowedValue {
	/** What From Trigger does for this field: "replies in the chat of the trigger's update". */
	readonly purpose: string;
	/** What to map By ID instead: "a chat ID from a field of the item". */
	readonly mapInstead: string;
	/** The expression that maps it when the node is a tool of an AI Agent. */
	readonly toolExpression: string;
	/** Other ways to give the value, if any. */
	readonly otherWays?: string;
}

/** The chat: From Trigger's first use. */
export const CHAT_FROM_TRIGGER: FollowedValue = {
	purpose: "replies in the chat of the trigger's update",
	mapInstead: 'a chat ID from a field of the item',
	toolExpression: "{{ $('Service Bot Trigger').item.json.chat_id }}",
	otherWays: 'take the id that Get Chat returns, or name a public group or channel with Username (@username)',
};

function insteadOf(wanted: FollowedValue): string {
	return `choose By ID and map ${wanted.mapInstead}${wanted.otherWays ? `, or ${wanted.otherWays}` : ''}`;
}

/** The part of n8n's `$('Node')` this reads. */
interface NodeSelection {
	readonly isExecuted: boolean;
	itemMatching(itemIndex: number): INodeExecutionData | undefined;
}

function isServiceBotTrigger(type: string): boolean {
	return TRIGGER_NAMES.includes(type.slice(type.lastIndexOf('.') + 1));
}

/**
 * The update as received in a trigger's item: the item itself, except where the trigger put handy
 * fields beside it (their `user` would read as an update type) or grouped several (the last counts,
 * as the grouped item's handy fields say).
 */
function updateOf(json: unknown): unknown {
	if (!isObject(json)) return json;
	const grouped = Array.isArray(json.updates) ? json.updates : [];
	if (grouped.length > 0) return grouped[grouped.length - 1];
	const type = json.update_type;
	if (typeof type === 'string' && type in json) return { update_id: json.update_id, [type]: json[type] };
	return json;
}

/** n8n's tool variants of a node: `serviceBotTool`, and the human-review `serviceBotHitlTool`. */
function isTool(type: string): boolean {
	return type.endsWith('Tool');
}

/** The node n8n names as the cause of a broken chain: a node without paired items. */
function causeOf(error: unknown): string | undefined {
	const context = isObject(error) && isObject(error.context) ? error.context : undefined;
	return typeof context?.nodeCause === 'string' ? context.nodeCause : undefined;
}

/**
 * The update of the Service Bot trigger item that `item` came from; `field` names the field in
 * errors, `triggerName` a trigger node to follow (empty: any Service Bot trigger before this node).
 * Throws the input error, naming the field, before anything is sent.
 */
export function triggerUpdateOf(item: ReadItem, field: string, triggerName = '', wanted: FollowedValue = CHAT_FROM_TRIGGER): ReceivedUpdate {
	const { ctx, itemIndex, at } = item;
	const self = ctx.getNode().name;
	const parents = ctx.getParentNodes(self).filter((node) => !node.disabled);
	const triggers = parents.filter((node) => (triggerName === '' ? isServiceBotTrigger(node.type) : node.name === triggerName));
	if (triggers.length === 0) {
		// A tool of an AI Agent hangs below the agent, not after the trigger: n8n lists no parents for it.
		const what = isTool(ctx.getNode().type)
			? `this node is a tool of an AI Agent, which no trigger comes before; map ${wanted.toolExpression} By ID`
			: triggerName === ''
				? 'no Service Bot trigger comes before this node'
				: `no node named "${triggerName}" comes before this node`;
		throw inputError(at, field, `From Trigger ${wanted.purpose}, but ${what}. Instead, ${insteadOf(wanted)}.`);
	}
	const proxy = ctx.getWorkflowDataProxy(itemIndex);
	const select = proxy.$ as (name: string) => NodeSelection;
	const ran = triggers.filter((trigger) => select(trigger.name).isExecuted);
	if (ran.length === 0) {
		const names = triggers.map((trigger) => `"${trigger.name}"`).join(', ');
		throw inputError(at, field, `From Trigger follows the item back to ${names}, which did not start this execution (another trigger did). Instead, ${insteadOf(wanted)}.`);
	}
	let broken: { trigger: string; cause?: string } | undefined;
	for (const trigger of ran) {
		let found: INodeExecutionData | undefined;
		try {
			found = select(trigger.name).itemMatching(itemIndex);
		} catch (error) {
			broken ??= { trigger: trigger.name, cause: causeOf(error) };
			continue;
		}
		const parsed = parseUpdate(updateOf(found?.json));
		if (parsed.ok) return parsed.update;
		broken ??= { trigger: trigger.name };
	}
	const trigger = broken?.trigger ?? ran[0].name;
	// n8n names this node when its input items are not paired: the node before it made them.
	const cause = broken?.cause === self ? previousNodeOf(item) : broken?.cause;
	const where = cause
		? `"${cause}" makes items without saying which item each came from (n8n's paired items)`
		: `the item it came from is not an update`;
	throw inputError(
		at,
		field,
		`From Trigger could not follow this item back to "${trigger}": ${where}. Keep the items paired there (a Code node: return each item with its pairedItem), or ${insteadOf(wanted)} (keep it on the items).`,
	);
}

/** The node whose output is this node's input. */
function previousNodeOf({ ctx }: ReadItem): string | undefined {
	try {
		return ctx.getInputSourceData(0).previousNode;
	} catch {
		return undefined;
	}
}

/**
 * The polling trigger's item that `item` came from and its update, when the item can be followed back
 * to one (else undefined, nothing thrown): for what a trigger put on its item beside the update (the
 * placeholder's id). Only the polling trigger puts it there, so only it is looked for.
 */
export function pollingTriggerItemOf({ ctx, itemIndex }: Pick<ReadItem, 'ctx' | 'itemIndex'>): { json: IDataObject; update: ReceivedUpdate } | undefined {
	const triggers = ctx.getParentNodes(ctx.getNode().name).filter((node) => !node.disabled && node.type.slice(node.type.lastIndexOf('.') + 1) === 'serviceBotPollingTrigger');
	if (triggers.length === 0) return undefined;
	const select = ctx.getWorkflowDataProxy(itemIndex).$ as (name: string) => NodeSelection;
	for (const trigger of triggers) {
		try {
			if (!select(trigger.name).isExecuted) continue;
			const json = select(trigger.name).itemMatching(itemIndex)?.json;
			const parsed = parseUpdate(updateOf(json));
			if (json && parsed.ok) return { json, update: parsed.update };
		} catch {
			// Not paired back to it: no placeholder to find.
		}
	}
	return undefined;
}
