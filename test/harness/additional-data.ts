/**
 * `IWorkflowExecuteAdditionalData`: what n8n's CLI builds per execution (WorkflowExecuteAdditionalData
 * .getBase). Only what n8n-core reads for our nodes is filled in; the rest fails loudly if touched.
 */
import { ExecutionLifecycleHooks, ExternalSecretsProxy } from 'n8n-core';
import type { IWorkflowBase, IWorkflowExecuteAdditionalData, WorkflowExecuteMode } from 'n8n-workflow';

import { TestCredentialsHelper, type TestCredentials } from './credentials-helper';

export interface AdditionalDataOptions {
	credentials: TestCredentials;
	/** n8n's instance webhook base (N8N_WEBHOOK_URL), e.g. `http://127.0.0.1:5678/`. */
	webhookBaseUrl?: string;
	executionId?: string;
	/** Creates `hooks` for this mode and workflow; left out for activation-time contexts. */
	hooks?: { mode: WorkflowExecuteMode; workflowData: IWorkflowBase };
}

const DEFAULT_BASE = 'http://localhost:5678/';

let executionCounter = 0;

export function nextExecutionId(): string {
	return String(++executionCounter);
}

function unavailable(name: string): never {
	throw new Error(`Test harness: additionalData.${name} is not available`);
}

export function createAdditionalData(options: AdditionalDataOptions): IWorkflowExecuteAdditionalData {
	// n8n: `urlBaseWebhook + endpoints.webhook`, the base always ending in '/', endpoints 'webhook',
	// 'webhook-test', 'webhook-waiting', 'form', 'form-test', 'form-waiting', 'mcp', 'mcp-test'.
	const base = (options.webhookBaseUrl ?? DEFAULT_BASE).replace(/\/*$/, '/');
	const executionId = options.executionId ?? nextExecutionId();
	return {
		credentialsHelper: new TestCredentialsHelper(options.credentials),
		hooks: options.hooks
			? new ExecutionLifecycleHooks(options.hooks.mode, executionId, options.hooks.workflowData)
			: undefined,
		executionId,
		currentNodeExecutionIndex: 0,
		restApiUrl: `${base}rest`,
		instanceBaseUrl: base,
		webhookBaseUrl: `${base}webhook`,
		webhookTestBaseUrl: `${base}webhook-test`,
		webhookWaitingBaseUrl: `${base}webhook-waiting`,
		formBaseUrl: `${base}form`,
		formTestBaseUrl: `${base}form-test`,
		formWaitingBaseUrl: `${base}form-waiting`,
		mcpBaseUrl: `${base}mcp`,
		mcpTestBaseUrl: `${base}mcp-test`,
		variables: {},
		// With these two set, n8n-core tries to decrypt a runner identity (Cipher.decryptV2).
		encryptedRunnerIdentity: undefined,
		executionContext: undefined,
		externalSecretsProxy: new ExternalSecretsProxy(),
		executeWorkflow: async () => unavailable('executeWorkflow'),
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		logAiEvent: () => {},
		startRunnerTask: async () => unavailable('startRunnerTask'),
	};
}
