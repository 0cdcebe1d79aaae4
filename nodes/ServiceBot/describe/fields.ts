/**
 * The editor fields of a method's wire parameters: required ones on top in the method's order, the
 * keyboard fields, then "Additional Fields" with the optional ones, then the node's "Options".
 * read/parameters.ts reads the same fields back, by the same names.
 */
import type { INodeProperties, INodePropertyCollection, INodePropertyOptions } from 'n8n-workflow';

import { LIMITS, UPDATE_TYPES, USERNAME_BODY, UUID_SOURCE } from '../../shared/spec';
import type { Method, Param } from '../methods/method';
import { keyboardProperties } from './keyboard';

/** The node versions; a new node gets the newest. */
export const NODE_VERSIONS = [1, 2] as const;

export const DEFAULT_CONCURRENCY = 8;
export const MAX_CONCURRENCY = 100;

/** The node field of a wire parameter: `reply_to_message_id` → `replyToMessageId`. */
export function fieldName(param: Param): string {
	return param.name.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}

/** The Set / Remove selector of a removable parameter, e.g. `descriptionAction`. */
export function removalFieldName(param: Param): string {
	return `${fieldName(param)}Action`;
}

export function isInVersion(param: Param, version: number): boolean {
	const { from, to } = param.versions ?? {};
	return (from === undefined || version >= from) && (to === undefined || version <= to);
}

/** Optional parameters live in "Additional Fields"; the keyboard has its own fields. */
export function additionalFieldsOf(param: Param): boolean {
	return !param.required && param.kind !== 'replyMarkup';
}

const PARSE_MODE_NOTES: Record<string, string> = {
	HTML: 'Tags such as <b>, <i>, <a href="…">',
	Markdown: 'Legacy Markdown: *bold*, _italic_, [link](url)',
	MarkdownV2: 'Markdown with escaping rules and more styles',
};

// In Username mode the `@` may be left out: the reader adds it.
const USERNAME_REGEX = `^@?${USERNAME_BODY}$`;

function title(value: string): string {
	return value
		.split('_')
		.map((word) => word.charAt(0).toUpperCase() + word.slice(1))
		.join(' ');
}

/** Commands as a list of command + description, or as JSON. */
function commandFields(param: Param): INodeProperties[] {
	const entry: INodePropertyCollection = {
		displayName: 'Command',
		name: 'command',
		values: [
			{
				displayName: 'Command',
				name: 'command',
				type: 'string',
				default: '',
				placeholder: 'e.g. start',
				description: `Command name without the slash: ${LIMITS.commandName.max} characters at most, of a-z, 0-9 and _`,
			},
			{
				displayName: 'Description',
				name: 'description',
				type: 'string',
				default: '',
				placeholder: 'e.g. Start the bot',
				description: `Shown next to the command, 1 to ${LIMITS.commandDescription.max} characters`,
			},
		],
	};
	return [
		{
			displayName: 'Commands Input',
			name: 'commandsInput',
			type: 'options',
			options: [
				{ name: 'List', value: 'list', description: 'Enter the commands one by one' },
				{ name: 'JSON', value: 'json', description: 'A JSON array of {"command", "description"} objects' },
			],
			default: 'list',
			noDataExpression: true,
			description: 'How to define the commands',
		},
		{
			displayName: param.displayName,
			name: fieldName(param),
			type: 'fixedCollection',
			typeOptions: { multipleValues: true, sortable: true },
			placeholder: 'Add Command',
			default: {},
			required: true,
			description: param.description,
			options: [entry],
			displayOptions: { show: { commandsInput: ['list'] } },
		},
		{
			displayName: `${param.displayName} (JSON)`,
			name: `${fieldName(param)}Json`,
			type: 'json',
			default: '[\n  { "command": "start", "description": "Start the bot" }\n]',
			description: 'A JSON array of {"command", "description"} objects; an empty array clears the list',
			required: true,
			displayOptions: { show: { commandsInput: ['json'] } },
		},
	];
}

