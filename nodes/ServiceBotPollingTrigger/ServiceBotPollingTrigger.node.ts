import type { INodeType, INodeTypeDescription, ITriggerFunctions, ITriggerResponse } from 'n8n-workflow';

import { DOCUMENTATION_URL, LIMITS } from '../shared/spec';
import { SUBTITLE, TRIGGER_NODE_BASE, optionsCollections, triggerOn } from '../shared/trigger/description';
import { GROUP_MESSAGES_SECONDS } from '../shared/trigger/settings';
import { startPolling } from './poll';

/**
 * Polling delivery: long polling with getUpdates, for an n8n without a public HTTPS URL. A node of its
 * own rather than an option of the Service Bot Trigger: n8n runs a node type's trigger() for every
 * manual execution of a node that has one, also the execution a test webhook starts, so one node with
 * both webhooks and trigger() would break webhook testing (see README, "Trigger").
 */
export class ServiceBotPollingTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Service Bot Polling Trigger',
		name: 'serviceBotPollingTrigger',
		description: 'Starts the workflow when the Service bot receives a message or a button click, by polling: no public URL needed',
		documentationUrl: `${DOCUMENTATION_URL}#service-bot-polling-trigger`,
		defaults: {
			name: 'Service Bot Polling Trigger',
		},
		...TRIGGER_NODE_BASE,
		// The community-node lint wants these two written in the class.
		icon: { light: 'file:../../icons/serviceBotTrigger.svg', dark: 'file:../../icons/serviceBotTrigger.dark.svg' },
		subtitle: SUBTITLE,
		properties: [
			{
				displayName:
					'Asks the service for updates (long polling): no public URL needed. Several workflows of this n8n can poll one bot, each with its own Trigger On and filters (n8n asks the service once for all of them), and a test in the editor shows the next update beside them. A bot with a webhook cannot be polled.',
				name: 'oneConsumerNotice',
				type: 'notice',
				default: '',
			},
			triggerOn,
			...optionsCollections([
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
					displayName: 'Updates per Request',
					name: 'updatesPerRequest',
					type: 'number',
					typeOptions: { minValue: LIMITS.updatesLimit.min, maxValue: LIMITS.updatesLimit.max },
					default: 100,
					description: 'The most updates one request fetches (1 to 100); each starts its own execution',
				},
			]),
		],
	};

	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		return await startPolling.call(this);
	}
}
