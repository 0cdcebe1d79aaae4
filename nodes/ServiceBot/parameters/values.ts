/**
 * The kinds with one plain field and a check of their own: IDs, numbers, flags, choices, URLs,
 * secrets, update types and language codes. Each entry is the kind's field and its reader.
 */
import { LIMITS, UPDATE_TYPES, UUID_PATTERN } from '../../shared/spec';
import type { At } from './errors';
import { inputError, show } from './errors';
import { readJson } from './json';
import type { ParamKindDefinition } from './kind';
import { baseField } from './kind';
import type { Param, ParamKind } from './param';
import { isEmpty } from './param';
import { readIdText } from './idText';
import { readText } from './text';

/** ISO 639 code, optionally with a region (`en`, `pt-br`); what Telegram-compatible services accept. */
const LANGUAGE_CODE = /^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$/;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

function title(value: string): string {
	return value
		.split('_')
		.map((word) => word.charAt(0).toUpperCase() + word.slice(1))
		.join(' ');
}

/**
 * Where an ID of a kind comes from, said when a number was given: IDs on Telegram are numbers, and a
 * number is what a user who knows Telegram's bots enters first.
 */
const UUID_SOURCES: Record<string, string> = {
	user: "User IDs of this service are UUIDs, not numbers as on Telegram: map {{ $json.user_id }} from the Service Bot Trigger's output (as an expression)",
	'media file': "Media IDs of this service are UUIDs, not numbers: map the file_id of a received or sent file, e.g. {{ $json.file_id }} after a send (as an expression)",
};

export function checkUuid(at: At, field: string, value: unknown, what: string): string {
	const text = readIdText(at, field, value);
	if (text === '') throw inputError(at, field, `is required: the ${what} UUID`);
	if (UUID_PATTERN.test(text)) return text;
	const source = /^[-+]?\d+$/.test(text) ? UUID_SOURCES[what] : undefined;
	throw inputError(at, field, `${show(text)} is not a ${what} UUID${source ? `. ${source}` : ''}`);
}

export function checkInteger(at: At, field: string, value: unknown, param: Param): number {
	let number: number;
	if (typeof value === 'number') number = value;
	else if (typeof value === 'string' && /^\s*[-+]?\d+\s*$/.test(value)) number = Number(value);
	else throw inputError(at, field, `${show(value)} is not a whole number`);
	if (!Number.isSafeInteger(number)) throw inputError(at, field, `${show(value)} is not a whole number`);
	if (param.min !== undefined && number < param.min) throw inputError(at, field, `${number} is too small, the minimum is ${param.min}`);
	if (param.max !== undefined && number > param.max) throw inputError(at, field, `${number} is too large, the maximum is ${param.max}`);
	return number;
}

function checkBoolean(at: At, field: string, value: unknown): boolean {
	if (typeof value === 'boolean') return value;
	if (value === 'true') return true;
	if (value === 'false') return false;
	throw inputError(at, field, `${show(value)} is not true or false`);
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

const uuidKind = (what: string): ParamKindDefinition => ({
	fields: (param) => [{ ...baseField(param), type: 'string', default: '', placeholder: 'e.g. 3f2b9c1e-6d4a-4f8b-9a1c-2e7d5b8f0a64' }],
	read: (value, param, { at }) => checkUuid(at, param.displayName, value, what),
});

export const VALUE_KINDS = {
	user: uuidKind('user'),
	fileId: uuidKind('media file'),
	integer: {
		fields: (param) => [
			{
				...baseField(param),
				type: 'number',
				default: param.serviceDefault ?? param.min ?? 0,
				typeOptions: {
					numberPrecision: 0,
					...(param.min !== undefined ? { minValue: param.min } : {}),
					...(param.max !== undefined ? { maxValue: param.max } : {}),
				},
			},
		],
		read: (value, param, { at }) => checkInteger(at, param.displayName, value, param),
	},
	boolean: {
		fields: (param) => [{ ...baseField(param), type: 'boolean', default: false }],
		read: (value, param, { at }) => checkBoolean(at, param.displayName, value),
	},
	chatAction: {
		fields(param) {
			const values = param.values ?? [];
			return [{ ...baseField(param), type: 'options', options: values.map((action) => ({ name: title(action), value: action })), default: values[0] }];
		},
		read: (value, param, { at }) => checkOneOf(at, param.displayName, value, param.values ?? []),
	},
	url: {
		fields: (param) => [{ ...baseField(param), type: 'string', default: '' }],
		read: (value, param, { at }) => checkUrl(at, param.displayName, value, param.webhookUrl === true),
	},
	secretToken: {
		fields: (param) => [{ ...baseField(param), type: 'string', typeOptions: { password: true }, default: '' }],
		read: (value, param, { at }) => checkSecretToken(at, param.displayName, value),
	},
	updateTypes: {
		fields: (param) => [
			{ ...baseField(param), type: 'multiOptions', options: UPDATE_TYPES.map((type) => ({ name: title(type), value: type })), default: [] },
		],
		read: (value, param, { at }) => checkUpdateTypes(at, param.displayName, value),
	},
	languageCode: {
		fields: (param) => [{ ...baseField(param), type: 'string', default: '', placeholder: 'e.g. en' }],
		read: (value, param, { at }) => checkLanguageCode(at, param.displayName, value),
	},
} satisfies Partial<Record<ParamKind, ParamKindDefinition>>;
