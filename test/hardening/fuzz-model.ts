/**
 * The input model of the parameter fuzzing; not a test file itself.
 *
 * Every method of the spec becomes one or more `Variant`s of the Service Bot node: node parameters
 * in which each fuzzed field is an expression reading the input item (`={{ $json.<key> }}`), and
 * for each field a generator of values the node must accept and one of values it must reject,
 * naming that field. Which values are valid comes only from the spec's transcription (test/spec.ts:
 * the method's wire parameters, their kinds and limits, and the marked Telegram conventions and
 * package rules); the node's description is read only to find the editor field of each wire
 * parameter (its name, its label, whether it sits under Additional Fields). An invalid item is a
 * valid item with exactly one field broken.
 */
import fc from 'fast-check';
import type { IDataObject, INodeParameters, INodeProperties } from 'n8n-workflow';

import { fieldName, shownFor } from '../harness/action-node';
import {
	BUTTON_URL_SCHEMES,
	CHAT_ACTIONS,
	LIMITS,
	METHODS,
	PACKAGE_RULES,
	PARSE_MODES,
	UPDATE_TYPES,
	UUID,
	WEBHOOK_PORTS,
	type SpecMethod,
	type ValueKind,
	type WireParam,
} from '../spec';

type Arb = fc.Arbitrary<unknown>;
/** The item fields one field model sets. */
type Patch = IDataObject;

export interface FieldModel {
	/** How the node names the field in its error: "Item 3: <label>: …" or "Item 3: <label> → …". */
	readonly label: string;
	readonly valid: fc.Arbitrary<Patch>;
	readonly invalid: fc.Arbitrary<Patch>;
}

export interface Variant {
	readonly name: string;
	readonly resource: string;
	readonly operation: string;
	readonly parameters: INodeParameters;
	readonly fields: readonly FieldModel[];
}

export interface InvalidItem {
	readonly json: IDataObject;
	readonly label: string;
}

// ---------------------------------------------------------------- oracles (test/spec.ts)

const USERNAME = PACKAGE_RULES.username;
const INTEGER_TEXT = PACKAGE_RULES.integerText;
const SECRET = LIMITS.secretToken.pattern;
const LANGUAGE = PACKAGE_RULES.languageCode;
const LOOPBACK = PACKAGE_RULES.localWebhookHosts;
const COMMAND_NAME = LIMITS.commandName;

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8');
const isChatId = (text: string): boolean => UUID.test(text.trim()) || USERNAME.test(text.trim());
const isCommandName = (text: string): boolean =>
	text.length >= COMMAND_NAME.min && text.length <= COMMAND_NAME.max && COMMAND_NAME.pattern.test(text);

function parsedUrl(text: string): URL | undefined {
	try {
		return new URL(text);
	} catch {
		return undefined;
	}
}

function isHttpUrl(text: string): boolean {
	const url = parsedUrl(text.trim());
	return url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

function isWebhookUrl(text: string): boolean {
	if (!isHttpUrl(text)) return false;
	const url = new URL(text.trim());
	if (LOOPBACK.includes(url.hostname.toLowerCase())) return true;
	return url.protocol === 'https:' && WEBHOOK_PORTS.includes(url.port === '' ? 443 : Number(url.port));
}

function isButtonUrl(text: string): boolean {
	const url = parsedUrl(text);
	return text === text.trim() && url !== undefined && BUTTON_URL_SCHEMES.includes(url.protocol) && text.length > url.protocol.length;
}

function isJsonText(text: string): boolean {
	try {
		JSON.parse(text);
		return true;
	} catch {
		return false;
	}
}

// ---------------------------------------------------------------- building blocks

/** JSON values as n8n items hold them (JSON.parse never makes null-prototype objects). */
const plainJson = (constraints: fc.JsonSharedConstraints): fc.Arbitrary<unknown> =>
	fc.jsonValue(constraints).map((value) => JSON.parse(JSON.stringify(value)) as unknown);

const PAD = fc.constantFrom('', ' ', '  ', '\t', '\n', ' \r\n');
const padded = (arb: fc.Arbitrary<string>): fc.Arbitrary<string> =>
	fc.tuple(PAD, arb, PAD).map(([before, text, after]) => `${before}${text}${after}`);
/** What the node reads as "not given". */
const ABSENT: Arb = fc.constantFrom(undefined, null, '');
/** Any code points, control characters and astral planes included. */
const ANY_TEXT = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: 'grapheme-ascii', maxLength: 40 }));
/** Numbers that are no text at all: an expression that computed NaN must not become the text "NaN". */
const NOT_FINITE: Arb = fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY);
const NUMBERS: Arb = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), NOT_FINITE, fc.constant(-0));
/** Objects and arrays: never text, never a number. */
const STRUCTURES: Arb = fc.oneof(
	fc.constant({}),
	fc.constant([]),
	fc.array(plainJson({ maxDepth: 2 }), { minLength: 1, maxLength: 3 }),
	fc.dictionary(fc.string({ maxLength: 6 }), plainJson({ maxDepth: 2 }), { minKeys: 1, maxKeys: 3, noNullPrototype: true }),
);
const WRONG_TYPES: Arb = fc.oneof(fc.boolean(), NUMBERS, STRUCTURES);

/** A text of at least `min` UTF-16 units made of one repeated unit (long texts, cheaply). */
const repeatedTo = (min: number): fc.Arbitrary<string> =>
	fc
		.tuple(fc.integer({ min: 0, max: 60 }), fc.constantFrom('x', 'é', '😀', ' ', '\n', '<b>', '\u0000'))
		.map(([extra, unit]) => unit.repeat(Math.ceil((min + extra) / unit.length)));

