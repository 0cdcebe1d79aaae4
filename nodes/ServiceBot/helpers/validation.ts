/**
 * Per-kind checks of the node's input, run for every item before any request is sent. Each check
 * takes the raw parameter value, returns the value to put on the wire (or `undefined` to send
 * nothing) and throws a `NodeOperationError` naming the item and the field otherwise.
 */
import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ParamSpec } from '../../shared/catalogue';
import { CHAT_ACTIONS, LIMITS, PARSE_MODES, UPDATE_TYPES } from '../../shared/catalogue';

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A public chat username: `@` then letters, digits and underscores. */
export const USERNAME_PATTERN = /^@[A-Za-z0-9_]{1,64}$/;
/** ISO 639 code, optionally with a region (`en`, `pt-br`); what Telegram-compatible services accept. */
export const LANGUAGE_CODE_PATTERN = /^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$/;
/** A method name for the Call Method operation. */
export const METHOD_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * How items are named in messages: counted from 1, as people count and as the keyboard helper does;
 * the error's `itemIndex` stays n8n's 0-based index (and the description says so).
 */
export function itemLabel(itemIndex: number): string {
	return `Item ${itemIndex + 1}`;
}

export function itemNote(itemIndex: number): string {
	return `Items are counted from 1 here; n8n's item index is ${itemIndex}.`;
}

export interface CheckContext {
	readonly node: INode;
	readonly itemIndex: number;
}

/** The error every check throws: "Item 3: Chat: 'abc' is not a chat UUID or @username". */
export function inputError(ctx: CheckContext, field: string, problem: string, description?: string): NodeOperationError {
	return new NodeOperationError(ctx.node, `${itemLabel(ctx.itemIndex)}: ${field}: ${problem}`, {
		itemIndex: ctx.itemIndex,
		description: description ? `${description} ${itemNote(ctx.itemIndex)}` : itemNote(ctx.itemIndex),
	});
}

