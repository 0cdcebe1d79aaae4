import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import { tokenPathSegment } from '../nodes/shared/token';

/** `https://api.example.com/` and `https://api.example.com` mean the same service. */
function trimBaseUrl(value: unknown): string {
	return String(value ?? '').trim().replace(/\/+$/, '');
}

export class ServiceBotApi implements ICredentialType {
	name = 'serviceBotApi';

	displayName = 'Service Bot API';

	icon: Icon = { light: 'file:../icons/serviceBot.svg', dark: 'file:../icons/serviceBot.dark.svg' };

	// A literal: n8n's lint (cred-class-field-documentation-url-missing) reads only a string here.
	documentationUrl = 'https://github.com/n8n-nodes-service-bot/n8n-nodes-service-bot#credential';

	properties: INodeProperties[] = [
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'The bot token the service issued when your bot was created; its bot settings show it again',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://api.service.example',
			description:
				'Address of the service\'s Bot API, without the /bot&lt;token&gt; part, as the service\'s Bot API documentation gives it (http://127.0.0.1:8081 for the local emulator of npm run dev)',
		},
	];

	// The token is a path segment, not a header: every request goes to {baseUrl}/bot{token}/{method}.
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		return {
			...requestOptions,
			baseURL: `${trimBaseUrl(credentials.baseUrl)}/bot${tokenPathSegment(String(credentials.accessToken ?? ''))}`,
		};
	}

	test: ICredentialTestRequest = {
		request: { method: 'POST', url: '/getMyName' },
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message: 'The service rejected the access token (401). Check that the token is complete and still valid.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message: 'Nothing answered at this address (404). Check the base URL (without /bot…) and the token.',
				},
			},
		],
	};
}
