/**
 * The keyboard fields of the operations that send or edit a message: Reply Markup, and for keyboards
 * the three ways to define one (field builder, JSON, auto grid). read.ts reads them back, by the
 * names in names.ts.
 *
 * Over 300 lines on purpose: the editor fields of one parameter kind (Reply Markup with its three
 * keyboard builders) are declarations that change together, as kinds keep their fields in one module.
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { LIMITS } from '../../../shared/spec';
import type { MarkupScope } from '../param';
import type { ButtonAction } from './names';
import { BUILDER, BUTTON_ACTIONS, FIELD, MARKUP, MODE, REPLY_OPTION } from './names';

const { min: minPerRow, max: maxPerRow } = LIMITS.buttonsPerRow;
const callbackBytes = `${LIMITS.callbackDataBytes.min} to ${LIMITS.callbackDataBytes.max} bytes`;
const placeholders = 'Placeholders: {label}, {index} (1, 2, 3…), {row} and {column}';

/** The one action an inline button performs; the builder and the auto grid offer the same three. */
const BUTTON_TYPES: INodePropertyOptions[] = [
	{ name: BUTTON_ACTIONS.callbackData.fieldName, value: 'callbackData', description: 'Send data to the bot as a callback query' },
	{ name: BUTTON_ACTIONS.url.fieldName, value: 'url', description: 'Open a link' },
	{ name: BUTTON_ACTIONS.switchInlineQuery.fieldName, value: 'switchInlineQuery', description: 'Switch the user to inline mode with a query' },
];

const KEYBOARD_OPTIONS: INodePropertyOptions[] = [
	{
		name: 'Force Reply',
		value: MARKUP.forceReply,
		description: 'Open the reply interface, as if the user chose Reply on this message',
	},
	{
		name: 'Inline Keyboard',
		value: MARKUP.inline,
		description: 'Buttons under the message that send callback data, open a link or start an inline query',
	},
	{
		name: 'Remove Keyboard',
		value: MARKUP.removeKeyboard,
		description: 'Hide the reply keyboard shown earlier',
	},
	{
		name: 'Reply Keyboard',
		value: MARKUP.reply,
		description: 'Buttons replacing the phone keyboard; a press sends the button text as a message',
	},
];

/** The Reply Markup choice: None plus the markups the operation takes, alphabetically as n8n lists options. */
function replyMarkupChoice(scope: MarkupScope, description: string): INodeProperties {
	const none: INodePropertyOptions = { name: scope.none?.name ?? 'None', value: MARKUP.none, ...(scope.none?.description ? { description: scope.none.description } : {}) };
	const kinds = scope.kinds === 'inline' ? KEYBOARD_OPTIONS.filter((option) => option.value === MARKUP.inline) : KEYBOARD_OPTIONS;
	return {
		displayName: 'Reply Markup',
		name: FIELD.choice,
		type: 'options',
		noDataExpression: true,
		options: [...kinds, none].sort((a, b) => a.name.localeCompare(b.name)),
		default: 'none',
		description,
	};
}

const keyboardMode: INodeProperties = {
	displayName: 'Define Keyboard',
	name: FIELD.mode,
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { [FIELD.choice]: [MARKUP.inline, MARKUP.reply] } },
	options: [
		{
			name: 'Using Fields Below',
			value: MODE.builder,
			description: 'Add rows and buttons one by one',
		},
		{
			name: 'Using JSON',
			value: MODE.json,
			description: 'Give the rows or the whole markup as JSON, typically from an expression',
		},
		{
			name: 'Auto Grid From Labels',
			value: MODE.autoGrid,
			description: 'Lay out a list of labels as a grid with a fixed number of buttons per row',
		},
	],
	default: 'builder',
};

/** The builder UI shared by both keyboard kinds: rows (top to bottom) of buttons (left to right). */
function rowsBuilder(options: {
	name: string;
	replyMarkup: string;
	description: string;
	buttonFields: INodeProperties[];
}): INodeProperties {
	return {
		displayName: 'Rows',
		name: options.name,
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: 'Add Row',
		displayOptions: { show: { [FIELD.choice]: [options.replyMarkup], [FIELD.mode]: [MODE.builder] } },
		default: {},
		description: options.description,
		options: [
			{
				name: BUILDER.rows,
				displayName: 'Row',
				values: [
					{
						displayName: 'Buttons',
						name: BUILDER.buttons,
						type: 'fixedCollection',
						typeOptions: { multipleValues: true, sortable: true },
						placeholder: 'Add Button',
						default: {},
						options: [{ name: BUILDER.button, displayName: 'Button', values: options.buttonFields }],
					},
				],
			},
		],
	};
}

