/**
 * The polling trigger's own options (the ones only polling has): their fields, which the node adds
 * to the Options collection both triggers show (shared/trigger/description.ts), and their reader,
 * checked before polling starts.
 */
import type { INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { LIMITS } from '../shared/spec';
import type { TriggerContext } from '../shared/trigger/identity';
import { optionsOf, wholeNumber } from '../shared/trigger/settings';

/** How long Group Messages Within may gather a user's messages, in seconds (0: off). */
const GROUP_MESSAGES_SECONDS = { min: 0, max: 60 } as const;

/** Polling's defaults when an option is not set (the same as the editor's). The long poll stays under the 60 s idle timeout of common proxies. */
const POLLING_DEFAULTS = { longPollTimeout: 45, updatesPerRequest: LIMITS.updatesLimit.default } as const;

export const pollingOptionFields: INodeProperties[] = [
	{
		displayName: 'Delete Existing Webhook',
		name: 'deleteExistingWebhook',
		type: 'boolean',
		default: false,
		description:
			'Whether to delete the bot\'s webhook when the trigger starts. A bot with a webhook cannot be polled; whatever the webhook delivered to stops receiving updates.',
	},
	{
		displayName: 'Group Messages Within',
		name: 'groupMessagesSeconds',
		type: 'number',
		typeOptions: { minValue: GROUP_MESSAGES_SECONDS.min, maxValue: GROUP_MESSAGES_SECONDS.max },
		default: 0,
		description:
			'Seconds (0 to 60) to gather the messages one user sends to one chat into one execution, so three quick messages start one AI agent run: it runs once the user has been quiet that long, with the texts joined in order in text and chatInput and every update in updates. 0 runs each message at once. Clicks always run at once.',
	},
	{
		displayName: 'Long Poll Timeout',
		name: 'longPollTimeout',
		type: 'number',
		typeOptions: { minValue: LIMITS.updatesTimeout.min, maxValue: LIMITS.updatesTimeout.max },
		default: 45,
		description:
			'Seconds the service may hold a request open while no update is waiting (0 to 50). An update is delivered as soon as it arrives either way; lower it if a proxy between n8n and the service cuts idle connections.',
	},
	{
		displayName: 'Placeholder While Thinking',
		name: 'placeholderWhileThinking',
		type: 'string',
		default: '',
		placeholder: 'Thinking…',
		description:
			'A message such as "Thinking…" posted in the chat as soon as a message starts the workflow, then replaced by the answer: the first Send Message (text) that answers in that chat edits it instead of sending a new message. If the execution ends without that (an error, only a photo, no answer), it is deleted. Its ID is on the item as placeholder_message_id. Empty: off. Messages only, not clicks.',
	},
	{
		displayName: 'Updates per Request',
		name: 'updatesPerRequest',
		type: 'number',
		typeOptions: { minValue: LIMITS.updatesLimit.min, maxValue: LIMITS.updatesLimit.max },
		default: 100,
		description: 'The most updates one request fetches (1 to 100); each starts its own execution',
	},
];

/** The options as saved: each absent until added. */
interface SavedPollingOptions {
	deleteExistingWebhook?: boolean;
	longPollTimeout?: number;
	updatesPerRequest?: number;
	groupMessagesSeconds?: number;
	placeholderWhileThinking?: string;
}

export interface PollingOptions {
	readonly deleteExistingWebhook: boolean;
	/** Seconds the service may hold a getUpdates request open. */
	readonly longPollTimeout: number;
	/** Updates per getUpdates request. */
	readonly limit: number;
	/** Seconds a user's messages in one chat are gathered into one execution; 0: every message its own. */
	readonly groupMessagesSeconds: number;
	/** The placeholder's text ('' when off). */
	readonly placeholder: string;
}

/** Placeholder While Thinking: a text the service takes as a message (whitespace only is off). */
function placeholderText(ctx: TriggerContext, value: unknown): string {
	if (value === undefined || value === null) return '';
	if (typeof value !== 'string') throw new NodeOperationError(ctx.getNode(), 'Placeholder While Thinking must be a text, such as "Thinking…"; leave it empty to turn it off');
	const text = value.trim();
	if (text.length > LIMITS.messageText.max) {
		throw new NodeOperationError(ctx.getNode(), `Placeholder While Thinking is ${text.length} characters; a message holds at most ${LIMITS.messageText.max}: shorten it`);
	}
	return text;
}

export function readPollingOptions(ctx: TriggerContext): PollingOptions {
	const options = optionsOf<SavedPollingOptions>(ctx);
	return {
		deleteExistingWebhook: options.deleteExistingWebhook === true,
		longPollTimeout:
			wholeNumber(ctx, 'Long Poll Timeout', options.longPollTimeout, LIMITS.updatesTimeout) ?? POLLING_DEFAULTS.longPollTimeout,
		limit: wholeNumber(ctx, 'Updates per Request', options.updatesPerRequest, LIMITS.updatesLimit) ?? POLLING_DEFAULTS.updatesPerRequest,
		groupMessagesSeconds: wholeNumber(ctx, 'Group Messages Within', options.groupMessagesSeconds, GROUP_MESSAGES_SECONDS) ?? 0,
		placeholder: placeholderText(ctx, options.placeholderWhileThinking),
	};
}
