/**
 * The ground floor of the action node: what a wire parameter is, the node versions, how a
 * parameter's editor field is named, and the one way an item's node parameter is read. Every
 * parameter kind and every method definition stands on it; it imports nothing of the package.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

/** The node versions; a new node gets the newest. */
export const NODE_VERSIONS = [1, 2, 3, 4] as const;

/**
 * From this version a parameter with `fromTrigger` (a chat, a clicked message, a click) has the mode
 * From Trigger, its default: taken from the update that started the item. Older nodes keep By ID.
 */
export const FROM_TRIGGER_SINCE = 4;

/**
 * From this version output items name what the trigger's items name the same way (`chat_id`,
 * `message_id`, `user_id`), besides the names they had.
 */
export const HANDY_NAMES_SINCE = 4;

/**
 * The kind of a wire parameter: it decides the editor field and the check.
 * - chat: chat UUID or public `@username` (a resource locator); user: a UUID
 * - media: a media UUID, or a file of the input item uploaded with the request; fileId: a media UUID
 * - messageId: whole number from 1; callbackQueryId: a click's ID; integer: whole number within min/max
 * - text: string within min/max UTF-16 units; replyMarkup: the keyboard fields
 * Each kind's editor fields and reader live in one module, registered in kinds.ts (PARAM_KINDS).
 */
export type ParamKind =
	| 'chat'
	| 'user'
	| 'media'
	| 'fileId'
	| 'messageId'
	| 'callbackQueryId'
	| 'text'
	| 'integer'
	| 'boolean'
	| 'parseMode'
	| 'entities'
	| 'replyMarkup'
	| 'chatAction'
	| 'url'
	| 'secretToken'
	| 'updateTypes'
	| 'commands'
	| 'languageCode';

/** The markups a reply_markup parameter takes, and how its "None" reads in the editor. */
export interface MarkupScope {
	readonly kinds: 'any' | 'inline';
	/** How "None" (no reply_markup sent) reads; says so where that removes a keyboard. */
	readonly none?: { readonly name: string; readonly description?: string };
}

export interface Param {
	/** Wire name, as sent in the JSON payload; the editor field is its camelCase form. */
	readonly name: string;
	readonly kind: ParamKind;
	readonly required: boolean;
	readonly displayName: string;
	readonly description: string;
	readonly placeholder?: string;
	/** Shown under the field: where its value usually comes from. */
	readonly hint?: string;
	/** Inclusive bounds: UTF-16 units for text, the value for integers. */
	readonly min?: number;
	readonly max?: number;
	/** The value the service assumes when the parameter is absent (shown as the field's default). */
	readonly serviceDefault?: number;
	/** parseMode, chatAction: the values the service takes here (parseMode: every mode of the kind when absent). */
	readonly values?: readonly string[];
	/**
	 * A node option (in "Options") that, when on, lets a value run over `max` because the method's
	 * `requests` splits it; the error of a value over the limit names that option.
	 */
	readonly splitBy?: { readonly option: string; readonly optionName: string };
	/** media: the MIME types a file of the input item must have (a photo: images), and what to use otherwise. */
	readonly onlyMimeTypes?: { readonly prefix: string; readonly noun: string; readonly otherwise: string };
	/** url: an address the service pushes updates to (HTTPS on the spec's webhook ports). */
	readonly webhookUrl?: boolean;
	readonly markup?: MarkupScope;
	/**
	 * A required value whose removal is an explicit choice: a "<field> Action" selector (Set / Remove)
	 * comes first, and Remove sends an empty value. The noun names the thing, e.g. "Description".
	 */
	readonly removable?: string;
	/** The node versions that have this parameter (both bounds inclusive; open when absent). */
	readonly versions?: { readonly from?: number; readonly to?: number };
	/**
	 * chat, messageId, callbackQueryId: the value can be taken from the update that started the item (its
	 * chat, its clicked message, its click); from FROM_TRIGGER_SINCE that is the default.
	 */
	readonly fromTrigger?: boolean;
}

/** Where an item is read: the node, the item, and the item's "Options" (some checks depend on them). */
export interface ItemContext {
	readonly ctx: IExecuteFunctions;
	readonly itemIndex: number;
	/** The item's "Options" values. */
	readonly options: IDataObject;
}

/** The node field of a wire parameter: `reply_to_message_id` → `replyToMessageId`. */
export function fieldName(param: Param): string {
	return param.name.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}

/** The Set / Remove selector of a removable parameter, e.g. `descriptionAction`. */
export function removalFieldName(param: Param): string {
	return `${fieldName(param)}Action`;
}

/** Whether a node version shows this parameter with From Trigger as its default. */
export function followsTrigger(param: Param, version: number): boolean {
	return param.fromTrigger === true && version >= FROM_TRIGGER_SINCE;
}

export function isInVersion(param: Param, version: number): boolean {
	const { from, to } = param.versions ?? {};
	return (from === undefined || version >= from) && (to === undefined || version <= to);
}

/**
 * A node parameter of an item. `skipValidation`: n8n's own validation of a read looks the parameter
 * up among all of the node's properties, which costs time on every read of every item, and checks
 * nothing these checks do not check more precisely.
 */
export function nodeParameter(ctx: IExecuteFunctions, name: string, itemIndex: number, fallback: unknown): unknown {
	return ctx.getNodeParameter(name, itemIndex, fallback as never, { skipValidation: true });
}

/** A value that gives nothing: an optional parameter with it sends nothing. */
export function isEmpty(value: unknown): boolean {
	return value === undefined || value === null || value === '';
}
