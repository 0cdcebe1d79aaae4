/**
 * Runs ANY node type with ANY credential type through the harness's `executeNode` (n8n-core's real
 * `WorkflowExecute`, `Start -> node`, manual execution), so contender B (n8n's Telegram node,
 * credential `telegramApi`) goes through the same engine as contender A. What differs is given to
 * it: the node type name, the credential type, and a credentials helper serving that type.
 */
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeParameters,
	INodeProperties,
	INodeType,
	IRequestOptionsSimplified,
	IRun,
	IVersionedNodeType,
	ExecutionError,
} from 'n8n-workflow';

import { executeNode, TestCredentialsHelper } from '../harness';

/** Serves one credential type with fixed data; applies the type's `authenticate` function if it has one. */
class AnyCredentialsHelper extends TestCredentialsHelper {
	constructor(
		private readonly type: ICredentialType,
		private readonly data: ICredentialDataDecryptedObject,
	) {
		super({ accessToken: String(data.accessToken ?? ''), baseUrl: String(data.baseUrl ?? '') });
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
	): Promise<IHttpRequestOptions> {
		this.check(typeName);
		const { authenticate } = this.type;
		if (authenticate === undefined) return requestOptions as IHttpRequestOptions;
		if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions as IHttpRequestOptions);
		throw new Error(`bench: generic authentication of "${typeName}" is not supported`);
	}

	async getDecrypted(
		...args: Parameters<TestCredentialsHelper['getDecrypted']>
	): Promise<ICredentialDataDecryptedObject> {
		this.check(args[2]);
		return { ...this.data };
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		this.check(type);
		return this.type.properties;
	}

	private check(type: string): void {
		if (type !== this.type.name) throw new Error(`bench: unknown credential type "${type}"`);
	}
}

export interface ExecuteAnyOptions {
	nodeType: INodeType | IVersionedNodeType;
	/** The node's `type` string, e.g. `n8n-nodes-base.telegram`. */
	typeName: string;
	typeVersion?: number;
	parameters: INodeParameters;
	items: IDataObject[];
	credentialType: ICredentialType;
	credentialData: ICredentialDataDecryptedObject;
}

export interface ExecuteAnyResult {
	output: INodeExecutionData[];
	error?: ExecutionError;
	run: IRun;
}

/** Runs through the harness's `executeNode`, with the node's own type name and credential type. */
export async function executeAny(options: ExecuteAnyOptions): Promise<ExecuteAnyResult> {
	const { output, error, run } = await executeNode({
		nodeType: options.nodeType,
		typeName: options.typeName,
		typeVersion: options.typeVersion,
		parameters: options.parameters,
		items: options.items,
		credentials: { accessToken: '', baseUrl: '' },
		credential: {
			typeName: options.credentialType.name,
			helper: new AnyCredentialsHelper(options.credentialType, options.credentialData),
		},
	});
	return { output, error, run };
}
