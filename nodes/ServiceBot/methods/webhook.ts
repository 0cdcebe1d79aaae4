/** Spec 4.5 Webhook management: where the service pushes updates. */
import { LIMITS } from '../../shared/spec';
import type { Method } from './method';
import { allowedUpdates, dropPendingUpdates } from './method';

const setWebhook: Method = {
	name: 'setWebhook',
	resource: 'webhook',
	displayName: 'Set Webhook',
	action: 'Set the webhook',
	description: 'Sets the URL the service pushes updates to. The Service Bot Trigger node does this for you.',
	idempotent: false,
	queue: 'bot',
	params: [
		{
			name: 'url',
			kind: 'url',
			required: true,
			displayName: 'URL',
			description: 'Public HTTPS URL that receives updates (ports 443, 80, 8080 or 8443)',
			placeholder: 'e.g. https://example.com/webhook',
			webhookUrl: true,
		},
		{
			name: 'secret_token',
			kind: 'secretToken',
			required: false,
			displayName: 'Secret Token',
			description: 'Sent back in the X-Service-Bot-Api-Secret-Token header of every push',
			min: LIMITS.secretToken.min,
			max: LIMITS.secretToken.max,
		},
		dropPendingUpdates(),
		{
			name: 'max_connections',
			kind: 'integer',
			required: false,
			displayName: 'Max Connections',
			description: 'Maximum simultaneous connections for pushes',
			min: LIMITS.maxConnections.min,
			max: LIMITS.maxConnections.max,
			serviceDefault: LIMITS.maxConnections.default,
		},
		allowedUpdates('Update types to push; empty pushes all'),
	],
	output: { kind: 'flag', key: 'updated' },
};

const getWebhookInfo: Method = {
	name: 'getWebhookInfo',
	resource: 'webhook',
	displayName: 'Get Webhook Info',
	action: 'Get the webhook status',
	description: 'Returns the webhook URL, pending update count and last error',
	isDefault: true,
	idempotent: true,
	queue: 'bot',
	params: [],
	output: { kind: 'object' },
};

const deleteWebhook: Method = {
	name: 'deleteWebhook',
	resource: 'webhook',
	displayName: 'Delete Webhook',
	action: 'Delete the webhook',
	description: 'Removes the webhook so updates can be polled with Get Updates',
	idempotent: false,
	queue: 'bot',
	// The spec shows no parameters; Telegram's drop_pending_updates.
	params: [dropPendingUpdates()],
	output: { kind: 'flag', key: 'deleted' },
};

export const webhookMethods: readonly Method[] = [setWebhook, getWebhookInfo, deleteWebhook];
