/**
 * The reply markup schemas (spec parts 2 and 8): every problem of a markup, each with where it is,
 * in the node's words.
 */
import { z } from 'zod/v4';

import { LIMITS } from '../../../shared/spec';
import type { Problem } from '../errors';
import { describeValue, listWords, quote } from '../errors';

/** The action fields of an inline button: exactly one must be present (spec part 2). */
const INLINE_ACTIONS = ['callback_data', 'url', 'switch_inline_query'] as const;
const ACTION_LIST = listWords(INLINE_ACTIONS);

/** URL schemes an inline button may open: the web ones and the service's own application scheme. */
const BUTTON_URL_SCHEMES = ['https:', 'http:', 'service:'];

/** camelCase and other spellings of the action fields, a frequent slip when JSON is written by hand. */
const ACTION_MISSPELLINGS: Record<string, string> = {
	callbackData: 'callback_data',
	callback: 'callback_data',
	data: 'callback_data',
	URL: 'url',
	link: 'url',
	switchInlineQuery: 'switch_inline_query',
};

const encoder = new TextEncoder();

const buttonText = (max?: number) => {
	const text = z.string({
		error: (issue) => (issue.input === undefined || issue.input === null ? 'text is missing' : `text must be a string, got ${describeValue(issue.input)}`),
	}).min(1, 'text is empty');
	return max === undefined ? text : text.max(max, { error: (issue) => `text is ${String(issue.input).length} characters, the limit is ${max}` });
};

const actionString = (field: string) => z.string({ error: (issue) => `${field} must be a string, got ${describeValue(issue.input)}` });

const callbackData = actionString('callback_data').superRefine((value, ctx) => {
	const { min, max } = LIMITS.callbackDataBytes;
	const bytes = encoder.encode(value).length;
	if (bytes === 0) ctx.addIssue({ code: 'custom', message: `callback_data is empty; it must be ${min} to ${max} bytes` });
	else if (bytes > max) {
		const note = bytes === value.length ? '' : ` (UTF-8: its ${value.length} characters include multi-byte ones)`;
		ctx.addIssue({ code: 'custom', message: `callback_data is ${bytes} bytes, the limit is ${max}${note}` });
	}
});

/** A problem with a button URL, or undefined when the URL is acceptable. */
function urlProblem(value: string): string | undefined {
	if (value.length === 0) return 'url is empty';
	if (value !== value.trim()) return `url ${quote(value)} has leading or trailing spaces`;
	let parsed: URL;
	try {
		parsed = new URL(value);
	} catch {
		const hint = /^[a-z][a-z0-9+.-]*:/i.test(value) ? '' : ' (it needs a scheme such as https://)';
		return `url ${quote(value)} is not a valid URL${hint}`;
	}
	const scheme = parsed.protocol.toLowerCase();
	if (!BUTTON_URL_SCHEMES.includes(scheme)) return `url scheme "${scheme}" is not allowed; use ${listWords(BUTTON_URL_SCHEMES)}`;
	if (value.length <= scheme.length) return `url ${quote(value)} has nothing after the scheme`;
	return undefined;
}

