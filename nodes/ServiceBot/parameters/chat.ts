/**
 * The chat kind: a chat's UUID or a public group's or channel's @username, entered in a resource
 * locator (ID or Username mode) and checked before anything is sent.
 */
import { isObject } from '../../shared/json';
import { USERNAME_BODY, UUID_PATTERN, UUID_SOURCE } from '../../shared/spec';
import { inputError, show } from './errors';
import type { ParamKindDefinition } from './kind';
import { baseField } from './kind';
import { readText } from './text';

/** A public chat username: `@` then letters, digits and underscores. */
const USERNAME = new RegExp(`^@${USERNAME_BODY}$`);
// In Username mode the `@` may be left out: the reader adds it.
const USERNAME_FIELD_REGEX = `^@?${USERNAME_BODY}$`;
const NUMBER = /^[-+]?\d+$/;

const NUMBER_NEXT_STEP =
	"Chat IDs of this service are UUIDs, not numbers as on Telegram: map {{ $json.chat_id }} from the Service Bot Trigger's output (as an expression)";
const WHERE_CHAT_IDS_COME_FROM =
	"Chat IDs are UUIDs such as 0b6c8a58-0a7e-4b3c-9f3e-2f1f5d9a7c11: after a Service Bot trigger, map {{ $json.chat_id }} (as an expression), or take the id that Get Chat returns. Public groups and channels can also be named by their username starting with @.";

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

export const chatKind: ParamKindDefinition = {
	fields: (param) => [
		{
			...baseField(param),
			type: 'resourceLocator',
			default: { mode: 'id', value: '' },
			modes: [
				{
					displayName: 'ID',
					name: 'id',
					type: 'string',
					placeholder: 'e.g. 0b6c8a58-0a7e-4b3c-9f3e-2f1f5d9a7c11',
					hint: 'The chat UUID; after a Service Bot trigger: {{ $json.chat_id }}',
					// n8n refuses to run the node while a Fixed value fails this check, so this message is what
					// a user who typed a number (a Telegram chat ID) or `{{ $json.chat_id }}` in Fixed mode reads.
					validation: [
						{ type: 'regex', properties: { regex: UUID_SOURCE, errorMessage: 'Not a chat UUID: map {{ $json.chat_id }} from a Service Bot trigger, in Expression mode' } },
					],
				},
				{
					displayName: 'Username',
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
	read(value, param, { at }) {
		const field = param.displayName;
		const text = readText(at, field, locatedChat(value)).trim();
		if (text === '') throw inputError(at, field, 'is required: a chat UUID or a public @username');
		if (UUID_PATTERN.test(text) || USERNAME.test(text)) return text;
		// A number is a chat ID from Telegram or its bots, which the user most likely copied from there.
		const next = NUMBER.test(text) ? `. ${NUMBER_NEXT_STEP}` : '';
		throw inputError(at, field, `${show(text)} is not a chat UUID or @username${next}`, WHERE_CHAT_IDS_COME_FROM);
	},
};
