/**
 * What a method of the Bot API is to the action node, and the parameter vocabulary the method files
 * (message.ts, chat.ts, …) describe their methods with. A method's whole truth is its definition: wire
 * parameters with their kinds, limits and editor texts, how its items queue, what it outputs, and —
 * only where it differs — its own behaviour. Everything else (fields, checks, sending, output) is
 * derived from these definitions and never looks at a method's name.
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { LIMITS } from '../../shared/spec';
import type { KnownRefusal, RefusalAdvice } from '../../shared/transport/failure';
import type { Fallback } from '../parameters/kind';
import type { ItemContext, MarkupScope, Param } from '../parameters/param';

export type Resource = 'message' | 'chat' | 'callback' | 'bot' | 'webhook' | 'update' | 'file' | 'other';

/** How a method's items wait for each other: per chat (in input order), per bot, or not at all. */
export type Queue = 'chat' | 'bot' | 'none';

/** What the node outputs for a method's `result`. */
export type Output =
	/** The result object as the item (a value that is not an object becomes `{result}`). */
	| { readonly kind: 'object' }
	/** `true` becomes `{[key]: true}`, e.g. `{deleted: true}` (n8n's UX guideline for deletes). */
	| { readonly kind: 'flag'; readonly key: string }
	/** A number becomes `{count}`. */
	| { readonly kind: 'count' }
	/**
	 * The sent Message with its media's `file_id` at the top level, where the next send reads it to send the
	 * same file without uploading it again (a photo's is the largest size's when the service sends sizes).
	 */
	| { readonly kind: 'sentMedia'; readonly field: string }
	/** `{message_id}` of a copy, with the destination `chat_id` added. */
	| { readonly kind: 'copiedMessage' }
	/**
	 * `{answered: true}` and, when the input item is the click being answered (a trigger's item), the
	 * clicked message's `chat_id` and `message_id`: the next node (an edit of that message) reads them
	 * from `$json` without naming the trigger.
	 */
	| { readonly kind: 'clickAnswer' }
	/** One item per entry, or (option Split Into Items off) one item `{[key]: list}`. */
	| { readonly kind: 'list'; readonly key: string }
	/**
	 * A file the service keeps (getFile's File, `file_path` included) as the item, and the file itself
	 * downloaded into the item's binary data, unless the option Download is off
	 * (actions/fileOutput.ts).
	 */
	| { readonly kind: 'file' };

/**
 * A request that edits the polling trigger's placeholder into the answer (placeholder.ts): `mark`
 * names the placeholder taken, `send` is the send it stands for, sent instead when it cannot be.
 */
export interface PlaceholderReplacement {
	readonly mark: string;
	readonly send: PreparedRequest;
}

export interface PreparedRequest {
	readonly method: string;
	readonly body: IDataObject;
	/** What goes out instead if the service refuses what a parameter kind prepared (kind.ts): the first that answers the refusal. */
	readonly fallbacks?: readonly Fallback[];
	/** The edit of the polling trigger's placeholder this request makes instead of a send (placeholder.ts). */
	readonly replacesPlaceholder?: PlaceholderReplacement;
}

/**
 * A refusal that means there is nothing left to do (a click another workflow on the bot answered
 * first): from node version `since`, the item is output as if `result` had come back, with `notice`
 * saying what happened, and the editor shows the notice as a warning on the node's output; so the
 * workflow goes on. Earlier versions fail as before, with `notice` as the message when it names the
 * cause (`explains`).
 */
export interface MootRefusal extends KnownRefusal {
	readonly since: number;
	readonly result: unknown;
	/**
	 * What happened to the request `body` (the value refused, quoted), for the bot of `token` as this
	 * n8n knows it; `explains` when it names the cause.
	 */
	readonly notice: (refused: { readonly token: string; readonly body: IDataObject }) => { readonly text: string; readonly explains: boolean };
}

/**
 * A refusal explained in the node's own words, in the shape of the transport's refusal advice
 * (shared/transport/failure.ts). Its advice becomes the error's whole message (the service's words
 * move to the description): a text, or one made from the request's body and the service's words (to
 * name the value refused).
 */
export type Refusal = RefusalAdvice<string | ((request: { readonly body: IDataObject; readonly said: string }) => string)>;

export interface Method {
	/** The wire method name; also the operation's value in the node. */
	readonly name: string;
	readonly resource: Resource;
	/** The operation's name in the editor: the method name in words ("sendMessage" → "Send Message"). */
	readonly displayName: string;
	/** Sentence shown in the node's action list and read by AI agents. */
	readonly action: string;
	readonly description: string;
	/** The operation a new node shows first for its resource. */
	readonly isDefault?: boolean;
	/** Only reads (or repeats harmlessly): repeated after a network error or a 5xx. */
	readonly idempotent?: boolean;
	/**
	 * Posts a new message to its `chat_id`, which ends the chat action the service shows there: a
	 * trigger's Show Typing stops renewing "typing…" in that chat once the service took it (chatPosts.ts).
	 */
	readonly postsToChat?: boolean;
	readonly queue: Queue;
	readonly params: readonly Param[];
	readonly output: Output;
	/** The wire parameter that holds a long-poll wait in seconds; the request timeout grows by it. */
	readonly longPollParam?: string;
	/** Extra entries of the node's "Options" (behaviour of the node, not request parameters). */
	readonly options?: readonly INodeProperties[];
	/** Refusals the node explains in its own words (what the user should do); the service's text stays in the details. */
	readonly refusals?: readonly Refusal[];
	/** A refusal that leaves the request nothing to do: an outcome to report, not an error. */
	readonly moot?: MootRefusal;
	/**
	 * A warning about the bot the run's items went to, shown on the node's output in the editor
	 * whatever the items did (another workflow of this n8n answering the same clicks); undefined: none.
	 */
	readonly runNotice?: (run: { readonly token: string; readonly workflowId: string }) => string | undefined;
	/** Own behaviour: the requests an item makes from its checked body (default: one request). */
	readonly requests?: (body: IDataObject, item: ItemContext) => PreparedRequest[];
}

