import type { INodeType, INodeTypeDescription, ITriggerFunctions, ITriggerResponse } from 'n8n-workflow';

import { DOCUMENTATION_URL } from '../shared/spec';
import { SUBTITLE, TRIGGER_NODE_BASE, optionsCollections, triggerOn } from '../shared/trigger/description';
import { pollingOptionFields } from './options';
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
			...optionsCollections(pollingOptionFields),
		],
	};

	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		return await startPolling.call(this);
	}
}
