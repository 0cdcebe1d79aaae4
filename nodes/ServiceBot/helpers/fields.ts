/**
 * Node fields built from the catalogue, and read back from them. A method's required parameters
 * become fields on top (in catalogue order), its reply markup the keyboard fields, and its optional
 * parameters the "Additional Fields" collection; reading walks the same specs, so the description,
 * the validation and the request body can never disagree with the catalogue.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeProperties,
	INodePropertyCollection,
	INodePropertyOptions,
} from 'n8n-workflow';

import type { MethodSpec, ParamSpec } from '../../shared/catalogue';
import { CHAT_ACTIONS, LIMITS, PARSE_MODES, UPDATE_TYPES } from '../../shared/catalogue';
import { buildReplyMarkup, keyboardProperties } from './keyboard';
import type { CheckContext } from './validation';
import { checkCommands, checkParam } from './validation';

export const ADDITIONAL_FIELDS = 'additionalFields';

/** Node parameter name of a wire parameter: `reply_to_message_id` → `replyToMessageId`. */
export function paramName(spec: ParamSpec): string {
	return spec.name.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}

const UUID_REGEX = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const USERNAME_REGEX = '^@?[A-Za-z0-9_]{1,64}$';

function parseModeOptions(spec: ParamSpec): INodePropertyOptions[] {
	const notes: Record<string, string> = {
		HTML: 'Tags such as <b>, <i>, <a href="…">',
		Markdown: 'Legacy Markdown: *bold*, _italic_, [link](url)',
		MarkdownV2: 'Markdown with escaping rules and more styles',
	};
	return [
		{ name: 'None', value: 'none', description: 'Send the text as it is; no parse mode is sent' },
		...(spec.values ?? PARSE_MODES).map((mode) => ({ name: mode, value: mode, description: notes[mode] })),
	];
}

function title(value: string): string {
	return value
		.split('_')
		.map((word) => word.charAt(0).toUpperCase() + word.slice(1))
		.join(' ');
}

/** The field of one catalogue parameter (not for reply markup, which the keyboard helper builds). */
export function fieldOf(method: MethodSpec, spec: ParamSpec): INodeProperties[] {
	// A required text without a minimum may be empty (an empty description removes it), so the
	// editor must not insist on a value.
	const editorRequired = spec.required && !(spec.kind === 'text' && !spec.min);
	const base = {
		displayName: spec.displayName,
		name: paramName(spec),
		description: spec.description,
		...(editorRequired ? { required: true } : {}),
	};
	switch (spec.kind) {
		case 'chatId':
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
							validation: [{ type: 'regex', properties: { regex: UUID_REGEX, errorMessage: 'Not a chat UUID' } }],
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
									properties: {
										regex: USERNAME_REGEX,
										errorMessage: 'Not a username: @ followed by letters, digits and underscores',
									},
								},
							],
						},
					],
				},
			];
		case 'userId':
		case 'mediaId':
			return [{ ...base, type: 'string', default: '', placeholder: 'e.g. 3f2b9c1e-6d4a-4f8b-9a1c-2e7d5b8f0a64' }];
		case 'messageId':
			// A text field, like n8n's Telegram node: a number field would show a misleading default.
			return [{ ...base, type: 'string', default: '', placeholder: 'e.g. 42' }];
		case 'integer':
			return [
				{
					...base,
					type: 'number',
					default: spec.serviceDefault ?? spec.min ?? 0,
					typeOptions: {
						numberPrecision: 0,
						...(spec.min !== undefined ? { minValue: spec.min } : {}),
						...(spec.max !== undefined ? { maxValue: spec.max } : {}),
					},
				},
			];
		case 'boolean':
			return [{ ...base, type: 'boolean', default: false }];
		case 'text': {
			const long = (spec.max ?? 0) > 256;
			const limit = spec.max !== undefined ? ` (up to ${spec.max.toLocaleString('en-US')} characters)` : '';
			return [
				{
					...base,
					description: `${spec.description}${limit}`,
					type: 'string',
					default: '',
					...(long ? { typeOptions: { rows: 4 } } : {}),
				},
			];
		}
		case 'parseMode':
			return [{ ...base, type: 'options', options: parseModeOptions(spec), default: 'none' }];
		case 'entities':
			return [{ ...base, type: 'json', default: '[]' }];
		case 'chatAction':
			return [
				{
					...base,
					type: 'options',
					options: CHAT_ACTIONS.map((action) => ({ name: title(action), value: action })),
					default: 'typing',
				},
			];
		case 'url':
			return [
				{
					...base,
					type: 'string',
					default: '',
					placeholder: method.name === 'setWebhook' ? 'e.g. https://example.com/webhook' : 'e.g. https://example.com',
				},
			];
		case 'secretToken':
			return [{ ...base, type: 'string', typeOptions: { password: true }, default: '' }];
		case 'updateTypes':
			return [
				{
					...base,
					type: 'multiOptions',
					options: UPDATE_TYPES.map((type) => ({ name: title(type), value: type })),
					default: [],
				},
			];
		case 'languageCode':
			return [{ ...base, type: 'string', default: '', placeholder: 'e.g. en' }];
		case 'commands':
			return commandFields(base.description);
		case 'replyMarkup':
		case 'inlineMarkup':
			return [];
	}
}