/** The field of one parameter (the keyboard and the commands bring several). */
export function fieldsOf(param: Param): INodeProperties[] {
	// A required text without a minimum may be empty (version 1's "empty removes it"), so the editor does not insist.
	const editorRequired = param.required && !(param.kind === 'text' && !param.min);
	const base = {
		displayName: param.displayName,
		name: fieldName(param),
		description: param.description,
		...(editorRequired ? { required: true } : {}),
		...(param.placeholder ? { placeholder: param.placeholder } : {}),
	};
	switch (param.kind) {
		case 'chat':
			return [
				{
					...base,
					type: 'resourceLocator',
					default: { mode: 'id', value: '' },
					modes: [
						{
							displayName: 'ID',
							name: 'id',
							type: 'string',
							placeholder: 'e.g. 0b6c8a58-0a7e-4b3c-9f3e-2f1f5d9a7c11',
							hint: 'The chat UUID',
							validation: [{ type: 'regex', properties: { regex: UUID_SOURCE, errorMessage: 'Not a chat UUID' } }],
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
									properties: { regex: USERNAME_REGEX, errorMessage: 'Not a username: @ followed by letters, digits and underscores' },
								},
							],
						},
					],
				},
			];
		case 'user':
		case 'media':
			return [{ ...base, type: 'string', default: '', placeholder: 'e.g. 3f2b9c1e-6d4a-4f8b-9a1c-2e7d5b8f0a64' }];
		case 'messageId':
			// A text field, like n8n's Telegram node: a number field would show a misleading default.
			return [{ ...base, type: 'string', default: '', placeholder: 'e.g. 42' }];
		case 'integer':
			return [
				{
					...base,
					type: 'number',
					default: param.serviceDefault ?? param.min ?? 0,
					typeOptions: {
						numberPrecision: 0,
						...(param.min !== undefined ? { minValue: param.min } : {}),
						...(param.max !== undefined ? { maxValue: param.max } : {}),
					},
				},
			];
		case 'boolean':
			return [{ ...base, type: 'boolean', default: false }];
		case 'text': {
			const limit = param.max !== undefined ? ` (up to ${param.max.toLocaleString('en-US')} characters)` : '';
			return [
				{
					...base,
					description: `${param.description}${limit}`,
					type: 'string',
					default: '',
					...((param.max ?? 0) > 256 ? { typeOptions: { rows: 4 } } : {}),
				},
			];
		}
		case 'parseMode':
			return [
				{
					...base,
					type: 'options',
					options: [
						{ name: 'None', value: 'none', description: 'Send the text as it is; no parse mode is sent' },
						...(param.values ?? []).map((mode): INodePropertyOptions => ({ name: mode, value: mode, description: PARSE_MODE_NOTES[mode] })),
					],
					default: 'none',
				},
			];
		case 'entities':
			return [{ ...base, type: 'json', default: '[]' }];
		case 'chatAction': {
			const values = param.values ?? [];
			const first = values[0];
			return [{ ...base, type: 'options', options: values.map((action) => ({ name: title(action), value: action })), default: first }];
		}
		case 'url':
			return [{ ...base, type: 'string', default: '' }];
		case 'secretToken':
			return [{ ...base, type: 'string', typeOptions: { password: true }, default: '' }];
		case 'updateTypes':
			return [{ ...base, type: 'multiOptions', options: UPDATE_TYPES.map((type) => ({ name: title(type), value: type })), default: [] }];
		case 'languageCode':
			return [{ ...base, type: 'string', default: '', placeholder: 'e.g. en' }];
		case 'commands':
			return commandFields(param);
		case 'replyMarkup':
			return keyboardProperties(param.markup ?? { kinds: 'any' }, param.description);
	}
}

/** A required value whose removal is an explicit choice: the Set / Remove selector, then the value. */
function removableFields(param: Param, noun: string): INodeProperties[] {
	const selector = removalFieldName(param);
	const set = 'set';
	return [
		{
			displayName: `${noun} Action`,
			name: selector,
			type: 'options',
			noDataExpression: true,
			options: [
				{ name: `Remove ${noun}`, value: 'remove', description: `Remove the current ${noun.toLowerCase()}` },
				{ name: `Set ${noun}`, value: set, description: `Set the ${noun.toLowerCase()} below` },
			],
			default: set,
		},
		...fieldsOf(param).map((field) => ({ ...field, displayOptions: { show: { [selector]: [set] } } })),
	];
}

const concurrencyOption: INodeProperties = {
	displayName: 'Concurrency',
	name: 'concurrency',
	type: 'number',
	default: DEFAULT_CONCURRENCY,
	typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY, numberPrecision: 0 },
	description:
		'How many requests may run at the same time. Items for the same chat are always sent one after another, in input order; 1 sends every item sequentially.',
};

const splitIntoItemsOption: INodeProperties = {
	displayName: 'Split Into Items',
	name: 'splitIntoItems',
	type: 'boolean',
	default: true,
	description: 'Whether to output one item per entry of the list; when off, one item holds the whole list',
};

/** The node's "Options" of a method: behaviour of the node, not parameters of the request. */
function optionsCollection(method: Method): INodeProperties[] {
	const options: INodeProperties[] = [...(method.options ?? [])];
	if (method.queue !== 'bot') options.push(concurrencyOption);
	if (method.output.kind === 'list') options.push(splitIntoItemsOption);
	if (options.length === 0) return [];
	return [
		{
			displayName: 'Options',
			name: 'options',
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			options: options.sort((a, b) => a.displayName.localeCompare(b.displayName)),
		},
	];
}

/** The fields of a method at one node version, without the operation's displayOptions. */
export function methodFields(method: Method, version: number): INodeProperties[] {
	const params = method.params.filter((param) => isInVersion(param, version));
	const top = params
		.filter((param) => !additionalFieldsOf(param))
		.flatMap((param) => (param.removable ? removableFields(param, param.removable) : fieldsOf(param)));
	const optional = params
		.filter(additionalFieldsOf)
		.flatMap(fieldsOf)
		.sort((a, b) => a.displayName.localeCompare(b.displayName));
	const properties = [...top];
	if (optional.length > 0) {
		properties.push({
			displayName: 'Additional Fields',
			name: 'additionalFields',
			type: 'collection',
			placeholder: 'Add Field',
			default: {},
			options: optional,
		});
	}
	return [...properties, ...(method.fields ?? []), ...optionsCollection(method)];
}
