/**
 * In-process n8n test harness: runs this package's nodes through n8n-core's real `WorkflowExecute`,
 * `HookContext` and `WebhookContext`, with the real credential class applied to every request.
 */
export { createAdditionalData } from './additional-data';
export { binaryStorageFolder, readBinary, removeStoredFiles, storedMetadata, storeFiles, useBinaryDataStore, useFileDownloads, type TestFile } from './binary-data';
export { applyAuthentication, TestCredentialsHelper, type TestCredentials } from './credentials-helper';
export { captureErrorReports, errorReports } from './error-reports';
export { testCredential } from './credential-tester';
export {
	activeEngine,
	asTheEditorEvaluates,
	expressionEngine,
	expressionEngineName,
	inScope,
	openScope,
	runByTheHarness,
	useExpressionEngine,
	type EngineName,
} from './expression-engine';
export { executeNode, START_NODE_NAME, type ExecuteNodeOptions, type ExecuteNodeResult } from './execute-node';
export { PACKAGE_NAME, TestNodeTypes } from './node-types';
export {
	createTriggerHarness,
	freePort,
	startWebhookServer,
	type HookMode,
	type ManualTriggerRun,
	type RunningTrigger,
	type StartTriggerOptions,
	type TriggerHarness,
	type TriggerHarnessOptions,
	type WebhookReceipt,
	type WebhookRequest,
	type WebhookServer,
} from './trigger-harness';