/** A short, printable rendering of a bad value for error messages. */
export function show(value: unknown): string {
	let text: string;
	if (typeof value === 'string') text = `'${value}'`;
	// JSON would print NaN and Infinity as "null".
	else if (typeof value === 'number' && !Number.isFinite(value)) text = String(value);
	else {
		try {
			text = JSON.stringify(value) ?? String(value);
		} catch {
			text = String(value);
		}
	}
	return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

export function isEmpty(value: unknown): boolean {
	return value === undefined || value === null || value === '';
}

/**
 * Strings pass; numbers and booleans (from expressions) become their text; anything else fails,
 * NaN and Infinity included: an expression that computed NaN must not send the text "NaN".
 */
export function toText(ctx: CheckContext, field: string, value: unknown): string {
	if (typeof value === 'string') return value;
	if (typeof value === 'number' && !Number.isFinite(value)) {
		throw inputError(ctx, field, `expected text, got ${String(value)}`);
	}
	if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
	throw inputError(ctx, field, `expected text, got ${show(value)}`);
}

export function checkChatId(ctx: CheckContext, field: string, value: unknown): string {
	if (isEmpty(value)) throw inputError(ctx, field, 'is required: a chat UUID or a public @username');
	const text = toText(ctx, field, value).trim();
	if (UUID_PATTERN.test(text) || USERNAME_PATTERN.test(text)) return text;
	throw inputError(
		ctx,
		field,
		`${show(text)} is not a chat UUID or @username`,
		'Chats are identified by their UUID (e.g. 0b6c8a58-0a7e-4b3c-9f3e-2f1f5d9a7c11) or, for public groups and channels, by their username starting with @.',
	);
}

export function checkUuid(ctx: CheckContext, field: string, value: unknown, what: string): string {
	if (isEmpty(value)) throw inputError(ctx, field, `is required: the ${what} UUID`);
	const text = toText(ctx, field, value).trim();
	if (!UUID_PATTERN.test(text)) throw inputError(ctx, field, `${show(text)} is not a ${what} UUID`);
	return text;
}

export function checkInteger(
	ctx: CheckContext,
	field: string,
	value: unknown,
	bounds: { min?: number; max?: number } = {},
): number {
	let number: number;
	if (typeof value === 'number') number = value;
	else if (typeof value === 'string' && /^\s*[-+]?\d+\s*$/.test(value)) number = Number(value);
	else throw inputError(ctx, field, `${show(value)} is not a whole number`);
	if (!Number.isSafeInteger(number)) throw inputError(ctx, field, `${show(value)} is not a whole number`);
	if (bounds.min !== undefined && number < bounds.min) {
		throw inputError(ctx, field, `${number} is too small, the minimum is ${bounds.min}`);
	}
	if (bounds.max !== undefined && number > bounds.max) {
		throw inputError(ctx, field, `${number} is too large, the maximum is ${bounds.max}`);
	}
	return number;
}

export function checkMessageId(ctx: CheckContext, field: string, value: unknown): number {
	if (isEmpty(value)) throw inputError(ctx, field, 'is required: the sequence number of the message');
	return checkInteger(ctx, field, value, { min: 1 });
}

/** Length in UTF-16 code units, the way the service counts characters (LIMITS). */
export function checkText(
	ctx: CheckContext,
	field: string,
	value: unknown,
	bounds: { min?: number; max?: number } = {},
	hint?: string,
): string {
	const text = isEmpty(value) ? '' : toText(ctx, field, value);
	if (bounds.min !== undefined && text.length < bounds.min) {
		throw inputError(
			ctx,
			field,
			text.length === 0 ? 'is required and may not be empty' : `is ${text.length} characters, the minimum is ${bounds.min}`,
		);
	}
	if (bounds.max !== undefined && text.length > bounds.max) {
		throw inputError(ctx, field, `is ${text.length} characters, the limit is ${bounds.max}`, hint);
	}
	return text;
}

export function checkBoolean(ctx: CheckContext, field: string, value: unknown): boolean {
	if (typeof value === 'boolean') return value;
	if (value === 'true') return true;
	if (value === 'false') return false;
	throw inputError(ctx, field, `${show(value)} is not true or false`);
}

/** `''` / `none` mean "send no parse_mode"; the others are matched case-insensitively. */
export function checkParseMode(
	ctx: CheckContext,
	field: string,
	value: unknown,
	allowed: readonly string[] = PARSE_MODES,
): string | undefined {
	if (isEmpty(value)) return undefined;
	const text = toText(ctx, field, value).trim();
	if (text === '' || text.toLowerCase() === 'none') return undefined;
	const match = allowed.find((mode) => mode.toLowerCase() === text.toLowerCase());
	if (!match) throw inputError(ctx, field, `${show(text)} is not one of None, ${allowed.join(', ')}`);
	return match;
}

/** Parses a JSON parameter that may arrive as text (the editor's JSON field) or as a value (expressions). */
export function parseJson(ctx: CheckContext, field: string, value: unknown): unknown {
	if (typeof value !== 'string') return value;
	const text = value.trim();
	if (text === '') return undefined;
	try {
		return JSON.parse(text) as unknown;
	} catch (error) {
		throw inputError(ctx, field, `is not valid JSON (${(error as Error).message})`);
	}
}

function isObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** MessageEntity array; an empty array sends nothing. */
export function checkEntities(ctx: CheckContext, field: string, value: unknown): IDataObject[] | undefined {
	const parsed = parseJson(ctx, field, value);
	if (parsed === undefined || parsed === null) return undefined;
	if (!Array.isArray(parsed)) throw inputError(ctx, field, 'must be a JSON array of entity objects');
	parsed.forEach((entity, index) => {
		if (!isObject(entity)) throw inputError(ctx, field, `entry ${index + 1} is not an object`);
		if (typeof entity.type !== 'string' || !Number.isInteger(entity.offset) || !Number.isInteger(entity.length)) {
			throw inputError(ctx, field, `entry ${index + 1} needs "type" (text), "offset" and "length" (whole numbers)`);
		}
	});
	return parsed.length === 0 ? undefined : (parsed as IDataObject[]);
}

export function checkChatAction(ctx: CheckContext, field: string, value: unknown): string {
	const text = isEmpty(value) ? '' : toText(ctx, field, value).trim();
	if (!(CHAT_ACTIONS as readonly string[]).includes(text)) {
		throw inputError(ctx, field, `${show(text)} is not one of ${CHAT_ACTIONS.join(', ')}`);
	}
	return text;
}

/**
 * URLs: `http(s)://` with a host. A webhook URL must be HTTPS on one of the spec's ports; loopback
 * addresses are let through so that local test services can be used.
 */
export function checkUrl(ctx: CheckContext, field: string, value: unknown, webhook: boolean): string {
	if (isEmpty(value)) throw inputError(ctx, field, 'is required');
	const text = toText(ctx, field, value).trim();
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		throw inputError(ctx, field, `${show(text)} is not a URL`);
	}
	if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.hostname === '') {
		throw inputError(ctx, field, `${show(text)} is not an http(s) URL`);
	}
	if (webhook && !LOOPBACK_HOSTS.has(url.hostname.toLowerCase())) {
		if (url.protocol !== 'https:') throw inputError(ctx, field, `${show(text)} must use https://`);
		const port = url.port === '' ? 443 : Number(url.port);
		if (!LIMITS.webhookPorts.includes(port)) {
			throw inputError(ctx, field, `port ${port} is not supported, use one of ${LIMITS.webhookPorts.join(', ')}`);
		}
	}
	return text;
}

export function checkSecretToken(ctx: CheckContext, field: string, value: unknown): string {
	const text = isEmpty(value) ? '' : toText(ctx, field, value);
	const { min, max, pattern } = LIMITS.secretToken;
	if (text.length < min || text.length > max) {
		throw inputError(ctx, field, `is ${text.length} characters, it must be ${min} to ${max}`);
	}
	if (!pattern.test(text)) throw inputError(ctx, field, 'may only contain A-Z, a-z, 0-9, _ and -');
	return text;
}