const field = (label: string, key: string, valid: Arb, invalid: Arb): FieldModel => ({
	label,
	valid: valid.map((value): Patch => ({ [key]: value as IDataObject[string] })),
	invalid: invalid.map((value): Patch => ({ [key]: value as IDataObject[string] })),
});

// ---------------------------------------------------------------- per kind

const uuidText = fc.mixedCase(fc.uuid());
const usernameText = fc.stringMatching(USERNAME);

/** Near misses of a UUID: a character dropped, added or replaced, dashes moved, braces. */
const uuidNearMiss = fc
	.tuple(fc.uuid(), fc.nat(35), fc.constantFrom('g', 'z', '-', ' ', 'ä', '0', '_'), fc.nat(5))
	.map(([uuid, at, char, how]) => {
		switch (how) {
			case 0:
				return uuid.slice(0, at) + uuid.slice(at + 1);
			case 1:
				return uuid.slice(0, at) + char + uuid.slice(at);
			case 2:
				return uuid.slice(0, at) + char + uuid.slice(at + 1);
			case 3:
				return uuid.replace(/-/g, '');
			case 4:
				return `{${uuid}}`;
			default:
				return uuid.replace(/-/g, '_');
		}
	});

const usernameNearMiss = fc.oneof(
	fc.constantFrom('@', '@@demo', 'demo_group', '@demo-group', '@demo group', '@demo.group', '@dému', '＠demo', '#demo'),
	fc.stringMatching(/^@[A-Za-z0-9_]{65,80}$/),
	fc.tuple(usernameText, fc.constantFrom('-', ' ', '.', '!', 'é', '/', '?', '\u0000')).map(([name, char]) => `${name}${char}x`),
);

function chatModel(node: NodeField): FieldModel {
	const invalid = fc.oneof(
		ABSENT,
		ANY_TEXT.filter((text) => !isChatId(text)),
		uuidNearMiss.filter((text) => !isChatId(text)),
		usernameNearMiss.filter((text) => !isChatId(text)),
		WRONG_TYPES,
	);
	return field(node.label, node.name, padded(fc.oneof(uuidText, usernameText)), invalid);
}

function uuidModel(node: NodeField): FieldModel {
	const invalid = fc.oneof(
		ABSENT,
		ANY_TEXT.filter((text) => !UUID.test(text.trim())),
		uuidNearMiss.filter((text) => !UUID.test(text.trim())),
		usernameText,
		WRONG_TYPES,
	);
	return field(node.label, node.name, padded(uuidText), invalid);
}

function integerModel(param: WireParam, node: NodeField): FieldModel {
	// A message identifier is a sequence number (spec part 1.5): from 1.
	const bounds: { min?: number; max?: number } = param.kind === 'messageId' ? { min: 1 } : param;
	const low = bounds.min ?? Number.MIN_SAFE_INTEGER;
	const high = bounds.max ?? Number.MAX_SAFE_INTEGER;
	const inRange = fc.oneof(fc.integer({ min: low, max: high }), fc.constantFrom(low, high));
	const valid = fc.oneof(
		inRange,
		inRange.chain((n) => padded(fc.constantFrom(String(n), n >= 0 ? `+${n}` : String(n)))),
		...(param.required ? [] : [ABSENT]),
	);
	const outside: Arb[] = [];
	if (bounds.min !== undefined) {
		const below = fc.integer({ min: Number.MIN_SAFE_INTEGER, max: bounds.min - 1 });
		outside.push(below, below.map(String), fc.constant(bounds.min - 1));
	}
	if (bounds.max !== undefined) {
		const above = fc.integer({ min: bounds.max + 1, max: Number.MAX_SAFE_INTEGER });
		outside.push(above, above.map(String), fc.constant(bounds.max + 1));
	}
	const invalid = fc.oneof(
		...outside,
		fc.double().filter((value) => !Number.isSafeInteger(value)),
		fc.constantFrom(2 ** 53, -(2 ** 53), '9007199254740993', '1e3', '0x1F', '1.0', '1.5', '١٢', '12a', '+-1', ' ', 'one', '--1'),
		ANY_TEXT.filter((text) => text !== '' && !INTEGER_TEXT.test(text)),
		fc.boolean(),
		STRUCTURES,
		...(param.required ? [ABSENT] : []),
	);
	return field(node.label, node.name, valid, invalid);
}

function booleanModel(node: NodeField): FieldModel {
	return field(
		node.label,
		node.name,
		fc.constantFrom(true, false, 'true', 'false', undefined, null, ''),
		fc.oneof(
			ANY_TEXT.filter((text) => !['true', 'false', ''].includes(text)),
			fc.constantFrom('TRUE', 'False', 'yes', 'no', '1', '0', ' true'),
			NUMBERS,
			STRUCTURES,
		),
	);
}

function textModel(param: WireParam, node: NodeField): FieldModel {
	const min = param.min ?? 0;
	const { max } = param;
	// An issued ID (test/spec.ts) holds no whitespace, braces or `$`; one that does is what an expression left.
	const leftover = (text: string): boolean => param.issuedId === true && /[\s{}$]/u.test(text);
	const fits = (text: string): boolean => text.length >= min && (max === undefined || text.length <= max) && !leftover(text);
	const valid = fc.oneof(
		fc.string({ unit: 'grapheme', minLength: min, maxLength: Math.min(max ?? 120, 120) }).filter(fits),
		ANY_TEXT.filter(fits),
		...(max !== undefined ? [fc.constantFrom('x'.repeat(max), `${'😀'.repeat(Math.floor(max / 2))}`)] : []),
		fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })).filter((value) => fits(String(value))),
		...(min === 0 ? [ABSENT] : []),
	);
	const invalid = fc.oneof(
		...(max !== undefined ? [repeatedTo(max + 1)] : []),
		...(min > 0 ? [ABSENT] : []),
		...(param.issuedId ? [fc.constantFrom('{{ json.callback_query_id }}$ }}', 'abc def', '$json.id', ' \t ')] : []),
		NOT_FINITE,
		STRUCTURES,
	);
	return field(node.label, node.name, valid, invalid);
}

