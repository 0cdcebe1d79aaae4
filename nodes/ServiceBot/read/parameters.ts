/**
 * Read and check one item: the node parameters of a method's wire parameters become the request
 * body, each value checked by its kind before anything is sent. A bad value throws the input error
 * that names the field and the item (errors.ts).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { isObject } from '../../shared/json';
import { LIMITS, UPDATE_TYPES, USERNAME_BODY, UUID_PATTERN } from '../../shared/spec';
import type { ItemContext, Method, Param } from '../methods/method';
import { additionalFieldsOf, fieldName, isInVersion, removalFieldName } from '../describe/fields';
import type { At } from './errors';
import { inputError, show } from './errors';
import { readJson } from './json';
import { readReplyMarkup } from './keyboard';
import { checkCommands, checkEntities } from './schemas';

/** A public chat username: `@` then letters, digits and underscores. */
const USERNAME = new RegExp(`^@${USERNAME_BODY}$`);
/** ISO 639 code, optionally with a region (`en`, `pt-br`); what Telegram-compatible services accept. */
const LANGUAGE_CODE = /^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$/;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A node parameter of an item. `skipValidation`: n8n's own validation of a read looks the parameter
 * up among all of the node's properties, which costs time on every read of every item, and checks
 * nothing these checks do not check more precisely.
 */
export function nodeParameter(ctx: IExecuteFunctions, name: string, itemIndex: number, fallback: unknown): unknown {
	return ctx.getNodeParameter(name, itemIndex, fallback as never, { skipValidation: true });
}

function isEmpty(value: unknown): boolean {
	return value === undefined || value === null || value === '';
}

/**
 * Strings pass; numbers and booleans (from expressions) become their text; anything else fails,
 * NaN and Infinity included: an expression that computed NaN must not send the text "NaN".
 */
export function readText(at: At, field: string, value: unknown): string {
	if (isEmpty(value)) return '';
	if (typeof value === 'string') return value;
	if (typeof value === 'number' && !Number.isFinite(value)) throw inputError(at, field, `expected text, got ${String(value)}`);
	if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
	throw inputError(at, field, `expected text, got ${show(value)}`);
}

function checkChat(at: At, field: string, value: unknown): string {
	const text = readText(at, field, value).trim();
	if (text === '') throw inputError(at, field, 'is required: a chat UUID or a public @username');
	if (UUID_PATTERN.test(text) || USERNAME.test(text)) return text;
	throw inputError(
		at,
		field,
		`${show(text)} is not a chat UUID or @username`,
		'Chats are identified by their UUID (e.g. 0b6c8a58-0a7e-4b3c-9f3e-2f1f5d9a7c11) or, for public groups and channels, by their username starting with @.',
	);
}

function checkUuid(at: At, field: string, value: unknown, what: string): string {
	const text = readText(at, field, value).trim();
	if (text === '') throw inputError(at, field, `is required: the ${what} UUID`);
	if (!UUID_PATTERN.test(text)) throw inputError(at, field, `${show(text)} is not a ${what} UUID`);
	return text;
}

function checkInteger(at: At, field: string, value: unknown, param: Param): number {
	let number: number;
	if (typeof value === 'number') number = value;
	else if (typeof value === 'string' && /^\s*[-+]?\d+\s*$/.test(value)) number = Number(value);
	else throw inputError(at, field, `${show(value)} is not a whole number`);
	if (!Number.isSafeInteger(number)) throw inputError(at, field, `${show(value)} is not a whole number`);
	if (param.min !== undefined && number < param.min) throw inputError(at, field, `${number} is too small, the minimum is ${param.min}`);
	if (param.max !== undefined && number > param.max) throw inputError(at, field, `${number} is too large, the maximum is ${param.max}`);
	return number;
}

/** Lengths in UTF-16 code units, the way the service counts characters. */
function checkText(at: At, field: string, value: unknown, param: Param, options: IDataObject): string {
	const text = readText(at, field, value);
	if (param.min !== undefined && text.length < param.min) {
		throw inputError(at, field, text.length === 0 ? 'is required and may not be empty' : `is ${text.length} characters, the minimum is ${param.min}`);
	}
	const splitting = param.splitBy !== undefined && options[param.splitBy.option] === true;
	if (param.max !== undefined && !splitting && text.length > param.max) {
		const hint = param.splitBy ? `Turn on Options > ${param.splitBy.optionName} to send it as several messages.` : undefined;
		throw inputError(at, field, `is ${text.length} characters, the limit is ${param.max}`, hint);
	}
	return text;
}

