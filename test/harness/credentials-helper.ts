/**
 * The `ICredentialsHelper` n8n-core calls for everything credential-related. n8n's CLI implements it
 * against its database; here it serves one fixed set of test credentials and, like the CLI's helper,
 * applies the credential type's own `authenticate` (the real `ServiceBotApi` class) to each request.
 */
import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	ICredentialType,
	IHttpRequestOptions,
	INodeCredentialsDetails,
	INodeProperties,
	IRequestOptionsSimplified,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { ICredentialsHelper } from 'n8n-workflow';

import { ServiceBotApi } from '../../credentials/ServiceBotApi.credentials';

export interface TestCredentials {
	accessToken: string;
	baseUrl: string;
}

const credentialTypes: Record<string, ICredentialType> = { serviceBotApi: new ServiceBotApi() };

export function getCredentialType(name: string): ICredentialType {
	const type = credentialTypes[name];
	if (!type) throw new Error(`Test harness: unknown credential type "${name}"`);
	return type;
}

/**
 * Applies a credential type's `authenticate` to request options as n8n's CLI does: a function is
 * called with the decrypted data and the options; generic (declarative) auth is not used by this
 * package, so it is rejected rather than half-implemented.
 */
export async function applyAuthentication(
	typeName: string,
	credentials: ICredentialDataDecryptedObject,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const { authenticate } = getCredentialType(typeName);
	if (authenticate === undefined) return requestOptions;
	if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions);
	throw new Error(`Test harness: generic authentication of "${typeName}" is not supported`);
}

export class TestCredentialsHelper extends ICredentialsHelper {
	constructor(private readonly credentials: TestCredentials) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
	): Promise<IHttpRequestOptions> {
		return await applyAuthentication(typeName, credentials, requestOptions as IHttpRequestOptions);
	}

	async preAuthentication(): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async getCredentials(_nodeCredentials: INodeCredentialsDetails, _type: string): Promise<ICredentials> {
		throw new Error('Test harness: getCredentials (encrypted) is not available');
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		_mode: WorkflowExecuteMode,
	): Promise<ICredentialDataDecryptedObject> {
		getCredentialType(type);
		// A fresh object per call, as n8n decrypts anew each time: callers may mutate it.
		return { accessToken: this.credentials.accessToken, baseUrl: this.credentials.baseUrl };
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(type: string): INodeProperties[] {
		return getCredentialType(type).properties;
	}
}
