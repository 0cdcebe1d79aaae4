import type { IHookFunctions, INodeType, INodeTypeDescription, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { DOCUMENTATION_URL } from '../shared/spec';
import { SUBTITLE, TRIGGER_NODE_BASE, optionsCollections, triggerOn } from '../shared/trigger/description';
import { checkExists, create, remove } from './webhook/lifecycle';
import { RESPONSE_MODE, confirmDeliveryDefault, webhookOptionFields, webhookOptionFieldsV3 } from './webhook/options';
import { receive } from './webhook/receive';

/** Webhook delivery: the service pushes each update to n8n's webhook URL (public HTTPS). */
export class ServiceBotTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Service Bot Trigger',
		name: 'serviceBotTrigger',
		// n8n's nodes panel shows this node and the Service Bot action node as one entry, "Service Bot"
		// (its type name without "Trigger" is the action node's), and gives that entry this description
		// (editor-ui nodeCreator/composables/useActionsGeneration.ts, generateMergedNodesAndActions), so it
		// speaks for both; each action and each trigger event under it keeps its own.
		description: 'Send messages, keyboards and questions with a Service bot, and start workflows on its messages and button clicks',
		documentationUrl: `${DOCUMENTATION_URL}#trigger`,
		defaults: {
			name: 'Service Bot Trigger',
		},
		...TRIGGER_NODE_BASE,
		// The community-node lint wants these two written in the class.
		icon: { light: 'file:../../icons/serviceBotTrigger.svg', dark: 'file:../../icons/serviceBotTrigger.dark.svg' },
		subtitle: SUBTITLE,
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				...RESPONSE_MODE,
				path: 'webhook',
			},
		],
		properties: [
			{
				displayName:
					'With a service on this machine (the local emulator of npm run dev) this trigger works as it is. A service elsewhere delivers only to a public HTTPS URL (n8n\'s WEBHOOK_URL); without one, use the Service Bot Polling Trigger. Several workflows of this n8n can listen to one bot, each with its own Trigger On and filters, and a test listens beside them. Publishing fails while another n8n or system owns the bot\'s webhook, unless "Take Over Existing Webhook" is on.',
				name: 'oneWebhookNotice',
				type: 'notice',
				default: '',
			},
			triggerOn,
			...optionsCollections(webhookOptionFields, webhookOptionFieldsV3),
			confirmDeliveryDefault,
		],
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return await checkExists.call(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return await create.call(this);
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return await remove.call(this);
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await receive.call(this);
	}
}