/** The label of a builder button. */
const buttonText = (placeholder: string, description: string): INodeProperties => ({
	displayName: 'Button Text',
	name: BUILDER.text,
	type: 'string',
	default: '',
	required: true,
	placeholder,
	description,
});

/** Where the auto grid's fields show: for both keyboards, or for inline keyboards (button actions). */
const GRID = { [FIELD.choice]: [MARKUP.inline, MARKUP.reply], [FIELD.mode]: [MODE.autoGrid] };
const INLINE_GRID = { [FIELD.choice]: [MARKUP.inline], [FIELD.mode]: [MODE.autoGrid] };

const inlineKeyboardBuilder = rowsBuilder({
	name: FIELD.inlineRows,
	replyMarkup: MARKUP.inline,
	description: `Rows of buttons, top to bottom: at most ${LIMITS.inlineKeyboardRows.max} rows of ${minPerRow} to ${maxPerRow} buttons`,
	buttonFields: [
		buttonText('e.g. Confirm', `Label shown on the button, up to ${LIMITS.inlineButtonText.max} characters`),
		{
			displayName: 'Button Type',
			name: BUILDER.buttonType,
			type: 'options',
			noDataExpression: true,
			options: BUTTON_TYPES,
			default: 'callbackData',
			description: 'What a click on the button does',
		},
		{
			displayName: BUTTON_ACTIONS.callbackData.fieldName,
			name: BUTTON_ACTIONS.callbackData.builder,
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. confirm:42',
			displayOptions: { show: { [BUILDER.buttonType]: ['callbackData'] } },
			description: `Delivered to the bot in the callback query of a click, ${callbackBytes} of UTF-8`,
		},
		{
			displayName: BUTTON_ACTIONS.switchInlineQuery.fieldName,
			name: BUTTON_ACTIONS.switchInlineQuery.builder,
			type: 'string',
			default: '',
			placeholder: 'e.g. pizza',
			displayOptions: { show: { [BUILDER.buttonType]: ['switchInlineQuery'] } },
			description: 'Query put in the input field when the user switches to inline mode; may be empty',
		},
		{
			displayName: BUTTON_ACTIONS.url.fieldName,
			name: BUTTON_ACTIONS.url.builder,
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://example.com/orders/42',
			displayOptions: { show: { [BUILDER.buttonType]: ['url'] } },
			description: 'Link opened on click: https://, http:// or service:',
		},
	],
});

const replyKeyboardBuilder = rowsBuilder({
	name: FIELD.replyRows,
	replyMarkup: MARKUP.reply,
	description: 'Rows of buttons, top to bottom',
	buttonFields: [buttonText('e.g. Yes', 'Label of the button, sent as a message when pressed')],
});

const keyboardJsonAny: INodeProperties = {
	displayName: 'Keyboard (JSON)',
	name: FIELD.json,
	type: 'json',
	required: true,
	displayOptions: { show: { [FIELD.choice]: [MARKUP.inline, MARKUP.reply], [FIELD.mode]: [MODE.json] } },
	default: '',
	description:
		'The rows, e.g. [[{"text": "Yes", "callback_data": "yes"}]], or the whole markup, e.g. {"inline_keyboard": [...]}. In a reply keyboard a button may be just its text: [["Yes", "No"]]. An expression may return an object or array.',
};

const keyboardJsonInline: INodeProperties = {
	...keyboardJsonAny,
	description:
		'The rows, e.g. [[{"text": "Yes", "callback_data": "yes"}]], or the whole markup, e.g. {"inline_keyboard": [...]}. An expression may return an object or array.',
};

const gridLabels: INodeProperties = {
	displayName: 'Labels',
	name: FIELD.gridLabels,
	type: 'string',
	required: true,
	displayOptions: { show: GRID },
	default: '',
	placeholder: 'e.g. Small, Medium, Large',
	description:
		'Button labels: an expression returning a list, one label per line, or a comma-separated list. Labels are trimmed and empty ones skipped.',
};

const gridColumns: INodeProperties = {
	displayName: 'Buttons per Row',
	name: FIELD.gridColumns,
	type: 'number',
	typeOptions: { minValue: minPerRow, maxValue: maxPerRow },
	displayOptions: { show: GRID },
	default: 2,
	description: `How many buttons each row holds (${minPerRow} to ${maxPerRow}); the last row takes the rest`,
};

const gridButtonText: INodeProperties = {
	displayName: 'Button Text',
	name: FIELD.gridButtonText,
	type: 'string',
	displayOptions: { show: GRID },
	default: '{label}',
	placeholder: 'e.g. {index}. {label}',
	description: `Text of each button. ${placeholders}.`,
};