/** Update types as a list (multi-options) or a comma-separated text (expressions). */
export function checkUpdateTypes(ctx: CheckContext, field: string, value: unknown): string[] {
	let list: unknown[];
	if (Array.isArray(value)) list = value;
	else if (typeof value === 'string') {
		const parsed = value.trim().startsWith('[') ? parseJson(ctx, field, value) : undefined;
		list = Array.isArray(parsed)
			? parsed
			: value
					.split(',')
					.map((entry) => entry.trim())
					.filter((entry) => entry !== '');
	} else if (isEmpty(value)) list = [];
	else throw inputError(ctx, field, `${show(value)} is not a list of update types`);
	for (const entry of list) {
		if (!(UPDATE_TYPES as readonly unknown[]).includes(entry)) {
			throw inputError(ctx, field, `${show(entry)} is not one of ${UPDATE_TYPES.join(', ')}`);
		}
	}
	return [...new Set(list as string[])];
}

export function checkLanguageCode(ctx: CheckContext, field: string, value: unknown): string | undefined {
	if (isEmpty(value)) return undefined;
	const text = toText(ctx, field, value).trim();
	if (text === '') return undefined;
	if (!LANGUAGE_CODE_PATTERN.test(text)) {
		throw inputError(ctx, field, `${show(text)} is not a language code such as en or de`);
	}
	return text;
}

export interface BotCommand extends IDataObject {
	command: string;
	description: string;
}

/** A command list: entries `{command, description}`; a leading `/` on a command is dropped. */
export function checkCommands(ctx: CheckContext, field: string, value: unknown): BotCommand[] {
	const parsed = parseJson(ctx, field, value);
	const list = isObject(parsed) && Array.isArray(parsed.commands) ? parsed.commands : parsed;
	if (list === undefined || list === null) return [];
	if (!Array.isArray(list)) throw inputError(ctx, field, 'must be a JSON array of {"command", "description"} objects');
	if (list.length > LIMITS.commandsPerList.max) {
		throw inputError(ctx, field, `has ${list.length} commands, the limit is ${LIMITS.commandsPerList.max}`);
	}
	const seen = new Set<string>();
	return list.map((entry: unknown, index): BotCommand => {
		const where = `command ${index + 1}`;
		if (!isObject(entry)) throw inputError(ctx, field, `${where} is not an object with command and description`);
		const command = (isEmpty(entry.command) ? '' : toText(ctx, field, entry.command)).trim().replace(/^\//, '');
		const description = isEmpty(entry.description) ? '' : toText(ctx, field, entry.description).trim();
		const name = LIMITS.commandName;
		if (command.length < name.min || command.length > name.max || !name.pattern.test(command)) {
			throw inputError(
				ctx,
				field,
				`${where}: ${show(command)} must be ${name.min} to ${name.max} characters of a-z, 0-9 and _`,
			);
		}
		if (seen.has(command)) throw inputError(ctx, field, `${where}: /${command} is listed twice`);
		seen.add(command);
		const limits = LIMITS.commandDescription;
		if (description.length < limits.min || description.length > limits.max) {
			throw inputError(
				ctx,
				field,
				`${where} (/${command}): the description is ${description.length} characters, it must be ${limits.min} to ${limits.max}`,
			);
		}
		return { command, description };
	});
}

/**
 * Checks one catalogue parameter and returns its wire value; `undefined` means "not sent".
 * Kinds with their own UI (reply markup, commands) are read elsewhere and not handled here.
 */
export function checkParam(ctx: CheckContext, spec: ParamSpec, value: unknown, method: string): unknown {
	const field = spec.displayName;
	if (!spec.required && isEmpty(value) && spec.kind !== 'boolean') return undefined;
	switch (spec.kind) {
		case 'chatId':
			return checkChatId(ctx, field, value);
		case 'userId':
			return checkUuid(ctx, field, value, 'user');
		case 'mediaId':
			return checkUuid(ctx, field, value, 'media file');
		case 'messageId':
			return checkMessageId(ctx, field, value);
		case 'integer':
			return checkInteger(ctx, field, value, spec);
		case 'boolean':
			return isEmpty(value) ? undefined : checkBoolean(ctx, field, value);
		case 'text': {
			const hint =
				method === 'sendMessage' && spec.name === 'text'
					? 'Turn on Options > Split Long Text to send it as several messages.'
					: undefined;
			const text = checkText(ctx, field, value, spec, hint);
			return !spec.required && text === '' ? undefined : text;
		}
		case 'parseMode':
			return checkParseMode(ctx, field, value, spec.values);
		case 'entities':
			return checkEntities(ctx, field, value);
		case 'chatAction':
			return checkChatAction(ctx, field, value);
		case 'url':
			return checkUrl(ctx, field, value, method === 'setWebhook');
		case 'secretToken':
			return checkSecretToken(ctx, field, value);
		case 'updateTypes':
			return checkUpdateTypes(ctx, field, value);
		case 'languageCode':
			return checkLanguageCode(ctx, field, value);
		case 'commands':
			return checkCommands(ctx, field, value);
		case 'replyMarkup':
		case 'inlineMarkup':
			return undefined;
	}
}