/** Commands as a list of command + description, or as JSON. */
function commandFields(description: string): INodeProperties[] {
	const { max } = LIMITS.commandDescription;
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
				description: `Shown next to the command, 1 to ${max} characters`,
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
			displayName: 'Commands',
			name: 'commands',
			type: 'fixedCollection',
			typeOptions: { multipleValues: true, sortable: true },
			placeholder: 'Add Command',
			default: {},
			required: true,
			description,
			options: [entry],
			displayOptions: { show: { commandsInput: ['list'] } },
		},
		{
			displayName: 'Commands (JSON)',
			name: 'commandsJson',
			type: 'json',
			default: '[\n  { "command": "start", "description": "Start the bot" }\n]',
			description: 'A JSON array of {"command", "description"} objects; an empty array clears the list',
			required: true,
			displayOptions: { show: { commandsInput: ['json'] } },
		},
	];
}

/** The keyboard scope of a method, when it takes a reply markup. */
export function markupScope(method: MethodSpec): 'any' | 'inline' | undefined {
	const markup = method.params.find((spec) => spec.kind === 'replyMarkup' || spec.kind === 'inlineMarkup');
	if (!markup) return undefined;
	return markup.kind === 'inlineMarkup' ? 'inline' : 'any';
}

/**
 * All fields of a method, without displayOptions for the operation (the operation adds them):
 * required parameters, the keyboard, then "Additional Fields".
 */
export function methodProperties(method: MethodSpec): INodeProperties[] {
	const required = method.params.filter((spec) => spec.required).flatMap((spec) => fieldOf(method, spec));
	const optional = method.params
		.filter((spec) => !spec.required)
		.flatMap((spec) => fieldOf(method, spec))
		.sort((a, b) => a.displayName.localeCompare(b.displayName));
	const scope = markupScope(method);
	const properties: INodeProperties[] = [...required, ...(scope ? keyboardProperties(scope) : [])];
	if (optional.length > 0) {
		properties.push({
			displayName: 'Additional Fields',
			name: ADDITIONAL_FIELDS,
			type: 'collection',
			placeholder: 'Add Field',
			default: {},
			options: optional,
		});
	}
	return properties;
}

/** A resource locator value `{__rl, mode, value}` or a plain value (older JSON, AI tools). */
function locatorValue(raw: unknown): { mode?: string; value: unknown } {
	if (typeof raw === 'object' && raw !== null && !Array.isArray(raw) && 'value' in raw) {
		const locator = raw as { mode?: unknown; value?: unknown };
		return { mode: typeof locator.mode === 'string' ? locator.mode : undefined, value: locator.value };
	}
	return { value: raw };
}

/** Reads a chat field; in Username mode a missing `@` is added. */
function readChat(ctx: IExecuteFunctions, name: string, itemIndex: number): unknown {
	const { mode, value } = locatorValue(ctx.getNodeParameter(name, itemIndex, '', { skipValidation: true }));
	if (mode === 'username' && typeof value === 'string') {
		const trimmed = value.trim();
		return trimmed === '' || trimmed.startsWith('@') ? trimmed : `@${trimmed}`;
	}
	return value;
}

function readCommands(ctx: IExecuteFunctions, check: CheckContext, spec: ParamSpec): unknown {
	const input = ctx.getNodeParameter('commandsInput', check.itemIndex, 'list', { skipValidation: true });
	if (input === 'json') {
		const raw = ctx.getNodeParameter('commandsJson', check.itemIndex, '[]', { skipValidation: true });
		return checkCommands(check, 'Commands (JSON)', raw);
	}
	const raw = ctx.getNodeParameter('commands', check.itemIndex, {}, { skipValidation: true }) as IDataObject;
	const entries = Array.isArray(raw.command) ? raw.command : [];
	return checkCommands(check, spec.displayName, entries);
}

/** The parameters of a method that are neither required fields nor in Additional Fields. */
function isSpecialKind(spec: ParamSpec): boolean {
	return spec.kind === 'replyMarkup' || spec.kind === 'inlineMarkup';
}

/**
 * Reads, checks and assembles the request body of one item. Throws `NodeOperationError` naming the
 * item and the field before anything is sent.
 */
export function readBody(
	ctx: IExecuteFunctions,
	method: MethodSpec,
	itemIndex: number,
	options: { unbounded?: readonly string[] } = {},
): IDataObject {
	const check: CheckContext = { node: ctx.getNode(), itemIndex };
	const body: IDataObject = {};
	const hasOptional = method.params.some((spec) => !spec.required && !isSpecialKind(spec));
	const additional = hasOptional
		? (ctx.getNodeParameter(ADDITIONAL_FIELDS, itemIndex, {}, { skipValidation: true }) as IDataObject)
		: {};
	for (const param of method.params) {
		if (isSpecialKind(param)) continue;
		// A caller that handles long values itself (Split Long Text) lifts the length limit.
		const spec = options.unbounded?.includes(param.name) ? { ...param, max: undefined } : param;
		let value: unknown;
		if (spec.kind === 'commands') {
			value = readCommands(ctx, check, spec);
		} else if (spec.required) {
			const raw =
				spec.kind === 'chatId'
					? readChat(ctx, paramName(spec), itemIndex)
					: ctx.getNodeParameter(paramName(spec), itemIndex, '', { skipValidation: true });
			value = checkParam(check, spec, raw, method.name);
		} else {
			value = checkParam(check, spec, additional[paramName(spec)], method.name);
		}
		if (value !== undefined) body[spec.name] = value as IDataObject[keyof IDataObject];
	}
	const scope = markupScope(method);
	if (scope) {
		const markup = buildReplyMarkup(ctx, itemIndex, scope);
		if (markup !== undefined) body.reply_markup = markup;
	}
	return body;
}