function checkBoolean(at: At, field: string, value: unknown): boolean {
	if (typeof value === 'boolean') return value;
	if (value === 'true') return true;
	if (value === 'false') return false;
	throw inputError(at, field, `${show(value)} is not true or false`);
}

/** `''` and `none` send no parse_mode; modes match case-insensitively. */
function checkParseMode(at: At, field: string, value: unknown, allowed: readonly string[]): string | undefined {
	const text = readText(at, field, value).trim();
	if (text === '' || text.toLowerCase() === 'none') return undefined;
	const match = allowed.find((mode) => mode.toLowerCase() === text.toLowerCase());
	if (!match) throw inputError(at, field, `${show(text)} is not one of None, ${allowed.join(', ')}`);
	return match;
}

function checkOneOf(at: At, field: string, value: unknown, allowed: readonly string[]): string {
	const text = readText(at, field, value).trim();
	if (!allowed.includes(text)) throw inputError(at, field, `${show(text)} is not one of ${allowed.join(', ')}`);
	return text;
}

/**
 * `http(s)://` with a host. A webhook URL must be HTTPS on one of the spec's ports; loopback
 * addresses are let through so that local test services can be used.
 */
function checkUrl(at: At, field: string, value: unknown, webhook: boolean): string {
	const text = readText(at, field, value).trim();
	if (text === '') throw inputError(at, field, 'is required');
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		throw inputError(at, field, `${show(text)} is not a URL`);
	}
	if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.hostname === '') {
		throw inputError(at, field, `${show(text)} is not an http(s) URL`);
	}
	if (webhook && !LOOPBACK_HOSTS.has(url.hostname.toLowerCase())) {
		if (url.protocol !== 'https:') throw inputError(at, field, `${show(text)} must use https://`);
		const port = url.port === '' ? 443 : Number(url.port);
		if (!LIMITS.webhookPorts.includes(port)) {
			throw inputError(at, field, `port ${port} is not supported, use one of ${LIMITS.webhookPorts.join(', ')}`);
		}
	}
	return text;
}

function checkSecretToken(at: At, field: string, value: unknown): string {
	const text = readText(at, field, value);
	const { min, max, pattern } = LIMITS.secretToken;
	if (text.length < min || text.length > max) throw inputError(at, field, `is ${text.length} characters, it must be ${min} to ${max}`);
	if (!pattern.test(text)) throw inputError(at, field, 'may only contain A-Z, a-z, 0-9, _ and -');
	return text;
}

/** Update types as a list (multi-options), a JSON array or a comma-separated text (expressions). */
function checkUpdateTypes(at: At, field: string, value: unknown): string[] {
	let list: unknown[];
	if (Array.isArray(value)) list = value;
	else if (typeof value === 'string') {
		const parsed = value.trim().startsWith('[') ? readJson(at, field, value) : undefined;
		list = Array.isArray(parsed)
			? parsed
			: value
					.split(',')
					.map((entry) => entry.trim())
					.filter((entry) => entry !== '');
	} else if (isEmpty(value)) list = [];
	else throw inputError(at, field, `${show(value)} is not a list of update types`);
	for (const entry of list) {
		if (!(UPDATE_TYPES as readonly unknown[]).includes(entry)) {
			throw inputError(at, field, `${show(entry)} is not one of ${UPDATE_TYPES.join(', ')}`);
		}
	}
	return [...new Set(list as string[])];
}

function checkLanguageCode(at: At, field: string, value: unknown): string | undefined {
	const text = readText(at, field, value).trim();
	if (text === '') return undefined;
	if (!LANGUAGE_CODE.test(text)) throw inputError(at, field, `${show(text)} is not a language code such as en or de`);
	return text;
}

/** Entities as a JSON array; an empty one sends nothing. */
function checkEntityList(at: At, field: string, value: unknown): IDataObject[] | undefined {
	const parsed = readJson(at, field, value);
	if (parsed === undefined || parsed === null) return undefined;
	const checked = checkEntities(parsed);
	if (!checked.ok) throw inputError(at, field, checked.problems);
	return checked.value.length === 0 ? undefined : (checked.value as IDataObject[]);
}

