import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import { NOTHING_AT_BASE_URL, TOKEN_REFUSED } from '../nodes/shared/transport/credentialProblems';
import { tokenPathSegment } from '../nodes/shared/transport/token';

/** `https://api.example.com/` and `https://api.example.com` mean the same service. */
function trimBaseUrl(value: unknown): string {
	return String(value ?? '').trim().replace(/\/+$/, '');
}

/**
 * The base URL, or the error that says how to write one, thrown before any request. n8n's credential
 * test shows a thrown error's message as it is; without this check it shows axios's bare "Invalid URL"
 * or ERR_INVALID_URL for `api.service.example` (no scheme) or a stray character. Every base URL that
 * worked before is a valid http(s) URL, so no saved credential is refused.
 */
function checkedBaseUrl(credentials: ICredentialDataDecryptedObject): string {
	const base = trimBaseUrl(credentials.baseUrl);
	const url = URL.canParse(base) ? new URL(base) : undefined;
	if (url && (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '') return base;
	// A token pasted into the wrong field must not reach the message.
	const token = String(credentials.accessToken ?? '');
	const shown = (token === '' ? base : base.split(token).join('…')).slice(0, 60);
	throw new Error(
		`Base URL '${shown}' is not a web address: it must start with https:// or http://, e.g. https://api.service.example (http://127.0.0.1:8081 for the emulator of npm run dev)`,
	);
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
			// n8n's credential test shows a network error as its bare code; under the field is where the user reads what it means.
			hint: 'Starts with https:// or http://. If the test says ECONNREFUSED, nothing listens at this address: is the service running? (npm run dev starts the emulator at http://127.0.0.1:8081). ENOTFOUND: the host name is unknown, check its spelling.',
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
			baseURL: `${checkedBaseUrl(credentials)}/bot${tokenPathSegment(String(credentials.accessToken ?? ''))}`,
		};
	}

	test: ICredentialTestRequest = {
		request: { method: 'POST', url: '/getMyName' },
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message: TOKEN_REFUSED,
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message: NOTHING_AT_BASE_URL,
				},
			},
		],
	};
}