function parseModeModel(param: WireParam, node: NodeField): FieldModel {
	const allowed = param.parseModes ?? PARSE_MODES;
	const accepted = (text: string): boolean => {
		const trimmed = text.trim().toLowerCase();
		return trimmed === '' || trimmed === 'none' || allowed.some((mode) => mode.toLowerCase() === trimmed);
	};
	return field(
		node.label,
		node.name,
		fc.oneof(ABSENT, padded(fc.mixedCase(fc.constantFrom('none', ...allowed)))),
		fc.oneof(
			ANY_TEXT.filter((text) => !accepted(text)),
			fc.constantFrom('Markdown2', 'HTML5', 'markdown v2', 'md', 'Mark down', ...PARSE_MODES.filter((mode) => !allowed.includes(mode))),
			fc.boolean(),
			NUMBERS,
			STRUCTURES,
		),
	);
}

const entityArb = fc.record({
	type: fc.constantFrom('bold', 'italic', 'code', 'url', 'text_link'),
	offset: fc.nat(1000),
	length: fc.integer({ min: 1, max: 100 }),
}, { noNullPrototype: true });
const badEntity: Arb = fc.oneof(
	fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.array(fc.integer(), { maxLength: 2 })),
	entityArb.chain((entity) =>
		fc.oneof(
			fc.constant({ offset: entity.offset, length: entity.length }),
			fc.constant({ type: entity.type, length: entity.length }),
			fc.constant({ type: entity.type, offset: entity.offset }),
			fc.oneof(fc.integer(), fc.constant(null), STRUCTURES).map((type) => ({ ...entity, type })),
			fc.oneof(fc.double().filter((x) => !Number.isInteger(x)), fc.string(), fc.constant(null)).map((offset) => ({ ...entity, offset })),
			fc.oneof(fc.double().filter((x) => !Number.isInteger(x)), fc.string(), fc.constant(null)).map((length) => ({ ...entity, length })),
		),
	),
);

function entitiesModel(node: NodeField): FieldModel {
	const list = fc.array(entityArb, { maxLength: 3 });
	const badList = fc
		.tuple(list, badEntity, fc.nat())
		.map(([entities, bad, at]) => [...entities.slice(0, at % (entities.length + 1)), bad, ...entities.slice(at % (entities.length + 1))]);
	return field(
		node.label,
		node.name,
		fc.oneof(ABSENT, fc.constantFrom('[]', 'null', '  '), list, list.map((entities) => JSON.stringify(entities))),
		fc.oneof(
			ANY_TEXT.filter((text) => text.trim() !== '' && !isJsonText(text.trim())),
			plainJson({ maxDepth: 2 }).filter((value) => value !== null && !Array.isArray(value)).map((value) => JSON.stringify(value)),
			badList,
			badList.map((entities) => JSON.stringify(entities)),
			fc.boolean(),
			fc.integer(),
			fc.dictionary(fc.string({ maxLength: 5 }), plainJson({ maxDepth: 1 }), { maxKeys: 3, noNullPrototype: true }),
		),
	);
}

function chatActionModel(node: NodeField): FieldModel {
	const actions: readonly string[] = CHAT_ACTIONS;
	return field(
		node.label,
		node.name,
		padded(fc.constantFrom(...CHAT_ACTIONS)),
		fc.oneof(
			ABSENT,
			ANY_TEXT.filter((text) => !actions.includes(text.trim())),
			fc.mixedCase(fc.constantFrom(...CHAT_ACTIONS)).filter((text) => !actions.includes(text)),
			fc.constantFrom('upload_audio', 'record_audio', 'typing…', 'choose-sticker', 'find location'),
			WRONG_TYPES,
		),
	);
}

const host = fc.domain();
const path = fc.webPath();

function urlModel(param: WireParam, node: NodeField): FieldModel {
	const webhook = param.kind === 'webhookUrl';
	const accepted = webhook ? isWebhookUrl : isHttpUrl;
	const valid = webhook
		? fc.oneof(
				fc
					.tuple(host, fc.constantFrom('', ':443', ':80', ':8080', ':8443'), path)
					.map(([name, port, rest]) => `https://${name}${port}${rest}`),
				fc
					.tuple(fc.constantFrom('http', 'https'), fc.constantFrom(...LOOPBACK), fc.integer({ min: 1, max: 65535 }), path)
					.map(([scheme, name, port, rest]) => `${scheme}://${name}:${port}${rest}`),
			)
		: fc.webUrl({ validSchemes: ['http', 'https'] });
	const otherScheme = fc
		.tuple(fc.constantFrom('ftp', 'javascript', 'file', 'ws', 'wss', 'service', 'data', 'mailto', 'tg'), fc.webUrl())
		.map(([scheme, url]) => url.replace(/^https?/, scheme));
	const invalid: Arb[] = [
		ANY_TEXT.filter((text) => text !== '' && !accepted(text)),
		otherScheme.filter((text) => !accepted(text)),
		fc.constantFrom('http://', 'https://', 'http:///x', '//example.com', 'example.com', 'www.example.com/x', 'https://exa mple.com', 'https://[::1'),
		WRONG_TYPES,
	];
	if (webhook) {
		invalid.push(
			fc.tuple(host, path).map(([name, rest]) => `http://${name}${rest}`),
			fc
				.tuple(host, fc.integer({ min: 1, max: 65535 }).filter((port) => !WEBHOOK_PORTS.includes(port)), path)
				.map(([name, port, rest]) => `https://${name}:${port}${rest}`),
		);
	}
	if (param.required) invalid.push(ABSENT);
	return field(
		node.label,
		node.name,
		fc.oneof(valid.filter(accepted), ...(param.required ? [] : [ABSENT])),
		fc.oneof(...invalid).filter((value) => typeof value !== 'string' || value === '' || !accepted(value)),
	);
}