/** Commands from the list fields or from JSON (an array, or an object holding `commands`). */
function readCommands(item: ItemContext, at: At, param: Param): IDataObject[] {
	const { ctx, itemIndex } = item;
	let field = param.displayName;
	let value: unknown;
	if (nodeParameter(ctx, 'commandsInput', itemIndex, 'list') === 'json') {
		field = `${param.displayName} (JSON)`;
		const parsed = readJson(at, field, nodeParameter(ctx, 'commandsJson', itemIndex, '[]'));
		value = isObject(parsed) && 'commands' in parsed ? parsed.commands : parsed;
	} else {
		const entries = nodeParameter(ctx, fieldName(param), itemIndex, {}) as IDataObject;
		value = Array.isArray(entries.command) ? entries.command : [];
	}
	if (value === undefined || value === null) return [];
	const checked = checkCommands(value);
	if (!checked.ok) throw inputError(at, field, checked.problems);
	return checked.value as unknown as IDataObject[];
}

/** The wire value of one parameter, or `undefined` to send nothing. */
export function checkParam(at: At, param: Param, value: unknown, options: IDataObject): unknown {
	const field = param.displayName;
	if (!param.required && isEmpty(value)) return undefined;
	switch (param.kind) {
		case 'chat':
			return checkChat(at, field, value);
		case 'user':
			return checkUuid(at, field, value, 'user');
		case 'media':
			return checkUuid(at, field, value, 'media file');
		case 'messageId':
			if (isEmpty(value)) throw inputError(at, field, 'is required: the sequence number of the message');
			return checkInteger(at, field, value, param);
		case 'integer':
			return checkInteger(at, field, value, param);
		case 'boolean':
			return checkBoolean(at, field, value);
		case 'text': {
			const text = checkText(at, field, value, param, options);
			return !param.required && text === '' ? undefined : text;
		}
		case 'parseMode':
			return checkParseMode(at, field, value, param.values ?? []);
		case 'entities':
			return checkEntityList(at, field, value);
		case 'chatAction':
			return checkOneOf(at, field, value, param.values ?? []);
		case 'url':
			return checkUrl(at, field, value, param.webhookUrl === true);
		case 'secretToken':
			return checkSecretToken(at, field, value);
		case 'updateTypes':
			return checkUpdateTypes(at, field, value);
		case 'languageCode':
			return checkLanguageCode(at, field, value);
		case 'commands':
		case 'replyMarkup':
			// Read from their own fields (readBody).
			return undefined;
	}
}

/** A resource locator value `{__rl, mode, value}` or a plain value (older JSON, AI tools). */
function readChat(item: ItemContext, param: Param): unknown {
	const raw = nodeParameter(item.ctx, fieldName(param), item.itemIndex, '');
	if (!isObject(raw) || !('value' in raw)) return raw;
	const { mode, value } = raw as { mode?: unknown; value?: unknown };
	// In Username mode a missing `@` is added.
	if (mode === 'username' && typeof value === 'string') {
		const trimmed = value.trim();
		return trimmed === '' || trimmed.startsWith('@') ? trimmed : `@${trimmed}`;
	}
	return value;
}

/** Reads and checks one parameter of an item; `undefined` sends nothing. */
export function readParam(item: ItemContext, at: At, param: Param, additional: IDataObject = {}): unknown {
	const { ctx, itemIndex } = item;
	if (param.kind === 'replyMarkup') return readReplyMarkup(item, at, param.markup ?? { kinds: 'any' });
	if (param.kind === 'commands') return readCommands(item, at, param);
	if (param.removable && nodeParameter(ctx, removalFieldName(param), itemIndex, 'set') === 'remove') return '';
	const raw = additionalFieldsOf(param)
		? additional[fieldName(param)]
		: param.kind === 'chat'
			? readChat(item, param)
			: nodeParameter(ctx, fieldName(param), itemIndex, '');
	return checkParam(at, param, raw, item.options);
}

/**
 * Reads and checks the request body of one item. Throws `NodeOperationError` naming the item and
 * the field before anything is sent.
 */
export function readBody(item: ItemContext, method: Method, version: number): IDataObject {
	const { ctx, itemIndex } = item;
	const at: At = { node: ctx.getNode(), itemIndex };
	const params = method.params.filter((param) => isInVersion(param, version));
	const additional = params.some((param) => additionalFieldsOf(param))
		? (nodeParameter(ctx, 'additionalFields', itemIndex, {}) as IDataObject)
		: {};
	const body: IDataObject = {};
	for (const param of params) {
		const value = readParam(item, at, param, additional);
		if (value !== undefined) body[param.name] = value as IDataObject[keyof IDataObject];
	}
	return body;
}
