/** Spec 4.6 Long polling: read updates while the bot has no webhook. */
import { LIMITS } from '../../shared/spec';
import type { Method } from './method';
import { about, allowedUpdates, inResource } from './method';

export const updateMethods: readonly Method[] = inResource('update', [
	{
		...about('getUpdates', 'Get updates by polling', 'Returns pending updates, one item each; only works while no webhook is set'),
		isDefault: true,
		// Reading with an offset acknowledges older updates, but repeating the same call is harmless.
		idempotent: true,
		params: [
			{
				name: 'offset',
				kind: 'integer',
				required: false,
				displayName: 'Offset',
				description: 'First update to return; last update_id + 1 acknowledges everything before it',
			},
			{
				name: 'limit',
				kind: 'integer',
				required: false,
				displayName: 'Limit',
				description: 'Max number of updates to return',
				serviceDefault: LIMITS.updatesLimit.default,
				min: LIMITS.updatesLimit.min,
				max: LIMITS.updatesLimit.max,
			},
			{
				name: 'timeout',
				kind: 'integer',
				required: false,
				displayName: 'Timeout',
				description: 'Seconds to wait for an update when none is pending (long polling)',
				min: LIMITS.updatesTimeout.min,
				max: LIMITS.updatesTimeout.max,
				serviceDefault: LIMITS.updatesTimeout.default,
			},
			allowedUpdates('Update types to receive; empty receives all'),
		],
		longPollParam: 'timeout',
		output: { kind: 'list', key: 'updates' },
		refusals: [
			{
				status: 409,
				matches: /webhook/i,
				advice:
					"Get Updates can't be used while the bot has a webhook. Remove it with this node's Delete Webhook operation (Webhook resource), or deactivate the workflow whose Service Bot Trigger set it: that trigger receives the updates meanwhile.",
			},
		],
	},
]);