function secretModel(node: NodeField): FieldModel {
	const { max } = LIMITS.secretToken;
	return field(
		node.label,
		node.name,
		fc.oneof(ABSENT, fc.stringMatching(new RegExp(`^[A-Za-z0-9_-]{1,${max}}$`)), fc.integer()),
		fc.oneof(
			fc.stringMatching(new RegExp(`^[A-Za-z0-9_-]{${max + 1},${max + 40}}$`)),
			ANY_TEXT.filter((text) => text !== '' && !SECRET.test(text)),
			fc.constantFrom(' ', 'abc ', 'a.b', 'a+b', 'a/b', 'a=b', 'ä'),
			fc.double().filter((value) => !Number.isFinite(value) || !SECRET.test(String(value))),
			STRUCTURES,
		),
	);
}

function updateTypesModel(node: NodeField): FieldModel {
	const types: readonly string[] = UPDATE_TYPES;
	const subset = fc.subarray([...UPDATE_TYPES]);
	const badEntry: Arb = fc.oneof(
		ANY_TEXT.filter((text) => !types.includes(text)),
		fc.constantFrom('Message', 'edited_message', 'callback-query', ' message', 'all', '*'),
		fc.integer(),
		fc.constant(null),
		fc.boolean(),
		STRUCTURES,
	);
	const badName = fc.oneof(
		ANY_TEXT.filter((text) => !text.includes(',') && text.trim() !== '' && !text.trim().startsWith('[') && !types.includes(text.trim())),
		fc.constantFrom('Message', 'edited_message', 'callback-query', 'all', '*', 'message callback_query'),
	);
	return field(
		node.label,
		node.name,
		fc.oneof(
			ABSENT,
			subset,
			subset.map((list) => list.join(', ')),
			subset.map((list) => JSON.stringify(list)),
		),
		fc.oneof(
			fc.tuple(subset, badEntry).map(([list, bad]) => [...list, bad]),
			fc.tuple(subset, badEntry).map(([list, bad]) => JSON.stringify([bad, ...list])),
			fc.tuple(subset, badName).map(([list, bad]) => [bad, ...list].join(',')),
			fc.constantFrom('[message', '[', "['message']", '[message, callback_query]'),
			fc.boolean(),
			NUMBERS,
			fc.dictionary(fc.string({ maxLength: 5 }), plainJson({ maxDepth: 1 }), { maxKeys: 3, noNullPrototype: true }),
		),
	);
}

function languageModel(node: NodeField): FieldModel {
	return field(
		node.label,
		node.name,
		fc.oneof(ABSENT, padded(fc.stringMatching(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8}){0,2}$/))),
		fc.oneof(
			ANY_TEXT.filter((text) => text.trim() !== '' && !LANGUAGE.test(text.trim())),
			fc.constantFrom('e', 'engl', '12', 'en-', 'en us', 'en--us', 'en_', 'ü', 'de-DE-', '-en'),
			fc.boolean(),
			NUMBERS,
			STRUCTURES,
		),
	);
}

// ---------------------------------------------------------------- commands