/**
 * An operation that is not a row of the method table (Send and Wait, Call Method): named and placed
 * like a method, with editor fields of its own; the router runs it by name.
 */
export interface OperationOutsideTheTable extends Pick<Method, 'name' | 'resource' | 'displayName' | 'action' | 'description' | 'isDefault'> {
	readonly properties: readonly INodeProperties[];
}

/** A method as its resource's file writes it: the resource comes from the file, the queue by default from the parameters. */
export type MethodOfResource = Omit<Method, 'resource' | 'queue'> & { readonly queue?: Queue };

/** The names and texts of a method: `about('getChat', 'Get a chat', 'Returns …')`. */
export function about(name: string, action: string, description: string): Pick<Method, 'name' | 'displayName' | 'action' | 'description'> {
	const displayName = name.charAt(0).toUpperCase() + name.slice(1).replace(/([A-Z])/g, ' $1');
	return { name, displayName, action, description };
}

/**
 * The methods of one resource. Unless a method says otherwise, its items queue per chat when it has a
 * chat_id (one chat's items one after another, in input order) and per bot when it has none (the
 * bot's own settings, one call at a time).
 */
export function inResource(resource: Resource, methods: readonly MethodOfResource[]): Method[] {
	return methods.map((method) => ({
		...method,
		resource,
		queue: method.queue ?? (method.params.some((param) => param.name === 'chat_id') ? 'chat' : 'bot'),
	}));
}

// The parameter vocabulary of the method files. Texts are the ones users see in the editor.

export const chat = (displayName = 'Chat', description = 'Chat UUID or public username starting with @'): Param => ({
	name: 'chat_id',
	kind: 'chat',
	required: true,
	displayName,
	description,
	fromTrigger: true,
});

/** The destination of a forward or copy, named as such. */
export const destinationChat = (): Param =>
	chat('To Chat', 'Chat to send the message to: its UUID, or the public username of a group or channel starting with @');

export const fromChat = (): Param => ({
	name: 'from_chat_id',
	kind: 'chat',
	required: true,
	displayName: 'From Chat',
	description: 'Chat the message is in',
});

export const messageId = (description: string, hint = 'After a Service Bot trigger: {{ $json.message_id }}'): Param => ({
	name: 'message_id',
	kind: 'messageId',
	required: true,
	displayName: 'Message ID',
	description,
	hint,
	min: 1,
});

export const replyTo = (): Param => ({
	name: 'reply_to_message_id',
	kind: 'messageId',
	required: false,
	displayName: 'Reply To Message ID',
	description: 'Sequence number of the message to reply to',
	min: 1,
});

export const disableNotification = (): Param => ({
	name: 'disable_notification',
	kind: 'boolean',
	required: false,
	displayName: 'Disable Notification',
	description: 'Whether to send silently, with no alert sound',
});

/** `values`: the modes offered here; without them, every mode of the kind (parameters/parseMode.ts). */
export const parseMode = (values?: readonly string[]): Param => ({
	name: 'parse_mode',
	kind: 'parseMode',
	required: false,
	displayName: 'Parse Mode',
	description: 'How the service formats the text; None sends it as plain text',
	...(values ? { values } : {}),
});

export const replyMarkup = (scope: MarkupScope = { kinds: 'any' }): Param => ({
	name: 'reply_markup',
	kind: 'replyMarkup',
	required: false,
	displayName: 'Reply Markup',
	description:
		scope.kinds === 'any' ? 'Keyboard or reply interface to attach to the message' : 'Inline keyboard to attach to the message',
	markup: scope,
});

/** "None" on an edit: the service removes the keyboard of a message edited without one. */
export const EDIT_REMOVES_KEYBOARD: MarkupScope = {
	kinds: 'inline',
	none: {
		name: 'None (Removes the Keyboard)',
		description: 'Send no keyboard: the service removes the inline keyboard the message has',
	},
};

export const caption = (description = 'Caption of the media'): Param => ({
	name: 'caption',
	kind: 'text',
	required: false,
	displayName: 'Caption',
	description,
	max: LIMITS.caption.max,
});

export const languageCode = (description: string): Param => ({
	name: 'language_code',
	kind: 'languageCode',
	required: false,
	displayName: 'Language Code',
	description,
});

export const dropPendingUpdates = (): Param => ({
	name: 'drop_pending_updates',
	kind: 'boolean',
	required: false,
	displayName: 'Drop Pending Updates',
	description: 'Whether to drop the undelivered backlog',
});

export const allowedUpdates = (description: string): Param => ({
	name: 'allowed_updates',
	kind: 'updateTypes',
	required: false,
	displayName: 'Allowed Updates',
	description,
});
