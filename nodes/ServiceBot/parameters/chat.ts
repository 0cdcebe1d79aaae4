/**
 * The chat kind: a chat's UUID or a public group's or channel's @username, entered in a resource
 * locator (ID or Username mode) and checked before anything is sent; or (From Trigger mode, the
 * default of new nodes) the chat of the Service Bot trigger's update the item came from (fromTrigger.ts).
 */
import { isObject } from '../../shared/json';
import { USERNAME_BODY, UUID_PATTERN, UUID_SOURCE } from '../../shared/spec';
import { inputError, show } from './errors';
import type { ParamKindDefinition, ReadItem } from './kind';
import { baseField } from './kind';
import { FROM_TRIGGER_MODE, triggerUpdateOf } from './fromTrigger';
import type { Param } from './param';
import { followsTrigger } from './param';
import { readIdText } from './idText';

/** A public chat username: `@` then letters, digits and underscores. */
const USERNAME = new RegExp(`^@${USERNAME_BODY}$`);
// In Username mode the `@` may be left out: the reader adds it.
const USERNAME_FIELD_REGEX = `^@?${USERNAME_BODY}$`;
const NUMBER = /^[-+]?\d+$/;

const NUMBER_NEXT_STEP =
	"Chat IDs of this service are UUIDs, not numbers as on Telegram: map {{ $json.chat_id }} from the Service Bot Trigger's output (as an expression)";
const WHERE_CHAT_IDS_COME_FROM =
	"Chat IDs are UUIDs such as 0b6c8a58-0a7e-4b3c-9f3e-2f1f5d9a7c11: after a Service Bot trigger, map {{ $json.chat_id }} (as an expression), or take the id that Get Chat returns. Public groups and channels can also be named by their username starting with @.";


/**
 * The ID field's own check, which n8n shows before running: the way forward with a trigger and without
 * one (spec: a chat is a UUID, or a public group's or channel's @username).
 */
const NOT_A_CHAT_UUID =
	'Not a chat UUID. After a Service Bot trigger map {{ $json.chat_id }} in Expression mode; without one, use By Username (@name of a public group or channel; Get Chat with it returns the UUID), or copy chat_id from a trigger item in Executions';

/** From Trigger: the value names a trigger node, or is empty for any Service Bot trigger before the node. */
const fromTriggerMode = {
	displayName: 'From Trigger',
	name: FROM_TRIGGER_MODE,
	type: 'string' as const,
	placeholder: 'Any Service Bot trigger before this node',
	hint: "The chat of the update that started this item, followed back through the nodes before; optionally a trigger node's name",
};

/** A resource locator value `{__rl, mode, value}` or a plain value (older JSON, AI tools). */
function locatedChat(raw: unknown): unknown {
	if (!isObject(raw) || !('value' in raw)) return raw;
	const { mode, value } = raw as { mode?: unknown; value?: unknown };
	// In Username mode a missing `@` is added.
	if (mode === 'username' && typeof value === 'string') {
		const trimmed = value.trim();
		return trimmed === '' || trimmed.startsWith('@') ? trimmed : `@${trimmed}`;
	}
	return value;
}

/** The chat of the trigger's update the item came from. */
function triggerChat(item: ReadItem, param: Param, triggerName: unknown): string {
	const name = typeof triggerName === 'string' ? triggerName.trim() : '';
	const update = triggerUpdateOf(item, param.displayName, name);
	if (update.chatId === undefined || update.chatId === '') {
		throw inputError(item.at, param.displayName, `the trigger's update (${update.type ?? 'unknown'}) names no chat; choose By ID and map a chat ID`);
	}
	return update.chatId;
}

export const chatKind: ParamKindDefinition = {
	fields: (param, version) => [
		{
			// From Trigger needs no value, so the field is not required there (n8n would refuse to run an empty one).
			...baseField(param, followsTrigger(param, version) ? false : param.required),
			type: 'resourceLocator',
			default: { mode: followsTrigger(param, version) ? FROM_TRIGGER_MODE : 'id', value: '' },
			modes: [
				...(followsTrigger(param, version) ? [fromTriggerMode] : []),
				{
					displayName: followsTrigger(param, version) ? 'By ID' : 'ID',
					name: 'id',
					type: 'string',
					placeholder: 'e.g. 0b6c8a58-0a7e-4b3c-9f3e-2f1f5d9a7c11',
					hint: 'The chat UUID; after a Service Bot trigger: {{ $json.chat_id }}',
					// n8n refuses to run the node while a Fixed value fails this check, so this message is what
					// a user who typed a number (a Telegram chat ID) or `{{ $json.chat_id }}` in Fixed mode reads.
					validation: [
						{ type: 'regex', properties: { regex: UUID_SOURCE, errorMessage: NOT_A_CHAT_UUID } },
					],
				},
				{
					displayName: followsTrigger(param, version) ? 'By Username' : 'Username',
					name: 'username',
					type: 'string',
					placeholder: 'e.g. @my_channel',
					hint: 'Public username of a group or channel',
					validation: [
						{
							type: 'regex',
							properties: { regex: USERNAME_FIELD_REGEX, errorMessage: 'Not a username: @ followed by letters, digits and underscores' },
						},
					],
				},
			],
		},
	],
	read(value, param, item) {
		const { at } = item;
		const field = param.displayName;
		if (isObject(value) && value.mode === FROM_TRIGGER_MODE) return triggerChat(item, param, value.value);
		const text = readIdText(at, field, locatedChat(value));
		if (text === '') throw inputError(at, field, 'is required: a chat UUID or a public @username');
		if (UUID_PATTERN.test(text) || USERNAME.test(text)) return text;
		// A number is a chat ID from Telegram or its bots, which the user most likely copied from there.
		const next = NUMBER.test(text) ? `. ${NUMBER_NEXT_STEP}` : '';
		throw inputError(at, field, `${show(text)} is not a chat UUID or @username${next}`, WHERE_CHAT_IDS_COME_FROM);
	},
};