const buttonUrl = actionString('url').superRefine((value, ctx) => {
	const problem = urlProblem(value);
	if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

/** Exactly one action, counted on the button as given (a field that fails its own check still counts). */
function checkActions(button: unknown, ctx: z.RefinementCtx): void {
	if (typeof button !== 'object' || button === null || Array.isArray(button)) return;
	const fields = button as Record<string, unknown>;
	const present = INLINE_ACTIONS.filter((field) => fields[field] !== undefined);
	if (present.length === 0) {
		const near = Object.keys(fields)
			.filter((key) => ACTION_MISSPELLINGS[key] !== undefined)
			.map((key) => ` (found "${key}": did you mean "${ACTION_MISSPELLINGS[key]}"?)`);
		ctx.addIssue({ code: 'custom', message: `no action: set exactly one of ${ACTION_LIST}${near.join('')}`, input: button });
	} else if (present.length > 1) {
		ctx.addIssue({
			code: 'custom',
			message: `${listWords(present, 'and')} are ${present.length > 2 ? 'all' : 'both'} set; a button takes exactly one action`,
			input: button,
		});
	}
}

const inlineButton = z.preprocess(
	(button, ctx) => {
		checkActions(button, ctx);
		return button;
	},
	z.looseObject(
		{
			text: buttonText(LIMITS.inlineButtonText.max),
			callback_data: callbackData.optional(),
			url: buttonUrl.optional(),
			// Any string, the empty one included: it opens inline mode with no query.
			switch_inline_query: actionString('switch_inline_query').optional(),
		},
		{
			error: (issue) => {
				const hint = typeof issue.input === 'string' ? ` such as {"text": ${quote(issue.input)}, "callback_data": …}` : '';
				return `must be an object with text and one action (${ACTION_LIST})${hint}, got ${describeValue(issue.input)}`;
			},
		},
	),
);

const replyButton = z.looseObject(
	{ text: buttonText() },
	{ error: (issue) => `text must be a string, got ${describeValue(issue.input)}` },
);

const row = <T extends z.ZodType>(button: T, maxButtons?: number) => {
	const { min, max } = LIMITS.buttonsPerRow;
	const buttons = z
		.array(button, {
			error: (issue) => {
				const hint = typeof issue.input === 'string' || (typeof issue.input === 'object' && issue.input !== null) ? ' (wrap the buttons of each row in [ ])' : '';
				return `must be an array of buttons, got ${describeValue(issue.input)}${hint}`;
			},
		})
		.min(1, `has no buttons; a row needs ${min} to ${max}`);
	return maxButtons === undefined
		? buttons
		: buttons.max(maxButtons, { error: (issue) => `${(issue.input as unknown[]).length} buttons, the limit is ${maxButtons}` });
};

const rows = <T extends z.ZodType>(buttonRow: T, maxRows?: number) => {
	const list = z
		.array(buttonRow, { error: (issue) => `must be an array of rows, got ${describeValue(issue.input)}` })
		.min(1, 'has no rows; add at least one row, or choose None for no keyboard');
	return maxRows === undefined
		? list
		: list.max(maxRows, { error: (issue) => `${(issue.input as unknown[]).length} rows, the limit is ${maxRows}` });
};

const flag = z.boolean({ error: (issue) => `must be true or false, got ${describeValue(issue.input)}` }).optional();
const mustBeTrue = z.literal(true, { error: (issue) => `must be true, got ${JSON.stringify(issue.input) ?? 'nothing'}` });

/**
 * The four markups of spec part 2. The grid limits of part 8 (100 rows, 8 buttons per row, 128
 * characters of button text) are stated for inline keyboards only, so reply keyboards are not held
 * to them.
 */
const MARKUPS = {
	inline_keyboard: {
		name: 'an inline keyboard',
		schema: z.looseObject({ inline_keyboard: rows(row(inlineButton, LIMITS.buttonsPerRow.max), LIMITS.inlineKeyboardRows.max) }),
	},
	keyboard: {
		name: 'a reply keyboard',
		schema: z.looseObject({
			keyboard: rows(row(replyButton)),
			resize_keyboard: flag,
			one_time_keyboard: flag,
			selective: flag,
			is_persistent: flag,
		}),
	},
	remove_keyboard: {
		name: 'a keyboard removal',
		schema: z.looseObject({ remove_keyboard: mustBeTrue, selective: flag }),
	},
	force_reply: {
		name: 'a force reply',
		schema: z.looseObject({
			force_reply: mustBeTrue,
			selective: flag,
			input_field_placeholder: z.string({ error: (issue) => `must be a string, got ${describeValue(issue.input)}` }).optional(),
		}),
	},
} as const;

type MarkupField = keyof typeof MARKUPS;
const MARKUP_FIELDS = Object.keys(MARKUPS) as MarkupField[];

/** Where a markup problem is: "row 3, button 2", "row 2", "keyboard" (the rows as a whole) or a field. */
function markupPlace(path: readonly PropertyKey[], code: string): string | undefined {
	const [field, rowIndex, buttonIndex] = path;
	if (field === undefined) return undefined;
	if (typeof rowIndex === 'number') {
		return typeof buttonIndex === 'number' ? `row ${rowIndex + 1}, button ${buttonIndex + 1}` : `row ${rowIndex + 1}`;
	}
	if ((field === 'inline_keyboard' || field === 'keyboard') && code !== 'invalid_type') return 'keyboard';
	return String(field);
}

/**
 * Every problem of a reply_markup value, each with where it is; none when the markup is valid for an
 * operation taking `kinds` ('inline': an inline keyboard only).
 */
export function markupProblems(markup: unknown, kinds: 'any' | 'inline'): Problem[] {
	if (typeof markup !== 'object' || markup === null || Array.isArray(markup)) {
		const hint = Array.isArray(markup) ? ' (to give only the rows, wrap them: {"inline_keyboard": rows})' : '';
		return [{ message: `must be an object such as {"inline_keyboard": […]}, got ${describeValue(markup)}${hint}` }];
	}
	const fields = MARKUP_FIELDS.filter((field) => (markup as Record<string, unknown>)[field] !== undefined);
	if (fields.length === 0) {
		const expected = kinds === 'inline' ? '"inline_keyboard"' : listWords(MARKUP_FIELDS.map((field) => `"${field}"`));
		const found = Object.keys(markup);
		const got = found.length === 0 ? 'an empty object' : `an object with ${listWords(found.map((key) => `"${key}"`), 'and')}`;
		return [{ message: `expected ${expected}, got ${got}` }];
	}
	if (fields.length > 1) {
		return [{ message: `mixes ${listWords(fields.map((field) => MARKUPS[field].name), 'and')}; give one kind of markup` }];
	}
	const [field] = fields;
	if (kinds === 'inline' && field !== 'inline_keyboard') {
		return [{ message: `${MARKUPS[field].name} cannot be used here: this operation accepts only an inline keyboard` }];
	}
	const result = MARKUPS[field].schema.safeParse(markup);
	return result.success
		? []
		: result.error.issues.map((issue) => ({ at: markupPlace(issue.path, issue.code), message: issue.message, path: issue.path }));
}

