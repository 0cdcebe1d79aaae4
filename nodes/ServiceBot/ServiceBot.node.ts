import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { DOCUMENTATION_URL } from '../shared/spec';
import { properties } from './actions/properties';
import { router } from './actions/router';
import { answerWebhook, answerWebhooks } from './actions/sendAndWait/answerWebhook';
import { NODE_VERSIONS } from './parameters/param';

export class ServiceBot implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Service Bot',
		name: 'serviceBot',
		icon: { light: 'file:../../icons/serviceBot.svg', dark: 'file:../../icons/serviceBot.dark.svg' },
		group: ['output'],
		// 2: Edit Message Caption takes its caption as a main field; setting the bot's (short)
		// description requires a value, and removing it is an explicit choice.
		// 4: Chat is From Trigger by default (the chat of the update that started the item); sent
		// messages and Send and Wait's answers also name chat_id, message_id (and user_id) as trigger items do.
		version: [...NODE_VERSIONS],
		// "sendMessage" → "Send Message" under the node's name on the canvas.
		subtitle:
			'={{ $parameter["operation"].charAt(0).toUpperCase() + $parameter["operation"].slice(1).replace(/([A-Z])/g, " $1") }}',
		description: 'Send messages and keyboards, manage chats, commands and webhooks of a Service bot',
		documentationUrl: `${DOCUMENTATION_URL}#service-bot`,
		defaults: { name: 'Service Bot' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'serviceBotApi', required: true }],
		webhooks: answerWebhooks,
		properties,
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await answerWebhook.call(this);
	}
}
