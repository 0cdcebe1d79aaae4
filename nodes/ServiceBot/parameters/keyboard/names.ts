/**
 * The keyboard's editor fields by name, and its choices: the one table the fields (fields.ts) and
 * the reader (read.ts) share, so that neither can drift from the other (the defaults are the fields'
 * own, KEYBOARD_DEFAULTS). Saved workflows hold these names and values: never change one.
 */

/** The field names. */
export const FIELD = {
	/** The Reply Markup choice; also the parameter's own field name (reply_markup → replyMarkup). */
	choice: 'replyMarkup',
	mode: 'keyboardMode',
	inlineRows: 'inlineKeyboard',
	replyRows: 'replyKeyboard',
	json: 'keyboardJson',
	gridLabels: 'gridLabels',
	gridColumns: 'gridColumns',
	gridButtonText: 'gridButtonText',
	gridButtonType: 'gridButtonType',
	replyOptions: 'replyKeyboardOptions',
	forceReplyPlaceholder: 'forceReplyPlaceholder',
} as const;

/** The fields inside the builder: rows of buttons, each button's text and action. */
export const BUILDER = {
	rows: 'rows',
	buttons: 'buttons',
	button: 'button',
	text: 'text',
	buttonType: 'buttonType',
} as const;

/** The Reply Keyboard Options entries. */
export const REPLY_OPTION = { oneTime: 'oneTimeKeyboard', resize: 'resizeKeyboard' } as const;

/** The values of the Reply Markup choice. */
export const MARKUP = {
	none: 'none',
	inline: 'inlineKeyboard',
	reply: 'replyKeyboard',
	forceReply: 'forceReply',
	removeKeyboard: 'removeKeyboard',
} as const;

/** The values of Define Keyboard. */
export const MODE = { builder: 'builder', json: 'json', autoGrid: 'autoGrid' } as const;

/**
 * What an inline button does (Button Type): the wire field it fills, its name in the editor, and
 * and its field in the builder and in the auto grid.
 */
export const BUTTON_ACTIONS = {
	callbackData: { field: 'callback_data', fieldName: 'Callback Data', builder: 'callbackData', grid: 'gridCallbackData' },
	url: { field: 'url', fieldName: 'URL', builder: 'url', grid: 'gridUrl' },
	switchInlineQuery: {
		field: 'switch_inline_query',
		fieldName: 'Switch Inline Query',
		builder: 'switchInlineQuery',
		grid: 'gridSwitchInlineQuery',
	},
} as const;
export type ButtonAction = keyof typeof BUTTON_ACTIONS;
