/**
 * The click and the message it was on: the kinds Callback Query ID (Answer Callback Query) and
 * Message ID (every message's sequence number). Where a parameter says `fromTrigger` (Answer Callback
 * Query's ID, the message an edit or Delete Message acts on), a node from FROM_TRIGGER_SINCE takes it
 * by default From Trigger: the button click of the Service Bot trigger's update the item came from
 * (fromTrigger.ts), so an approval needs nothing mapped; By ID takes a value as before.
 */
import type { INodeProperties } from 'n8n-workflow';

import { isObject } from '../../shared/json';
import type { ReceivedUpdate } from '../../shared/trigger/update';
import { inputError } from './errors';
import type { FollowedValue } from './fromTrigger';
import { FROM_TRIGGER_MODE, triggerUpdateOf } from './fromTrigger';
import { readIdText } from './idText';
import type { ParamKindDefinition, ReadItem } from './kind';
import { baseField } from './kind';
import type { Param } from './param';
import { FROM_TRIGGER_SINCE, followsTrigger, isEmpty } from './param';
import { readText } from './text';
import { checkInteger } from './values';

/** What each kind takes From Trigger, and what to map By ID instead. */
const CLICK_ID: FollowedValue = {
	purpose: 'answers the button click of the trigger\'s update',
	mapInstead: 'the click\'s ID from a field of the item, {{ $json.callback_query_id }} where a Service Bot trigger\'s item comes in',
	toolExpression: "{{ $('Service Bot Trigger').item.json.callback_query_id }}",
};
const CLICKED_MESSAGE: FollowedValue = {
	purpose: 'acts on the message whose button was clicked in the trigger\'s update',
	mapInstead:
		'the message\'s sequence number from a field of the item: {{ $json.message_id }} after Send Message (the message it sent), Answer Callback Query or a Service Bot trigger\'s click',
	toolExpression: "{{ $('Service Bot Trigger').item.json.message_id }}",
};

/** The From Trigger mode's field, then the By ID mode's. */
function locatorField(param: Param, byId: { placeholder: string; hint?: string }, hint: string): INodeProperties {
	return {
		// From Trigger needs no value, so the field is not required (n8n would refuse to run an empty one).
		...baseField(param, false),
		type: 'resourceLocator',
		default: { mode: FROM_TRIGGER_MODE, value: '' },
		modes: [
			{ displayName: 'From Trigger', name: FROM_TRIGGER_MODE, type: 'string', placeholder: 'Any Service Bot trigger before this node', hint },
			{ displayName: 'By ID', name: 'id', type: 'string', placeholder: byId.placeholder, ...(byId.hint ? { hint: byId.hint } : {}) },
		],
	};
}

/** The value of a resource locator `{__rl, mode, value}`, or a plain value (older JSON, AI tools); From Trigger: the locator itself. */
function located(raw: unknown): { fromTrigger: string } | { value: unknown } {
	if (!isObject(raw) || !('value' in raw)) return { value: raw };
	if (raw.mode === FROM_TRIGGER_MODE) return { fromTrigger: typeof raw.value === 'string' ? raw.value.trim() : '' };
	return { value: raw.value };
}

/** The click of the trigger's update the item came from; the input error naming the field when that update is no click. */
function triggerClick(item: ReadItem, param: Param, triggerName: string, wanted: FollowedValue): ReceivedUpdate {
	const update = triggerUpdateOf(item, param.displayName, triggerName, wanted);
	if (update.type === 'callback_query') return update;
	const what = update.type === undefined ? 'an update of no known type' : `a ${update.type.replace(/_/g, ' ')}`;
	throw inputError(
		item.at,
		param.displayName,
		`From Trigger ${wanted.purpose}, but that update is ${what}, not a button click. Choose By ID and map ${wanted.mapInstead}`,
	);
}

export const callbackQueryIdKind: ParamKindDefinition = {
	fields(param, version) {
		if (followsTrigger(param, version)) {
			return [locatorField(param, { placeholder: 'e.g. {{ $json.callback_query_id }}' }, 'The click of the update that started this item, followed back through the nodes before; optionally a trigger node\'s name')];
		}
		return [{ ...baseField(param), type: 'string', default: '' }];
	},
	read(value, param, item) {
		const given = located(value);
		if ('fromTrigger' in given) {
			const id = triggerClick(item, param, given.fromTrigger, CLICK_ID).callbackQueryId;
			if (id === undefined || id === '') throw inputError(item.at, param.displayName, `the trigger's click carries no ID. Choose By ID and map ${CLICK_ID.mapInstead}`);
			return id;
		}
		// Before version 4 any text was sent, and the service's refusal reported on the item (Method.moot).
		const text = item.version >= FROM_TRIGGER_SINCE ? readIdText(item.at, param.displayName, given.value, true) : readText(item.at, param.displayName, given.value).trim();
		if (text === '') throw inputError(item.at, param.displayName, 'is required: the ID of the click, {{ $json.callback_query_id }} after a Service Bot trigger');
		return text;
	},
};

export const messageIdKind: ParamKindDefinition = {
	fields(param, version) {
		if (followsTrigger(param, version)) {
			return [locatorField(param, { placeholder: 'e.g. 42', hint: param.hint }, 'The message whose button was clicked in the update that started this item; optionally a trigger node\'s name')];
		}
		// A text field, like n8n's Telegram node: a number field would show a misleading default.
		return [{ ...baseField(param), type: 'string', default: '', placeholder: 'e.g. 42' }];
	},
	read(value, param, item) {
		const { at } = item;
		const given = located(value);
		if ('fromTrigger' in given) {
			const id = triggerClick(item, param, given.fromTrigger, CLICKED_MESSAGE).messageId;
			// A click on an inline message (sent via inline mode) has no message: the spec's clicks always carry one.
			if (id === undefined) throw inputError(at, param.displayName, `the trigger's click names no message. Choose By ID and map ${CLICKED_MESSAGE.mapInstead}`);
			return id;
		}
		if (isEmpty(given.value)) throw inputError(at, param.displayName, 'is required: the sequence number of the message');
		const checked = typeof given.value === 'string' ? readIdText(at, param.displayName, given.value) : given.value;
		return checkInteger(at, param.displayName, checked, param);
	},
};
