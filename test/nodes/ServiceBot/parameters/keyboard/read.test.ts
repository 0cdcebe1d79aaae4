/**
 * Unit tests of the reply markup module. Parameters go through n8n's own NodeHelpers.getNodeParameters
 * with the real keyboard properties (wrapped for an operation as the node does), so defaults and
 * displayOptions are resolved as in an execution; the IExecuteFunctions mock is only
 * getNodeParameter/getNode over that result.
 */
import { NodeHelpers, NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import type { IExecuteFunctions, INode, INodeParameters, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { keyboardProperties as keyboardFields } from '../../../../../nodes/ServiceBot/parameters/keyboard/fields';
import { normalizeMarkup, readReplyMarkup } from '../../../../../nodes/ServiceBot/parameters/keyboard/read';
import { markupProblems } from '../../../../../nodes/ServiceBot/parameters/keyboard/schema';
import { LIMITS } from '../../../../spec';

/** Which markups an operation takes: 'inline' for the edits, which take an inline keyboard only. */
type KeyboardScope = 'any' | 'inline';

/** The keyboard fields of an operation taking `scope`. */
const keyboardProperties = (scope: KeyboardScope): INodeProperties[] => keyboardFields({ kinds: scope }, 'Keyboard to attach');

/** The checked reply_markup of item `itemIndex`, as the node reads it. */
function buildReplyMarkup(ctx: IExecuteFunctions, itemIndex: number, scope: KeyboardScope) {
	return readReplyMarkup({ ctx, itemIndex, options: {} }, { node: ctx.getNode(), itemIndex }, { kinds: scope });
}

/** The problems of a reply_markup value, each starting with where it is; none when it is valid. */
function validateReplyMarkup(markup: unknown, scope: KeyboardScope): string[] {
	return markupProblems(normalizeMarkup(markup), scope).map((problem) => (problem.at ? `${problem.at}: ${problem.message}` : problem.message));
}

const node: INode = {
	id: 'e3b0c442-0000-4000-8000-000000000001',
	name: 'Service Bot',
	type: 'n8n-nodes-service-bot.serviceBot',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

function propertiesFor(scope: KeyboardScope): INodeProperties[] {
	return [
		{
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			options: [{ name: 'Send Message', value: 'sendMessage', action: 'Send a text message' }],
			default: 'sendMessage',
		},
		...updateDisplayOptions({ show: { operation: ['sendMessage'] } }, keyboardProperties(scope)),
	];
}

/** A context whose item i has the parameters `items[i]`, resolved the way n8n resolves them. */
function context(items: INodeParameters | INodeParameters[], scope: KeyboardScope = 'any'): IExecuteFunctions {
	const list = Array.isArray(items) ? items : [items];
	const resolved = list.map(
		(parameters) =>
			NodeHelpers.getNodeParameters(propertiesFor(scope), { operation: 'sendMessage', ...parameters }, true, false, node, null) ?? {},
	);
	const getNodeParameter = (name: string, itemIndex: number, fallback?: unknown): unknown => {
		const value = resolved[itemIndex][name];
		return value === undefined ? fallback : value;
	};
	return { getNode: () => node, getNodeParameter } as unknown as IExecuteFunctions;
}

/** Builds the markup of one item (item `at` of `at + 1` identical items, to check item numbering). */
function build(parameters: INodeParameters, scope: KeyboardScope = 'any', at = 0) {
	const items = Array.from({ length: at + 1 }, () => parameters);
	return buildReplyMarkup(context(items, scope), at, scope);
}

function errorOf(parameters: INodeParameters, scope: KeyboardScope = 'any', at = 0): NodeOperationError {
	let caught: unknown;
	try {
		build(parameters, scope, at);
	} catch (error) {
		caught = error;
	}
	expect(caught).toBeInstanceOf(NodeOperationError);
	return caught as NodeOperationError;
}

/** Parameters for a keyboard given as JSON (a string, or a value as an expression would return it). */
function json(value: unknown, replyMarkup = 'inlineKeyboard', extra: INodeParameters = {}): INodeParameters {
	return { replyMarkup, keyboardMode: 'json', keyboardJson: value as INodeParameters['x'], ...extra };
}

/** Builder parameters from rows of button parameter objects. */
function builder(rows: INodeParameters[][], replyMarkup = 'inlineKeyboard', extra: INodeParameters = {}): INodeParameters {
	const field = replyMarkup === 'inlineKeyboard' ? 'inlineKeyboard' : 'replyKeyboard';
	return {
		replyMarkup,
		keyboardMode: 'builder',
		[field]: { rows: rows.map((buttons) => ({ buttons: { button: buttons } })) },
		...extra,
	};
}

function grid(extra: INodeParameters, replyMarkup = 'inlineKeyboard'): INodeParameters {
	return { replyMarkup, keyboardMode: 'autoGrid', ...extra };
}

const cb = (text: string, data: string) => ({ text, callback_data: data });
/** One inline keyboard row of `count` buttons. */
const row = (count: number) => Array.from({ length: count }, (_, i) => cb(`B${i + 1}`, `b${i + 1}`));
const inline = (rows: unknown[]) => ({ inline_keyboard: rows });

describe('keyboardProperties', () => {
	const names = (scope: KeyboardScope) => keyboardProperties(scope).map((property) => property.name);
	const optionValues = (property: INodeProperties | undefined) =>
		((property?.options ?? []) as INodePropertyOptions[]).map((option) => option.value);

	it('offers the five markups, None first by default, for scope any', () => {
		const [top] = keyboardProperties('any');
		expect(top.name).toBe('replyMarkup');
		expect(top.default).toBe('none');
		expect(optionValues(top).sort()).toEqual(['forceReply', 'inlineKeyboard', 'none', 'removeKeyboard', 'replyKeyboard']);
		expect(names('any')).toEqual([
			'replyMarkup',
			'keyboardMode',
			'inlineKeyboard',
			'replyKeyboard',
			'keyboardJson',
			'gridLabels',
			'gridColumns',
			'gridButtonText',
			'gridButtonType',
			'gridCallbackData',
			'gridUrl',
			'gridSwitchInlineQuery',
			'replyKeyboardOptions',
			'forceReplyPlaceholder',
		]);
	});

	it('offers only None and Inline Keyboard, and no reply-keyboard fields, for scope inline', () => {
		const properties = keyboardProperties('inline');
		expect(optionValues(properties[0])).toEqual(['inlineKeyboard', 'none']);
		expect(names('inline')).not.toEqual(expect.arrayContaining(['replyKeyboard']));
		for (const name of ['replyKeyboard', 'replyKeyboardOptions', 'forceReplyPlaceholder']) {
			expect(names('inline')).not.toContain(name);
		}
	});

	it('offers the three ways to define a keyboard and keeps mode switches free of expressions', () => {
		const mode = keyboardProperties('any').find((property) => property.name === 'keyboardMode');
		expect(optionValues(mode)).toEqual(['builder', 'json', 'autoGrid']);
		for (const property of keyboardProperties('any').filter((p) => p.type === 'options')) {
			expect(property.noDataExpression).toBe(true);
		}
	});

	it('follows the UI conventions: Whether… booleans, e.g. placeholders, grid bounds from the spec', () => {
		const all: INodeProperties[] = [];
		const walk = (properties: INodeProperties[]) => {
			for (const property of properties) {
				all.push(property);
				for (const option of property.options ?? []) {
					if ('values' in option) walk(option.values);
					else if ('type' in option) walk([option]);
				}
			}
		};
		walk(keyboardProperties('any'));
		for (const property of all) {
			if (property.type === 'boolean') expect(property.description).toMatch(/^Whether /);
			if (property.type === 'string' && property.placeholder !== undefined) expect(property.placeholder).toMatch(/^e\.g\. /);
		}
		const columns = all.find((property) => property.name === 'gridColumns');
		expect(columns?.typeOptions).toEqual({ minValue: LIMITS.buttonsPerRow.min, maxValue: LIMITS.buttonsPerRow.max });
	});

	it('returns fresh objects, so wrapping them cannot change the next call', () => {
		const first = keyboardProperties('any');
		first[0].displayOptions = { show: { operation: ['x'] } };
		expect(keyboardProperties('any')[0].displayOptions).toBeUndefined();
	});
});

describe('buildReplyMarkup: None, force reply, remove keyboard', () => {
	it('returns undefined for None, the default', () => {
		expect(build({})).toBeUndefined();
		expect(build({ replyMarkup: 'none' }, 'inline')).toBeUndefined();
	});

	it('builds a force reply, with and without a placeholder', () => {
		expect(build({ replyMarkup: 'forceReply' })).toEqual({ force_reply: true });
		expect(build({ replyMarkup: 'forceReply', forceReplyPlaceholder: 'Your order number' })).toEqual({
			force_reply: true,
			input_field_placeholder: 'Your order number',
		});
	});

	it('builds a keyboard removal', () => {
		expect(build({ replyMarkup: 'removeKeyboard' })).toEqual({ remove_keyboard: true });
	});

	it('rejects markups other than an inline keyboard in scope inline', () => {
		for (const replyMarkup of ['replyKeyboard', 'forceReply', 'removeKeyboard']) {
			const read = (name: string, _: number, fallback?: unknown) => (name === 'replyMarkup' ? replyMarkup : fallback);
			const ctx = { getNode: () => node, getNodeParameter: read } as unknown as IExecuteFunctions;
			expect(() => buildReplyMarkup(ctx, 0, 'inline')).toThrow(/^Reply Markup: .*only an inline keyboard.*\[item 0\]$/);
		}
	});
});

describe('buildReplyMarkup: builder', () => {
	it('builds an inline keyboard with each button type', () => {
		const markup = build(
			builder([
				[
					{ text: 'Yes', buttonType: 'callbackData', callbackData: 'answer:yes' },
					{ text: 'No', callbackData: 'answer:no' },
				],
				[
					{ text: 'Docs', buttonType: 'url', url: 'https://example.com/docs' },
					{ text: 'Search', buttonType: 'switchInlineQuery', switchInlineQuery: '' },
				],
			]),
		);
		expect(markup).toEqual({
			inline_keyboard: [
				[cb('Yes', 'answer:yes'), cb('No', 'answer:no')],
				[
					{ text: 'Docs', url: 'https://example.com/docs' },
					{ text: 'Search', switch_inline_query: '' },
				],
			],
		});
	});

	it('keeps only the value of the chosen button type', () => {
		const markup = build(builder([[{ text: 'Go', buttonType: 'url', url: 'service:chat/42', callbackData: 'stale' }]]));
		expect(markup).toEqual(inline([[{ text: 'Go', url: 'service:chat/42' }]]));
	});

	it('builds a reply keyboard, with and without options', () => {
		const rows = [[{ text: 'Yes' }, { text: 'No' }], [{ text: 'Cancel' }]];
		const keyboard = [[{ text: 'Yes' }, { text: 'No' }], [{ text: 'Cancel' }]];
		expect(build(builder(rows, 'replyKeyboard'))).toEqual({ keyboard });
		expect(build(builder(rows, 'replyKeyboard', { replyKeyboardOptions: { resizeKeyboard: true, oneTimeKeyboard: false } }))).toEqual({
			keyboard,
			resize_keyboard: true,
			one_time_keyboard: false,
		});
	});

	it('rejects a keyboard without rows or with an empty row', () => {
		expect(errorOf({ replyMarkup: 'inlineKeyboard' }).message).toBe(
			'Reply Markup → keyboard: has no rows; add at least one row, or choose None for no keyboard [item 0]',
		);
		expect(errorOf(builder([[{ text: 'A', callbackData: 'a' }], []])).message).toBe(
			`Reply Markup → row 2: has no buttons; a row needs ${LIMITS.buttonsPerRow.min} to ${LIMITS.buttonsPerRow.max} [item 0]`,
		);
		expect(errorOf(builder([[{ text: '' }]], 'replyKeyboard')).message).toBe('Reply Markup → row 1, button 1: text is empty [item 0]');
	});

	it('names an empty callback data and an empty URL', () => {
		expect(errorOf(builder([[{ text: 'A' }]])).message).toBe(
			'Reply Markup → row 1, button 1: callback_data is empty; it must be 1 to 64 bytes [item 0]',
		);
		expect(errorOf(builder([[{ text: 'A', buttonType: 'url' }]])).message).toBe('Reply Markup → row 1, button 1: url is empty [item 0]');
	});
});

describe('buildReplyMarkup: JSON', () => {
	const rows = [[cb('Yes', 'yes'), cb('No', 'no')], [{ text: 'Site', url: 'https://example.com' }]];

	it('takes the rows only, as a JSON string or as an array from an expression', () => {
		expect(build(json(JSON.stringify(rows, null, 2)))).toEqual(inline(rows));
		expect(build(json(rows))).toEqual(inline(rows));
	});

	it('takes the whole inline markup, as a string or an object', () => {
		expect(build(json(JSON.stringify(inline(rows))))).toEqual(inline(rows));
		expect(build(json(inline(rows)), 'inline')).toEqual(inline(rows));
	});

	it('takes reply keyboard rows of strings and of {text}, and returns {text} buttons', () => {
		expect(build(json('[["Yes", {"text": "No"}], ["Cancel"]]', 'replyKeyboard'))).toEqual({
			keyboard: [[{ text: 'Yes' }, { text: 'No' }], [{ text: 'Cancel' }]],
		});
	});

	it('takes a whole reply markup; options set in the UI override its fields', () => {
		const markup = { keyboard: [['A']], resize_keyboard: true, one_time_keyboard: false };
		expect(build(json(markup, 'replyKeyboard'))).toEqual({ keyboard: [[{ text: 'A' }]], resize_keyboard: true, one_time_keyboard: false });
		expect(build(json(markup, 'replyKeyboard', { replyKeyboardOptions: { oneTimeKeyboard: true } }))).toEqual({
			keyboard: [[{ text: 'A' }]],
			resize_keyboard: true,
			one_time_keyboard: true,
		});
	});

	// Where JSON.parse reports the position (Node 20 and later do for these), as line and column.
	it('says on which line and column a JSON string is broken, and for which item', () => {
		const error = errorOf(json('[\n  [{"text": "Yes", "callback_data": "yes",}]\n]'), 'any', 3);
		expect(error.message).toMatch(
			/^Reply Markup → JSON line 2, column 43: not valid JSON: .* \(remove the trailing comma\); here: k_data": "yes",▸\}\] \] \[item 3\]$/,
		);
		expect(error.context.itemIndex).toBe(3);
		expect(errorOf(json("[[{'text': 'Yes'}]]")).message).toMatch(
			/^Reply Markup → JSON line 1, column 4: not valid JSON: .* \(JSON strings and names use double quotes\).*\[item 0\]$/,
		);
		expect(errorOf(json('[[{"text": "Yes"}]')).message).toMatch(/^Reply Markup → JSON line 1, column 19: not valid JSON: .*\[item 0\]$/);
		expect(errorOf(json('[[{"text": "{{ $json.name }}", callback_data: 1}]]')).message).toMatch(
			/not valid JSON: .*\(it contains \{\{ \}\}: switch the field to Expression to evaluate it\)/,
		);
	});

	it('takes an empty field as no keyboard; explains a flat list of buttons and a markup of the other kind', () => {
		expect(build(json('  '))).toBeUndefined();
		expect(errorOf(json([cb('A', 'a')])).message).toMatch(/^Reply Markup → JSON: a list of buttons, not of rows; wrap each row in \[ \].*\[item 0\]$/);
		expect(errorOf(json({ keyboard: [['A']] })).message).toBe(
			'Reply Markup → JSON: holds a reply keyboard ("keyboard") but Reply Markup is Inline Keyboard; change one of them [item 0]',
		);
		expect(errorOf(json({ rows: [] })).message).toBe(
			'Reply Markup → JSON: must be the rows or an object with "inline_keyboard", got an object with "rows" [item 0]',
		);
		expect(errorOf(json('42')).message).toBe('Reply Markup → JSON: must be the rows (an array of arrays) or the whole markup, got a number [item 0]');
	});

	it('validates JSON buttons like any other', () => {
		expect(errorOf(json([[{ text: 'A', callbackData: 'a' }]])).message).toBe(
			'Reply Markup → row 1, button 1: no action: set exactly one of callback_data, url or switch_inline_query (found "callbackData": did you mean "callback_data"?) [item 0]',
		);
		expect(errorOf(json([['A']])).message).toMatch(/^Reply Markup → row 1, button 1: must be an object with text and one action.*\[item 0\]$/);
	});
});

describe('buildReplyMarkup: auto grid', () => {
	it('lays out a comma-separated list, 2 per row, callback data = label by default', () => {
		expect(build(grid({ gridLabels: ' Small, Medium ,, Large, XL, XXL ' }))).toEqual(
			inline([
				[cb('Small', 'Small'), cb('Medium', 'Medium')],
				[cb('Large', 'Large'), cb('XL', 'XL')],
				[cb('XXL', 'XXL')],
			]),
		);
	});

	it('fills {label}, {index}, {row} and {column} in the text and callback data templates', () => {
		const markup = build(
			grid({ gridLabels: 'a,b,c,d', gridColumns: 3, gridButtonText: '{index}. {label}', gridCallbackData: 'pick:{label}:{index}:{row}:{column}' }),
		);
		expect(markup).toEqual(
			inline([
				[cb('1. a', 'pick:a:1:1:1'), cb('2. b', 'pick:b:2:1:2'), cb('3. c', 'pick:c:3:1:3')],
				[cb('4. d', 'pick:d:4:2:1')],
			]),
		);
	});

	it('URL-encodes values in a URL template, and inserts them raw when the template is just {label}', () => {
		expect(build(grid({ gridLabels: ['red shoes', 'a&b'], gridButtonType: 'url', gridUrl: 'https://example.com/s?q={label}' }))).toEqual(
			inline([
				[
					{ text: 'red shoes', url: 'https://example.com/s?q=red%20shoes' },
					{ text: 'a&b', url: 'https://example.com/s?q=a%26b' },
				],
			]),
		);
		expect(build(grid({ gridLabels: 'https://a.example/x?y=1', gridButtonType: 'url', gridUrl: '{label}' }))).toEqual(
			inline([[{ text: 'https://a.example/x?y=1', url: 'https://a.example/x?y=1' }]]),
		);
	});

	it('makes switch-inline-query buttons', () => {
		expect(build(grid({ gridLabels: 'pizza', gridButtonType: 'switchInlineQuery' }))).toEqual(
			inline([[{ text: 'pizza', switch_inline_query: 'pizza' }]]),
		);
	});

	it('builds a reply keyboard from an array, one label per line, or a JSON array in text', () => {
		const keyboard = [[{ text: 'One' }, { text: '2' }, { text: 'Three, four' }], [{ text: 'true' }]];
		const options = { gridColumns: 3, replyKeyboardOptions: { resizeKeyboard: true } };
		expect(build(grid({ gridLabels: ['One', 2, ' ', null, 'Three, four', true] as unknown as string, ...options }, 'replyKeyboard'))).toEqual({
			keyboard,
			resize_keyboard: true,
		});
		expect(build(grid({ gridLabels: 'One\n2\n\nThree, four\r\ntrue', ...options }, 'replyKeyboard'))).toEqual({ keyboard, resize_keyboard: true });
		expect(build(grid({ gridLabels: '["One", 2, "Three, four", true]', ...options }, 'replyKeyboard'))).toEqual({ keyboard, resize_keyboard: true });
	});

	it('fills 100 rows of 8 and refuses one label more, before building', () => {
		const labels = (count: number) => Array.from({ length: count }, (_, i) => `L${i + 1}`).join(',');
		const markup = build(grid({ gridLabels: labels(800), gridColumns: 8 }));
		expect((markup?.inline_keyboard as unknown[]).length).toBe(100);
		expect(errorOf(grid({ gridLabels: labels(801), gridColumns: 8 })).message).toBe(
			'Reply Markup → labels: 801 labels at 8 per row make 101 rows, the limit is 100; raise Buttons per Row or shorten the list [item 0]',
		);
	});

	it('names the label whose button breaks a limit', () => {
		const long = 'é'.repeat(41);
		expect(errorOf(grid({ gridLabels: `ok, fine, ${long}` })).message).toBe(
			`Reply Markup → row 2, button 1 (label 3 "${'é'.repeat(39)}…"): callback_data is 82 bytes, the limit is 64 (UTF-8: its 41 characters include multi-byte ones) [item 0]`,
		);
	});

	it('rejects an empty list, unknown placeholders, bad buttons-per-row and non-text labels', () => {
		expect(errorOf(grid({ gridLabels: ' , ,' })).message).toBe(
			'Reply Markup → labels: the list is empty; give at least one label, or choose None for no keyboard [item 0]',
		);
		expect(errorOf(grid({ gridLabels: 'a', gridCallbackData: 'x:{lable}' })).message).toBe(
			'Reply Markup → Callback Data: unknown placeholder {lable}; use {label}, {index}, {row}, {column} [item 0]',
		);
		expect(errorOf(grid({ gridLabels: 'a', gridColumns: 9 })).message).toBe(
			'Reply Markup → Buttons per Row: 9; it must be a whole number from 1 to 8 [item 0]',
		);
		expect(errorOf(grid({ gridLabels: [{ name: 'a' }] as unknown as string })).message).toMatch(
			/^Reply Markup → labels: item 1 of the list is an object, not text.*\[item 0\]$/,
		);
	});
});

describe('part 8 limits, at the boundary and one over', () => {
	/** Builds a one-button inline keyboard for item 2 (index 1) and returns the markup or the error message. */
	const one = (button: Record<string, unknown>) => {
		let caught: unknown;
		try {
			return build(json([[button]]), 'any', 1);
		} catch (error) {
			caught = error;
		}
		expect(caught).toBeInstanceOf(NodeOperationError);
		const error = caught as NodeOperationError;
		expect(error.context.itemIndex).toBe(1);
		return error.message;
	};
	/** The error of item 1's only button. */
	const problem = (text: string): string => `Reply Markup → row 1, button 1: ${text} [item 1]`;

	it('button text: 128 characters (UTF-16 units) pass, 129 fail', () => {
		expect(one(cb('a'.repeat(128), 'x'))).toEqual(inline([[cb('a'.repeat(128), 'x')]]));
		expect(one(cb('😀'.repeat(64), 'x'))).toEqual(inline([[cb('😀'.repeat(64), 'x')]]));
		expect(one(cb('a'.repeat(129), 'x'))).toBe(problem(`text is 129 characters, the limit is 128`));
		expect(one(cb(`${'😀'.repeat(64)}a`, 'x'))).toBe(problem(`text is 129 characters, the limit is 128`));
		expect(one({ callback_data: 'x' })).toBe(problem(`text is missing`));
		expect(one(cb('', 'x'))).toBe(problem(`text is empty`));
	});

	it('callback_data: 1 to 64 UTF-8 bytes, counted in bytes', () => {
		for (const ok of ['a', 'a'.repeat(64), 'é'.repeat(32), '😀'.repeat(16), `${'é'.repeat(31)}ab`]) {
			expect(one(cb('B', ok))).toEqual(inline([[cb('B', ok)]]));
		}
		expect(one(cb('B', 'a'.repeat(65)))).toBe(problem(`callback_data is 65 bytes, the limit is 64`));
		expect(one(cb('B', 'a'.repeat(70)))).toBe(problem(`callback_data is 70 bytes, the limit is 64`));
		expect(one(cb('B', `${'é'.repeat(32)}a`))).toBe(
			problem(`callback_data is 65 bytes, the limit is 64 (UTF-8: its 33 characters include multi-byte ones)`),
		);
		expect(one(cb('B', `${'😀'.repeat(16)}a`))).toBe(
			problem(`callback_data is 65 bytes, the limit is 64 (UTF-8: its 33 characters include multi-byte ones)`),
		);
		expect(one(cb('B', ''))).toBe(problem(`callback_data is empty; it must be 1 to 64 bytes`));
		expect(one({ text: 'B', callback_data: 7 })).toBe(problem(`callback_data must be a string, got a number`));
	});

	it('rows: 100 pass, 101 fail', () => {
		const rows = (count: number) => Array.from({ length: count }, () => row(1));
		expect(build(json(rows(100)))).toEqual(inline(rows(100)));
		expect(errorOf(json(rows(101)), 'inline', 1).message).toBe('Reply Markup → keyboard: 101 rows, the limit is 100 [item 1]');
	});

	it('buttons per row: 8 pass, 9 fail, an empty row fails', () => {
		expect(build(json([row(8)]))).toEqual(inline([row(8)]));
		expect(errorOf(json([row(1), row(9)])).message).toBe('Reply Markup → row 2: 9 buttons, the limit is 8 [item 0]');
		expect(errorOf(json([row(1), [], row(1)])).message).toBe('Reply Markup → row 2: has no buttons; a row needs 1 to 8 [item 0]');
	});

	it('exactly one action', () => {
		expect(one({ text: 'B', callback_data: 'x', url: 'https://example.com' })).toBe(
			problem(`callback_data and url are both set; a button takes exactly one action`),
		);
		expect(one({ text: 'B', callback_data: 'x', url: 'https://example.com', switch_inline_query: 'q' })).toBe(
			problem(`callback_data, url and switch_inline_query are all set; a button takes exactly one action`),
		);
		expect(one({ text: 'B' })).toBe(problem(`no action: set exactly one of callback_data, url or switch_inline_query`));
		// null counts as absent, and is dropped from the markup sent
		expect(one({ text: 'B', callback_data: null, switch_inline_query: '' })).toEqual(inline([[{ text: 'B', switch_inline_query: '' }]]));
	});

	it('url: https, http and service schemes only, and a parseable URL', () => {
		for (const url of ['https://example.com/a?b=c', 'http://example.com', 'HTTPS://EXAMPLE.COM', 'service:chat/42', 'service://open?chat=42']) {
			expect(one({ text: 'B', url })).toEqual(inline([[{ text: 'B', url }]]));
		}
		expect(one({ text: 'B', url: 'ftp://example.com/file' })).toBe(problem(`url scheme "ftp:" is not allowed; use https:, http: or service:`));
		expect(one({ text: 'B', url: 'javascript:alert(1)' })).toBe(
			problem(`url scheme "javascript:" is not allowed; use https:, http: or service:`),
		);
		expect(one({ text: 'B', url: 'example.com/page' })).toBe(
			problem(`url "example.com/page" is not a valid URL (it needs a scheme such as https://)`),
		);
		expect(one({ text: 'B', url: 'https://' })).toBe(problem(`url "https://" is not a valid URL`));
		expect(one({ text: 'B', url: 'service:' })).toBe(problem(`url "service:" has nothing after the scheme`));
		expect(one({ text: 'B', url: ' https://example.com' })).toBe(problem(`url " https://example.com" has leading or trailing spaces`));
	});

	it('reports every problem, numbered, on one line', () => {
		const error = errorOf(json([[cb('a'.repeat(129), ''), { text: 'B' }], row(9)]), 'any', 1);
		expect(error.message).toBe(
			[
				'Reply Markup has 4 problems [item 1]: (1) row 1, button 1: text is 129 characters, the limit is 128',
				'(2) row 1, button 1: callback_data is empty; it must be 1 to 64 bytes',
				'(3) row 1, button 2: no action: set exactly one of callback_data, url or switch_inline_query',
				'(4) row 2: 9 buttons, the limit is 8',
			].join('; '),
		);
	});
});

describe('validateReplyMarkup', () => {
	it('accepts the four kinds of markup in scope any', () => {
		expect(validateReplyMarkup(inline([[cb('A', 'a')]]), 'any')).toEqual([]);
		expect(validateReplyMarkup({ keyboard: [['A', { text: 'B' }]], resize_keyboard: true, one_time_keyboard: true }, 'any')).toEqual([]);
		expect(validateReplyMarkup({ remove_keyboard: true }, 'any')).toEqual([]);
		expect(validateReplyMarkup({ force_reply: true, input_field_placeholder: 'Say it' }, 'any')).toEqual([]);
	});

	it('accepts only an inline keyboard in scope inline', () => {
		expect(validateReplyMarkup(inline([[cb('A', 'a')]]), 'inline')).toEqual([]);
		expect(validateReplyMarkup({ keyboard: [['A']] }, 'inline')).toEqual([
			'a reply keyboard cannot be used here: this operation accepts only an inline keyboard',
		]);
		expect(validateReplyMarkup({ force_reply: true }, 'inline')).toEqual([
			'a force reply cannot be used here: this operation accepts only an inline keyboard',
		]);
		expect(validateReplyMarkup({ remove_keyboard: true }, 'inline')).toEqual([
			'a keyboard removal cannot be used here: this operation accepts only an inline keyboard',
		]);
		expect(validateReplyMarkup({}, 'inline')).toEqual(['expected "inline_keyboard", got an empty object']);
	});

	it('rejects shapes that are no markup', () => {
		expect(validateReplyMarkup([[cb('A', 'a')]], 'any')).toEqual([
			'must be an object such as {"inline_keyboard": […]}, got an array (to give only the rows, wrap them: {"inline_keyboard": rows})',
		]);
		expect(validateReplyMarkup('{}', 'any')).toEqual(['must be an object such as {"inline_keyboard": […]}, got a string']);
		expect(validateReplyMarkup({ inline_keyboard: [], keyboard: [] }, 'any')).toEqual([
			'mixes an inline keyboard and a reply keyboard; give one kind of markup',
		]);
		expect(validateReplyMarkup({ inline_keyboard: {} }, 'any')).toEqual(['inline_keyboard: must be an array of rows, got an object']);
		expect(validateReplyMarkup(inline([cb('A', 'a')]), 'any')).toEqual([
			'row 1: must be an array of buttons, got an object (wrap the buttons of each row in [ ])',
		]);
		expect(validateReplyMarkup({ remove_keyboard: false }, 'any')).toEqual(['remove_keyboard: must be true, got false']);
		expect(validateReplyMarkup({ force_reply: true, input_field_placeholder: 3 }, 'any')).toEqual([
			'input_field_placeholder: must be a string, got a number',
		]);
	});

	it('checks reply keyboards for rows and texts, not for the inline grid limits', () => {
		const wide = { keyboard: [Array.from({ length: 9 }, (_, i) => `K${i}`)] };
		expect(validateReplyMarkup(wide, 'any')).toEqual([]);
		expect(validateReplyMarkup({ keyboard: Array.from({ length: 101 }, () => ['K']) }, 'any')).toEqual([]);
		expect(validateReplyMarkup({ keyboard: [] }, 'any')).toEqual([
			'keyboard: has no rows; add at least one row, or choose None for no keyboard',
		]);
		expect(validateReplyMarkup({ keyboard: [['A'], [], ['', { text: 1 }]], resize_keyboard: 'yes' }, 'any')).toEqual([
			'row 2: has no buttons; a row needs 1 to 8',
			'row 3, button 1: text is empty',
			'row 3, button 2: text must be a string, got a number',
			'resize_keyboard: must be true or false, got a string',
		]);
	});
});