const gridButtonType: INodeProperties = {
	displayName: 'Button Type',
	name: FIELD.gridButtonType,
	type: 'options',
	options: BUTTON_TYPES,
	noDataExpression: true,
	displayOptions: { show: INLINE_GRID },
	default: 'callbackData',
	description: 'What a click on a button does',
};

/** Where the template of what a grid button does shows: under its Button Type. */
function gridActionShows(buttonType: ButtonAction): INodeProperties['displayOptions'] {
	return { show: { ...INLINE_GRID, [FIELD.gridButtonType]: [buttonType] } };
}

const gridCallbackData: INodeProperties = {
	displayName: BUTTON_ACTIONS.callbackData.fieldName,
	name: BUTTON_ACTIONS.callbackData.grid,
	type: 'string',
	displayOptions: gridActionShows('callbackData'),
	default: '{label}',
	placeholder: 'e.g. size:{label}',
	description: `Callback data of each button, ${callbackBytes} of UTF-8. ${placeholders}.`,
};

const gridUrl: INodeProperties = {
	displayName: BUTTON_ACTIONS.url.fieldName,
	name: BUTTON_ACTIONS.url.grid,
	type: 'string',
	displayOptions: gridActionShows('url'),
	required: true,
	default: '',
	placeholder: 'e.g. https://example.com/search?q={label}',
	description: `Link of each button (https://, http:// or service:). ${placeholders}; values are URL-encoded, except in a template that starts with a placeholder, such as just {label} when the labels are links.`,
};

const gridSwitchInlineQuery: INodeProperties = {
	displayName: BUTTON_ACTIONS.switchInlineQuery.fieldName,
	name: BUTTON_ACTIONS.switchInlineQuery.grid,
	type: 'string',
	displayOptions: gridActionShows('switchInlineQuery'),
	default: '{label}',
	description: `Inline query of each button. ${placeholders}.`,
};

const replyKeyboardOptions: INodeProperties = {
	displayName: 'Reply Keyboard Options',
	name: FIELD.replyOptions,
	type: 'collection',
	placeholder: 'Add Option',
	displayOptions: { show: { [FIELD.choice]: [MARKUP.reply] } },
	default: {},
	options: [
		{
			displayName: 'One Time Keyboard',
			name: REPLY_OPTION.oneTime,
			type: 'boolean',
			default: false,
			description: 'Whether to hide the keyboard once a button has been pressed',
		},
		{
			displayName: 'Resize Keyboard',
			name: REPLY_OPTION.resize,
			type: 'boolean',
			default: false,
			description: 'Whether to fit the keyboard height to its buttons instead of the standard keyboard height',
		},
	],
};

const forceReplyPlaceholder: INodeProperties = {
	displayName: 'Input Field Placeholder',
	name: FIELD.forceReplyPlaceholder,
	type: 'string',
	displayOptions: { show: { [FIELD.choice]: [MARKUP.forceReply] } },
	default: '',
	placeholder: 'e.g. Your order number',
	description: "Hint shown in the empty input field while replying; empty shows the app's default",
};

/**
 * The keyboard fields, without the operation's displayOptions (the caller adds them); the
 * displayOptions here only relate the keyboard fields to each other. Mode selectors take no
 * expressions: the fields they show must be known when the workflow is loaded.
 */
export function keyboardProperties(scope: MarkupScope, description: string): INodeProperties[] {
	const grid = [gridLabels, gridColumns, gridButtonText, gridButtonType, gridCallbackData, gridUrl, gridSwitchInlineQuery];
	const choice = replyMarkupChoice(scope, description);
	if (scope.kinds === 'inline') return [choice, keyboardMode, inlineKeyboardBuilder, keyboardJsonInline, ...grid];
	return [
		choice,
		keyboardMode,
		inlineKeyboardBuilder,
		replyKeyboardBuilder,
		keyboardJsonAny,
		...grid,
		replyKeyboardOptions,
		forceReplyPlaceholder,
	];
}

/** The defaults the reader assumes for a field an item does not have: the fields' own, so the two cannot differ. */
export const KEYBOARD_DEFAULTS = {
	mode: keyboardMode.default as string,
	buttonType: gridButtonType.default as ButtonAction,
	gridColumns: gridColumns.default as number,
	gridButtonText: gridButtonText.default as string,
	gridTemplates: {
		callbackData: gridCallbackData.default as string,
		url: gridUrl.default as string,
		switchInlineQuery: gridSwitchInlineQuery.default as string,
	} satisfies Record<ButtonAction, string>,
};
