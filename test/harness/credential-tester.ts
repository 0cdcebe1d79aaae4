/**
 * Tests a credential the way n8n does when the user clicks "Retry"/"Save" on the credential dialog
 * (`POST /rest/credentials/test`). This mirrors n8n 2.41's CredentialsTester (packages/cli/src/services/
 * credentials-tester.service.ts), summarised in our own code:
 *
 * 1. The credential type's `test.request` becomes the `routing.request` of the only property of a
 *    temporary copy of the NoOp node that requires this credential type.
 * 2. That node is run by n8n-core's real `RoutingNode` in an `ExecuteContext` (mode 'internal'), with
 *    the decrypted credential passed in directly. The request therefore goes through
 *    `httpRequestWithAuthentication`, which applies the credential's `authenticate` (for us: the base
 *    URL `{baseUrl}/bot{token}`), and through n8n's outbound HTTP client. Routing requests do not ignore
 *    HTTP status errors, so a non-2xx answer throws.
 * 3. On a thrown error that carries an HTTP response (`error.cause.response`), the `responseCode` rules
 *    are checked in order and the first whose `value` equals the status gives the message; otherwise
 *    any non-2xx status fails with the response's status text or "Received HTTP status code: N".
 *    An error without a response but with `cause.code` (e.g. ECONNREFUSED) fails with that code;
 *    anything else fails with the error's message.
 * 4. On success, `responseSuccessBody` rules are checked against the first returned item's json (a
 *    match on `key` = `value` fails with the rule's message); otherwise "Connection successful!".
 */
import { ExecuteContext, RoutingNode } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	IExecuteData,
	INode,
	INodeCredentialTestResult,
	INodeExecutionData,
	INodeType,
	IRunExecutionData,
} from 'n8n-workflow';
import { createRunExecutionData, NodeConnectionTypes, Workflow } from 'n8n-workflow';

import { createAdditionalData } from './additional-data';
import { getCredentialType, type TestCredentials } from './credentials-helper';
import { openScope, runByTheHarness } from './expression-engine';
import { TestNodeTypes } from './node-types';

interface ErrorWithResponse {
	message?: unknown;
	cause?: { response?: { status?: number; statusText?: string }; code?: unknown };
}

function valueAt(data: unknown, path: string): unknown {
	let current: unknown = data;
	for (const key of path.split('.')) {
		if (current === null || typeof current !== 'object') return undefined;
		current = (current as Record<string, unknown>)[key];
	}
	return current;
}

export async function testCredential(
	credentials: TestCredentials | ICredentialDataDecryptedObject,
	credentialTypeName = 'serviceBotApi',
): Promise<INodeCredentialTestResult> {
	const credentialType = getCredentialType(credentialTypeName);
	const test = credentialType.test;
	if (!test) return { status: 'Error', message: 'No testing function found for this credential.' };

	// n8n applies the credential properties' defaults before testing.
	const data: ICredentialDataDecryptedObject = {};
	for (const property of credentialType.properties) data[property.name] = property.default as string;
	Object.assign(data, credentials);
	const credentialsDecrypted: ICredentialsDecrypted = {
		id: 'credential-under-test',
		name: 'Credential under test',
		type: credentialTypeName,
		data,
	};

	const nodeTypeCopy: INodeType = {
		description: {
			displayName: 'No Operation, do nothing',
			name: 'noOp',
			group: ['organization'],
			version: 1,
			description: 'No Operation',
			defaults: { name: 'No Operation, do nothing' },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: credentialTypeName, required: true }],
			properties: [
				{ displayName: 'Temp', name: 'temp', type: 'string', routing: { request: test.request }, default: '' },
			],
		},
	};
	const nodeTypes = new TestNodeTypes();
	const type = nodeTypes.add(nodeTypeCopy, 'n8n-nodes-base.noOp');
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { [credentialTypeName]: { id: credentialsDecrypted.id, name: credentialsDecrypted.name } },
	};
	const workflow = runByTheHarness(new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes }));
	// The helper's own credentials are never used here: RoutingNode passes `credentialsDecrypted`.
	const additionalData = createAdditionalData({ credentials: { accessToken: '', baseUrl: '' } });
	const runExecutionData: IRunExecutionData = createRunExecutionData({ resultData: { runData: {} } });
	const executeData: IExecuteData = { node, data: {}, source: null };
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		runExecutionData,
		0,
		[],
		{ main: [[{ json: {} }]] },
		executeData,
		[],
	);

	let response: INodeExecutionData[][] | null | undefined;
	// n8n's CredentialsTester runs the request in a scope of the workflow's expressions (the test
	// request's expressions, e.g. `={{ $credentials.baseUrl }}`, are evaluated there).
	const release = await openScope(workflow);
	try {
		response = await new RoutingNode(context, nodeTypeCopy, credentialsDecrypted).runNode();
	} catch (caught) {
		const error = caught as ErrorWithResponse;
		const httpResponse = error.cause?.response;
		if (httpResponse) {
			const statusCode = Number(httpResponse.status);
			for (const rule of test.rules ?? []) {
				if (rule.type === 'responseCode' && rule.properties.value === statusCode) {
					return { status: 'Error', message: rule.properties.message };
				}
			}
			if (statusCode < 199 || statusCode > 299) {
				return {
					status: 'Error',
					message: httpResponse.statusText || `Received HTTP status code: ${statusCode}`,
				};
			}
		} else if (error.cause?.code) {
			return { status: 'Error', message: String(error.cause.code) };
		}
		return { status: 'Error', message: String(error.message) };
	} finally {
		await release();
	}

	for (const rule of test.rules ?? []) {
		if (rule.type === 'responseSuccessBody') {
			const json = response?.[0]?.[0]?.json;
			if (valueAt(json, rule.properties.key) === rule.properties.value) {
				return { status: 'Error', message: rule.properties.message };
			}
		}
	}
	return { status: 'OK', message: 'Connection successful!' };
}