const commandEntry = fc.record({
	command: fc.stringMatching(new RegExp(`^/?[a-z0-9_]{${COMMAND_NAME.min},${COMMAND_NAME.max}}$`)),
	description: fc
		.string({ unit: 'grapheme', minLength: 1, maxLength: 40 })
		.filter((text) => text.trim().length >= 1 && text.trim().length <= LIMITS.commandDescription.max),
}, { noNullPrototype: true });
const commandList = fc.uniqueArray(commandEntry, { selector: (entry) => entry.command.replace(/^\//, ''), maxLength: 6 });
const badCommandName: Arb = fc.oneof(
	fc.stringMatching(new RegExp(`^[a-z0-9_]{${COMMAND_NAME.max + 1},${COMMAND_NAME.max + 8}}$`)),
	fc.constantFrom('', '/', 'Start', 'start-now', 'start now', 'старт', '/Start', '//start', null),
	ANY_TEXT.filter((text) => !isCommandName(text.trim().replace(/^\//, ''))),
	NOT_FINITE,
	STRUCTURES,
);
const badCommandDescription: Arb = fc.oneof(
	fc.constantFrom('', '   ', '\n', null),
	NOT_FINITE,
	repeatedTo(LIMITS.commandDescription.max + 1).filter((text) => text.trim().length > LIMITS.commandDescription.max),
	STRUCTURES,
);
const badCommandEntry: Arb = fc.oneof(
	fc.tuple(commandEntry, badCommandName).map(([entry, command]) => ({ ...entry, command })),
	fc.tuple(commandEntry, badCommandDescription).map(([entry, description]) => ({ ...entry, description })),
	fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.array(fc.string(), { maxLength: 2 })),
);
const badCommandList = fc.oneof(
	fc.tuple(commandList, badCommandEntry, fc.nat()).map(([list, bad, at]) => {
		const where = at % (list.length + 1);
		return [...list.slice(0, where), bad, ...list.slice(where)];
	}),
	commandList
		.filter((list) => list.length > 0)
		.map((list) => [...list, { command: `/${list[0].command.replace(/^\//, '')}`, description: 'again' }]),
	fc.integer({ min: LIMITS.commandsPerList.max + 1, max: LIMITS.commandsPerList.max + 10 }).map((count) =>
		Array.from({ length: count }, (_, index) => ({ command: `c${index}`, description: 'd' })),
	),
);

function commandVariants(method: SpecMethod, base: INodeParameters, others: FieldModel[]): Variant[] {
	const shown = [
		...shownFor(method.resource, method.name, { commandsInput: 'list' }),
		...shownFor(method.resource, method.name, { commandsInput: 'json' }),
	];
	const label = (name: string): string => nodeProperty(shown, name).displayName;
	// The list UI has one row per command, each field of which may be an expression: three rows here.
	const rows = [1, 2, 3];
	const entries = fc.uniqueArray(commandEntry, { selector: (entry) => entry.command.replace(/^\//, ''), minLength: 3, maxLength: 3 });
	const asPatch = (list: ReadonlyArray<{ command: unknown; description: unknown }>): Patch =>
		Object.fromEntries(
			list.flatMap((entry, index) => [
				[`command${index + 1}`, entry.command],
				[`description${index + 1}`, entry.description],
			]),
		) as Patch;
	const broken = fc.tuple(entries, fc.nat(2), fc.nat(2)).chain(([list, row, how]) =>
		(how === 0 ? badCommandName : how === 1 ? badCommandDescription : fc.constant(`/${list[(row + 1) % 3].command.replace(/^\//, '')}`)).map(
			(bad): Patch => {
				const copy: Array<{ command: unknown; description: unknown }> = list.map((entry) => ({ ...entry }));
				if (how === 1) copy[row].description = bad;
				else copy[row].command = bad;
				return asPatch(copy);
			},
		),
	);
	const list: Variant = {
		name: `${method.name} (commands as a list)`,
		resource: method.resource,
		operation: method.name,
		parameters: {
			...base,
			commandsInput: 'list',
			commands: {
				command: rows.map((row) => ({ command: `={{ $json.command${row} }}`, description: `={{ $json.description${row} }}` })),
			},
		},
		fields: [...others, { label: label('commands'), valid: entries.map(asPatch), invalid: broken }],
	};
	const json: Variant = {
		name: `${method.name} (commands as JSON)`,
		resource: method.resource,
		operation: method.name,
		parameters: { ...base, commandsInput: 'json', commandsJson: '={{ $json.commandsJson }}' },
		fields: [
			...others,
			field(
				label('commandsJson'),
				'commandsJson',
				fc.oneof(
					commandList,
					commandList.map((entries) => JSON.stringify(entries)),
					commandList.map((entries) => JSON.stringify({ commands: entries })),
					fc.constantFrom('', 'null', '[]'),
				),
				fc.oneof(
					badCommandList,
					badCommandList.map((entries) => JSON.stringify(entries)),
					ANY_TEXT.filter((text) => text.trim() !== '' && !isJsonText(text.trim())),
					fc
						.jsonValue({ maxDepth: 2 })
						.filter((value) => value !== null && !Array.isArray(value) && !(typeof value === 'object' && 'commands' in value))
						.map((value) => JSON.stringify(value)),
					fc.constantFrom('{}', '{"commands": 5}', 'true', '"start"', '[{"command": "start"}]'),
					fc.boolean(),
					fc.integer(),
				),
			),
		],
	};
	return [list, json];
}

// ---------------------------------------------------------------- keyboards

const buttonText = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 24 }).filter((text) => text.length >= 1 && text.length <= 128);
const callbackData = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 16 }).filter((data) => utf8(data) >= 1 && utf8(data) <= 64);
const buttonUrl = fc
	.oneof(fc.webUrl({ validSchemes: ['http', 'https'] }), fc.webUrl().map((url) => url.replace(/^https?/, 'service')))
	.filter(isButtonUrl);
const inlineButton = fc.oneof(
	fc.record({ text: buttonText, callback_data: callbackData }, { noNullPrototype: true }),
	fc.record({ text: buttonText, url: buttonUrl }, { noNullPrototype: true }),
	fc.record({ text: buttonText, switch_inline_query: fc.string({ maxLength: 20 }) }, { noNullPrototype: true }),
);
type Rows = unknown[][];
const inlineRows: fc.Arbitrary<Rows> = fc.oneof(
	fc.array(fc.array(inlineButton, { minLength: 1, maxLength: LIMITS.buttonsPerRow.max }), { minLength: 1, maxLength: 4 }).map((rows): Rows => rows),
	fc.constant<Rows>(Array.from({ length: LIMITS.inlineKeyboardRows.max }, (_, index) => [{ text: `${index}`, callback_data: `${index}` }])),
	fc.constant<Rows>([[{ text: 'x'.repeat(LIMITS.inlineButtonText.max), callback_data: 'é'.repeat(LIMITS.callbackDataBytes.max / 2) }]]),
);
const badInlineButton: Arb = fc.oneof(
	fc.tuple(inlineButton, fc.constantFrom('', null, 5, {}, 'x'.repeat(LIMITS.inlineButtonText.max + 1))).map(([button, text]) => ({ ...button, text })),
	buttonText.map((text) => ({ text })),
	buttonText.map((text) => ({ text, callbackData: 'x' })),
	fc.tuple(buttonText, callbackData, buttonUrl).map(([text, data, url]) => ({ text, callback_data: data, url })),
	fc
		.tuple(buttonText, fc.oneof(fc.constantFrom('', 'x'.repeat(65), 'é'.repeat(33), '😀'.repeat(17)), fc.integer(), fc.boolean()))
		.map(([text, data]) => ({ text, callback_data: data })),
	fc
		.tuple(buttonText, fc.constantFrom('ftp://x.org', 'javascript:alert(1)', ' https://x.org', 'https://x.org ', 'notaurl', 'https:', 'tg://resolve', 5))
		.map(([text, url]) => ({ text, url })),
	fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.array(fc.string(), { maxLength: 2 })),
);
const badInlineRows: Arb = fc.oneof(
	fc.tuple(inlineRows, badInlineButton, fc.nat(), fc.nat()).map(([rows, bad, r, b]) => {
		const copy = rows.map((row) => [...row]);
		const row = copy[r % copy.length];
		row.splice(b % (row.length + 1), 0, bad);
		return copy;
	}),
	fc.integer({ min: LIMITS.inlineKeyboardRows.max + 1, max: LIMITS.inlineKeyboardRows.max + 5 }).map((count) =>
		Array.from({ length: count }, () => [{ text: 'a', callback_data: 'a' }]),
	),
	fc.integer({ min: LIMITS.buttonsPerRow.max + 1, max: 12 }).map((count) => [
		Array.from({ length: count }, (_, index) => ({ text: `b${index}`, callback_data: `${index}` })),
	]),
	inlineRows.map((rows) => [...rows, []]),
	inlineRows.map((rows) => [...rows, { text: 'not in a row', callback_data: 'x' }]),
	inlineButton.map((button) => [button]),
	fc.constant([]),
);

/** PACKAGE_RULES.noKeyboardJson: a JSON keyboard that gives nothing (as a value or as JSON text) sends no markup. */
function givesNoKeyboard(value: unknown): boolean {
	let parsed = value;
	if (typeof value === 'string') {
		if (value.trim() === '') return true;
		try {
			parsed = JSON.parse(value);
		} catch {
			return false;
		}
	}
	return parsed === undefined || PACKAGE_RULES.noKeyboardJson.some((nothing) => JSON.stringify(nothing) === JSON.stringify(parsed));
}

/** Keyboards in JSON mode: the item's `keyboard`, errors named after the Reply Markup field (`label`). */
function keyboardField(label: string, good: Arb, bad: Arb): FieldModel {
	const nothing = fc.constantFrom<unknown>(...PACKAGE_RULES.noKeyboardJson, '   ', '[]', '{}', 'null');
	return field(label, 'keyboard', fc.oneof(good, nothing), bad.filter((value) => !givesNoKeyboard(value)));
}

const inlineKeyboardField = (label: string): FieldModel =>
	keyboardField(
		label,
		fc.oneof(
			inlineRows,
			inlineRows.map((rows) => ({ inline_keyboard: rows })),
			inlineRows.map((rows) => JSON.stringify(rows)),
			inlineRows.map((rows) => JSON.stringify({ inline_keyboard: rows })),
		),
		fc.oneof(
			badInlineRows,
			badInlineRows.map((rows) => JSON.stringify(rows)),
			badInlineRows.map((rows) => ({ inline_keyboard: rows })),
			ANY_TEXT.filter((text) => !isJsonText(text)),
			fc.constantFrom('', '   ', null, '{"inline_keyboard": [[{"text": "a", "callback_data": "a"}]]', "[[{'text': 'a'}]]"),
			fc.constantFrom<unknown>(
				{ keyboard: [['a']] },
				{ remove_keyboard: true },
				{ force_reply: true },
				{},
				{ inline_keyboard: [[{ text: 'a', callback_data: 'a' }]], keyboard: [['a']] },
			),
			fc.boolean(),
			NUMBERS,
		),
	);

const replyText = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 24 }).filter((text) => text.length > 0);
const replyRows = fc.array(fc.array(fc.oneof(replyText, replyText.map((text) => ({ text }))), { minLength: 1, maxLength: 10 }), {
	minLength: 1,
	maxLength: 5,
});
const badReplyButton: Arb = fc.oneof(
	fc.constantFrom('', null, 5, true, { text: '' }, { text: 5 }, { label: 'x' }, ['x']),
);

const replyKeyboardField = (label: string): FieldModel =>
	keyboardField(
		label,
		fc.oneof(
			replyRows,
			fc
				.tuple(replyRows, fc.option(fc.boolean(), { nil: undefined }), fc.option(fc.boolean(), { nil: undefined }))
				.map(([rows, resize, oneTime]) => ({
					keyboard: rows,
					...(resize === undefined ? {} : { resize_keyboard: resize }),
					...(oneTime === undefined ? {} : { one_time_keyboard: oneTime }),
				})),
			replyRows.map((rows) => JSON.stringify(rows)),
		),
		fc.oneof(
			fc.tuple(replyRows, badReplyButton, fc.nat()).map(([rows, bad, at]) => {
				const copy: unknown[][] = rows.map((row) => [...row]);
				copy[at % copy.length].push(bad);
				return copy;
			}),
			replyRows.map((rows) => [...rows, []]),
			replyRows.map((rows) => [...rows, 'not a row']),
			fc.tuple(replyRows, fc.constantFrom('yes', 1, null, 'true')).map(([rows, flag]) => ({ keyboard: rows, resize_keyboard: flag })),
			fc.constantFrom<unknown>([], '', { inline_keyboard: [[{ text: 'a', callback_data: 'a' }]] }, { keyboard: 'a' }, {}),
			ANY_TEXT.filter((text) => !isJsonText(text)),
			NUMBERS,
		),
	);

const gridLabel = fc
	.string({ unit: 'grapheme', minLength: 1, maxLength: 16 })
	// Room for the templates' extra characters ("{index}-{label}") within the 64-byte callback_data limit.
	.filter((label) => label.trim() !== '' && utf8(label.trim()) <= LIMITS.callbackDataBytes.max - 8 && label.trim().length <= 128);
const GRID_TEMPLATES = ['{label}', 'pick:{index}', 'r{row}c{column}', '{index}-{label}'];

/** Auto grid: labels, columns and the callback template are one field, as their limits depend on each other. */
function gridField(label: string): FieldModel {
	const columns = fc.integer({ min: LIMITS.buttonsPerRow.min, max: LIMITS.buttonsPerRow.max });
	const valid = fc
		.tuple(columns, fc.array(gridLabel, { minLength: 1, maxLength: 30 }), fc.constantFrom(...GRID_TEMPLATES), fc.boolean())
		.map(
			([count, labels, template, asText]): Patch => ({
				gridColumns: asText ? String(count) : count,
				gridLabels: labels,
				gridCallbackData: template,
			}),
		);
	const validLabels = fc.array(gridLabel, { minLength: 1, maxLength: 30 });
	const invalid = fc.oneof(
		fc
			.tuple(
				fc.oneof(
					fc.integer({ min: -5, max: LIMITS.buttonsPerRow.min - 1 }),
					fc.integer({ min: LIMITS.buttonsPerRow.max + 1, max: 1000 }),
					fc.double().filter((value) => !Number.isInteger(value)),
					fc.constantFrom<unknown>('abc', '', ' ', null, true, {}, [2], '2.5'),
				),
				validLabels,
			)
			.map(([count, labels]): Patch => ({ gridColumns: count as IDataObject[string], gridLabels: labels, gridCallbackData: '{label}' })),
		fc
			.tuple(
				columns,
				fc.oneof(
					fc.constantFrom<unknown>([], '', null, '  ', [' ', ''], ','),
					fc.tuple(validLabels, fc.oneof(fc.constant({ name: 'x' }), fc.constant([1]))).map(([labels, bad]) => [...labels, bad]),
				),
			)
			.map(([count, labels]): Patch => ({ gridColumns: count, gridLabels: labels as IDataObject[string], gridCallbackData: '{label}' })),
		columns.map(
			(count): Patch => ({
				gridColumns: count,
				gridLabels: Array.from({ length: count * LIMITS.inlineKeyboardRows.max + 1 }, (_, index) => `L${index}`),
				gridCallbackData: '{label}',
			}),
		),
		fc
			.tuple(columns, validLabels, fc.constantFrom('{lable}', '{x}', 'x'.repeat(65), `{label}${'é'.repeat(40)}`, '{Label}'))
			.map(([count, labels, template]): Patch => ({ gridColumns: count, gridLabels: labels, gridCallbackData: template })),
		fc
			.tuple(columns, validLabels, fc.constantFrom('y'.repeat(65), 'ü'.repeat(33), 'z'.repeat(129)))
			.map(([count, labels, long]): Patch => ({ gridColumns: count, gridLabels: [...labels, long], gridCallbackData: '{label}' })),
	);
	return { label, valid, invalid };
}

// ---------------------------------------------------------------- variants

/** The editor field of one wire parameter, found in the node's description. */
interface NodeField {
	/** The node parameter's name: also the input item's key for it. */
	readonly name: string;
	/** Its display name, which the node's errors name. */
	readonly label: string;
	readonly underAdditionalFields: boolean;
}

function nodeProperty(shown: readonly INodeProperties[], name: string): INodeProperties {
	const found = shown.find((property) => property.name === name);
	if (!found) throw new Error(`the node shows no field ${name}`);
	return found;
}

function nodeFieldOf(method: SpecMethod, shown: readonly INodeProperties[], param: WireParam): NodeField {
	const name = fieldName(param.name);
	const top = shown.find((property) => property.name === name);
	if (top) return { name, label: top.displayName, underAdditionalFields: false };
	const additional = (shown.find((property) => property.name === 'additionalFields')?.options ?? []) as INodeProperties[];
	const optional = additional.find((property) => property.name === name);
	if (optional) return { name, label: optional.displayName, underAdditionalFields: true };
	throw new Error(`the node shows no field for ${method.name}'s ${param.name} (looked for ${name})`);
}

/** Kinds with a UI of their own (the keyboard modes, the command list): they get variants of their own. */
const OWN_VARIANTS: readonly ValueKind[] = ['commands', 'replyMarkup', 'inlineKeyboard'];

function modelOf(param: WireParam, node: NodeField): FieldModel {
	switch (param.kind) {
		case 'chat':
			return chatModel(node);
		case 'uuid':
			return uuidModel(node);
		case 'messageId':
		case 'integer':
			return integerModel(param, node);
		case 'boolean':
			return booleanModel(node);
		case 'text':
			return textModel(param, node);
		case 'parseMode':
			return parseModeModel(param, node);
		case 'entities':
			return entitiesModel(node);
		case 'chatAction':
			return chatActionModel(node);
		case 'url':
		case 'webhookUrl':
			return urlModel(param, node);
		case 'secretToken':
			return secretModel(node);
		case 'updateTypes':
			return updateTypesModel(node);
		case 'languageCode':
			return languageModel(node);
		case 'commands':
		case 'replyMarkup':
		case 'inlineKeyboard':
			throw new Error(`${param.name} has variants of its own`);
	}
}

function methodVariants(method: SpecMethod): Variant[] {
	const shown = shownFor(method.resource, method.name);
	const parameters: INodeParameters = { resource: method.resource, operation: method.name };
	const additionalFields: INodeParameters = {};
	const fields: FieldModel[] = [];
	for (const param of method.params) {
		if (OWN_VARIANTS.includes(param.kind)) continue;
		const node = nodeFieldOf(method, shown, param);
		const explicitRemoval = PACKAGE_RULES.explicitRemoval[method.name] === param.name;
		const model = modelOf(explicitRemoval ? { ...param, required: true, min: 1 } : param, node);
		const expression = `={{ $json.${node.name} }}`;
		const value = param.kind === 'chat' && !node.underAdditionalFields ? { __rl: true, mode: 'id', value: expression } : expression;
		if (node.underAdditionalFields) additionalFields[node.name] = value;
		else parameters[node.name] = value;
		fields.push(model);
	}
	if (Object.keys(additionalFields).length > 0) parameters.additionalFields = additionalFields;

	if (method.params.some((param) => param.kind === 'commands')) return commandVariants(method, parameters, fields);

	const markup = method.params.find((param) => param.kind === 'replyMarkup' || param.kind === 'inlineKeyboard');
	if (!markup) return [{ name: method.name, resource: method.resource, operation: method.name, parameters, fields }];

	const label = nodeProperty(shown, 'replyMarkup').displayName;
	const variant = (suffix: string, extra: INodeParameters, keyboard: FieldModel): Variant => ({
		name: `${method.name} (${suffix})`,
		resource: method.resource,
		operation: method.name,
		parameters: { ...parameters, ...extra },
		fields: [...fields, keyboard],
	});
	const variants = [
		variant(
			'inline keyboard as JSON',
			{ replyMarkup: 'inlineKeyboard', keyboardMode: 'json', keyboardJson: '={{ $json.keyboard }}' },
			inlineKeyboardField(label),
		),
		variant(
			'inline keyboard as an auto grid',
			{
				replyMarkup: 'inlineKeyboard',
				keyboardMode: 'autoGrid',
				gridLabels: '={{ $json.gridLabels }}',
				gridColumns: '={{ $json.gridColumns }}',
				gridButtonType: 'callbackData',
				gridButtonText: '{label}',
				gridCallbackData: '={{ $json.gridCallbackData }}',
			},
			gridField(label),
		),
	];
	const inlineOnly = markup.kind === 'inlineKeyboard';
	if (!inlineOnly) {
		variants.push(
			variant(
				'reply keyboard as JSON',
				{ replyMarkup: 'replyKeyboard', keyboardMode: 'json', keyboardJson: '={{ $json.keyboard }}' },
				replyKeyboardField(label),
			),
		);
	}
	return variants;
}

const METHOD_NAME = PACKAGE_RULES.methodName;
const callMethodFields = shownFor('other', 'callMethod');

const callMethodVariant: Variant = {
	name: 'callMethod',
	resource: 'other',
	operation: 'callMethod',
	parameters: { resource: 'other', operation: 'callMethod', method: '={{ $json.method }}', body: '={{ $json.body }}' },
	fields: [
		field(
			nodeProperty(callMethodFields, 'method').displayName,
			'method',
			padded(fc.stringMatching(METHOD_NAME)),
			fc.oneof(
				ABSENT,
				ANY_TEXT.filter((text) => !METHOD_NAME.test(text.trim())),
				fc.constantFrom('../setWebhook', 'getMe/x', 'getMe?x=1', 'getMe#x', 'get Me', '1abc', '_x', 'a'.repeat(65), '%2e%2e', 'getMé'),
				fc.integer(),
				fc.double().filter((value) => !Number.isFinite(value) || !METHOD_NAME.test(String(value))),
				STRUCTURES,
			),
		),
		field(
			nodeProperty(callMethodFields, 'body').displayName,
			'body',
			fc.oneof(
				ABSENT,
				fc.constantFrom('{}', ' {} '),
				fc.dictionary(fc.string({ maxLength: 8 }), plainJson({ maxDepth: 2 }), { maxKeys: 4, noNullPrototype: true }),
				fc.dictionary(fc.string({ maxLength: 8 }), plainJson({ maxDepth: 2 }), { maxKeys: 4, noNullPrototype: true }).map((body) => JSON.stringify(body)),
			),
			fc.oneof(
				ANY_TEXT.filter((text) => text.trim() !== '' && !isJsonText(text.trim())),
				plainJson({ maxDepth: 2 })
					.filter((value) => value !== null && (typeof value !== 'object' || Array.isArray(value)))
					.map((value) => JSON.stringify(value)),
				fc.array(plainJson({ maxDepth: 1 }), { maxLength: 3 }),
				fc.boolean(),
				NUMBERS,
			),
		),
	],
};

/** Every operation of the node, keyboards in each of their modes. */
export const VARIANTS: readonly Variant[] = [...METHODS.flatMap((method) => methodVariants(method)), callMethodVariant];

export function validItem(variant: Variant): fc.Arbitrary<IDataObject> {
	return fc.tuple(...variant.fields.map((model) => model.valid)).map((patches) => Object.assign({}, ...patches) as IDataObject);
}

export function invalidItem(variant: Variant): fc.Arbitrary<InvalidItem> {
	return fc
		.tuple(validItem(variant), fc.nat(variant.fields.length - 1))
		.chain(([base, index]) =>
			variant.fields[index].invalid.map((patch): InvalidItem => ({ json: { ...base, ...patch }, label: variant.fields[index].label })),
		);
}

/** "Item 3: Chat: …" (field checks) or "Item 3: Reply Markup → …" (keyboards). */
export function namesItemAndField(message: string, itemIndex: number, label: string): boolean {
	const named = message.startsWith(`${label}: `) || message.startsWith(`${label} → `) || message.startsWith(`${label} has `);
	return named && message.includes(`[item ${itemIndex}]`);
}
