/** Spec 4.5 Webhook management: where the service pushes updates. */
import { LIMITS } from '../../shared/spec';
import type { Method } from './method';
import { about, allowedUpdates, dropPendingUpdates, inResource } from './method';

export const webhookMethods: readonly Method[] = inResource('webhook', [
	{
		...about('setWebhook', 'Set the webhook', 'Sets the URL the service pushes updates to. The Service Bot Trigger node does this for you.'),
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
				serviceDefault: LIMITS.maxConnections.default,
				min: LIMITS.maxConnections.min,
				max: LIMITS.maxConnections.max,
			},
			allowedUpdates('Update types to push; empty pushes all'),
		],
		output: { kind: 'flag', key: 'updated' },
	},
	{
		...about('getWebhookInfo', 'Get the webhook status', 'Returns the webhook URL, pending update count and last error'),
		isDefault: true,
		idempotent: true,
		params: [],
		output: { kind: 'object' },
	},
	{
		...about('deleteWebhook', 'Delete the webhook', 'Removes the webhook so updates can be polled with Get Updates'),
		// The spec shows no parameters; Telegram's drop_pending_updates.
		params: [dropPendingUpdates()],
		output: { kind: 'flag', key: 'deleted' },
	},
]);
