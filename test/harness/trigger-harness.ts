/**
 * Trigger side of the harness: n8n-core's real `HookContext` (webhook lifecycle: checkExists / create /
 * delete) and `WebhookContext` (delivery), each built fresh per call the way n8n's WebhookService does,
 * on a workflow loaded fresh per call with the persisted static data, as another n8n process would.
 *
 * What mirrors n8n 2.41 (packages/cli/src/webhooks, read for behaviour, not copied):
 * - Production activation runs checkExists then (if false) create with mode 'trigger'; production
 *   deactivation runs delete with mode 'internal', activation 'update'. Test ("listen for test event")
 *   registration uses mode 'manual', activation 'manual' and `isTest`, so `getNodeWebhookUrl` gives the
 *   `webhook-test` URL; its removal runs delete with mode 'internal'.
 * - A webhook URL is `<base>webhook/<webhookId>/<path>` (`webhook-test/` in test mode).
 * - A delivery runs `node.webhook()` with mode 'webhook' (production) and answers like n8n: the node's
 *   own response when it returns `noWebhookResponse`; `webhookResponse` or
 *   `{message: 'Webhook call received'}` when it starts nothing; `{message: 'Workflow was started'}`
 *   (response mode onReceived) when it starts the workflow; 500 when `webhook()` throws.
 * - Static data is saved after each call only when it changed (n8n's saveStaticData checks
 *   `__dataChanged`) and, for a delivery, only when it started no execution (creating the execution
 *   resets the flag first: measured in n8n 2.41.1, see README "Scaling"); every call starts from the
 *   last saved state.
 * - A test registration has static data of its own, as in n8n's TestWebhooks: it starts empty at
 *   checkExists/create ('manual'), keeps what they wrote, and test deliveries and the test's delete
 *   start from it (deliveries do not save into it).
 * - trigger() (long-running triggers, packages/cli/src/active-workflow-manager.ts and n8n-core's
 *   TriggersAndPollers): production runs in a real TriggerContext with mode 'trigger' / activation
 *   'activate' on a workflow loaded once per activation; n8n saves its static data after trigger()
 *   returns and at every emit; an emit whose deduplication key an earlier execution has is refused
 *   (n8n 2.41's unique index on executions); emitError makes n8n remove the trigger (closeFunction). A test
 *   ('manual') gets its emit and emitError installed after trigger() returns, then n8n calls
 *   manualTriggerFunction and waits for the first emit; its static data is never saved.
 * - Expressions (expression-engine.ts) evaluate only inside the scopes n8n opens around the node's
 *   calls, each on the workflow loaded for that call: webhook methods (active-workflow-manager.js
 *   addWebhooks / deregisterWebhooks, test-webhooks.js needsWebhook); a production delivery
 *   (live-webhooks.js executeWebhook: acquired before the webhook's path is read, released once the
 *   reply is handed over, and the reply serialized after that); a test delivery (test-webhooks.js: the
 *   reply is sent while the scope is still held, released after the test webhook is removed);
 *   trigger() (activation, released once it returned) and its closeFunction (n8n-core
 *   triggers-and-pollers.js wraps it in `withIsolate`); a test run of trigger() runs in its manual
 *   execution's scope (WorkflowExecute), which ends with the run. What a trigger evaluates after
 *   trigger() returned (a poll loop) throws "No bridge acquired for this context. Call acquire() first."
 *   as in n8n.
 */
import { HookContext, TriggerContext, WebhookContext } from 'n8n-core';
import type {
	IConnections,
	IDataObject,
	ITriggerResponse,
	IHttpRequestMethods,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IRun,
	ITriggerFunctions,
	IWebhookData,
	IWebhookDescription,
	IWorkflowExecuteAdditionalData,
	WebhookSetupMethodNames,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { NodeConnectionTypes, Workflow, resolveWebhookDescriptionField } from 'n8n-workflow';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { captureErrorReports } from './error-reports';
import { inScope, openScope, runByTheHarness } from './expression-engine';
import { FakeResponse } from './fake-response';
import { createAdditionalData } from './additional-data';
import type { TestCredentials } from './credentials-helper';
import type { ChainNode } from './execute-node';
import { TEST_CREDENTIAL_REF } from './execute-node';
import { latestVersion, TestNodeTypes } from './node-types';
import type { WaitingRouter } from './waiting';

export type HookMode = 'trigger' | 'manual';

export interface TriggerHarnessOptions {
	nodeType: INodeType;
	parameters: INodeParameters;
	credentials: TestCredentials;
	/** What the node sees as n8n's webhook base (N8N_WEBHOOK_URL), e.g. `http://127.0.0.1:PORT/`. */
	webhookBaseUrl: string;
	workflowId?: string;
	/** The workflow's name as n8n shows it (default "Trigger harness workflow"). */
	workflowName?: string;
	webhookId?: string;
	nodeId?: string;
	/** Workflow static data to share between harnesses (simulates persistence / another process). */
	staticData?: IDataObject;
	/** Deduplication keys of the executions in n8n's database, to share between harnesses like `staticData`. */
	executionKeys?: Set<string>;
	typeVersion?: number;
	/** Nodes after the trigger, in a chain from its first output, as the workflow has them (what the trigger reads of its workflow). */
	after?: readonly ChainNode[];
}

export interface WebhookRequest {
	headers?: Record<string, string>;
	body?: unknown;
	rawBody?: Buffer;
	method?: string;
	/** 'manual' delivers to the test webhook (execution mode 'manual'); default production. */
	mode?: HookMode;
	/** The request's query string, parsed (n8n gives it to the node as `getQueryData()`). */
	query?: Record<string, string>;
	/**
	 * Told the answer the node sends itself (`getResponseObject()`), when it sends it: express sends
	 * it to the client then, even while webhook() goes on (`noWebhookResponse`).
	 */
	onAnswer?: (status: number, body: unknown) => void;
	/**
	 * n8n fails to create the execution after `webhook()` returned its data (seen in queue mode with
	 * a saturated database): it answers 500 "Workflow could not be started!" and nothing runs.
	 */
	startFails?: boolean;
	/** n8n creates the execution (or fails to, `startFails`) only once this settles: a saturated database. */
	startsAfter?: Promise<void>;
	/**
	 * When the execution the delivery starts ends, for a webhook in response mode 'streaming': n8n ends
	 * the push's response then (failed or not). Default: at once. `receive` returns when the sender got
	 * its answer, so with a run held past the node's own bound it returns before the run ends.
	 */
	runEnds?: Promise<'succeeded' | 'failed'>;
}

export interface WebhookReceipt {
	/** The HTTP status n8n would answer the sender with. */
	status: number;
	/** The first output's items when the node started the workflow. */
	workflowData?: INodeExecutionData[][];
	/** The body n8n would answer with (JSON value, or what the node sent itself). */
	responseBody?: unknown;
	/** What `webhook()` threw, if it did (n8n answers 500). */
	error?: Error;
	/** The webhook's response mode as n8n evaluates it for this request (`responseMode` of the webhook description). */
	responseMode?: unknown;
	/**
	 * The response object n8n handed to `webhook()`: with responseMode 'streaming' n8n then writes the
	 * execution's chunks on it (`write(JSON.stringify(chunk) + '\n')`, `flush()`) and ends it when the
	 * execution is finalized; a test does that in n8n's place.
	 */
	response?: FakeResponse;
}

export interface RunningTrigger {
	/** What each emit carried, in order (the first output's items). */
	readonly emitted: INodeExecutionData[][][];
	/** Deduplication keys of emits n8n refused to run (an execution with that key exists). */
	readonly refused: string[];
	/** What emitError reported, in order. */
	readonly errors: Error[];
	/** Resolves when `count` emits (default: one more than now) have happened, or on emitError. */
	waitForEmits(count?: number): Promise<void>;
	/** n8n's deactivation (closeFunction); resolves when the trigger says it has stopped. */
	close(): Promise<void>;
	/** Whether close() has run (also after emitError, which makes n8n remove the trigger). */
	readonly closed: boolean;
	/** How many emits the trigger made (also those whose execution is not created yet, or was refused). */
	readonly emits: number;
	/** With `executions: 'whenAsked'`: n8n creates (and finishes) the executions of the emits so far. */
	createExecutions(): void;
	/** With `executions: 'held'`: the executions created so far finish now (their done promises resolve). */
	finishExecutions(): void;
	/** n8n killed (SIGKILL) now: executions not created yet never are, nothing more is saved or sent. */
	kill(): void;
}

export interface StartTriggerOptions {
	/** Called at every emit that happens (after static data is saved), e.g. to time execution starts. */
	onEmit?: (data: INodeExecutionData[][]) => void;
	/**
	 * n8n dies at the n-th emit (1-based): 'before' — the emit never happens and nothing more is saved;
	 * 'after' — the emit is recorded and static data saved, then nothing more; 'executionOnly' — the
	 * execution is created (its deduplication key recorded) but the static data save never lands; 'staticDataOnly' —
	 * the static data save lands but the execution is never created (n8n starts the save first and does
	 * not wait for it: a process killed before its execution insert). The trigger is then
	 * stopped in-process (a dead process runs nothing), and a new startTrigger() is the restart.
	 */
	dieAtEmit?: { emit: number; when: 'before' | 'after' | 'executionOnly' | 'staticDataOnly' };
	/**
	 * When n8n creates an emit's execution. 'atEmit' (default): at once, and the execution finishes at
	 * once (the emit's done promise resolves, as n8n's does when the run ends). 'whenAsked': only when the
	 * test calls `createExecutions()`, as a busy n8n creates them a while after the emit (it first reads
	 * the workflow, then inserts the execution): a kill meanwhile loses those executions. 'held': created
	 * at once, and they run until the test calls `finishExecutions()` (or the trigger is closed), as a
	 * workflow that takes a while (an AI agent thinking).
	 */
	executions?: 'atEmit' | 'whenAsked' | 'held';
	/**
	 * Runs the workflow of each execution as it is created (e.g. `startExecution` of a chain that starts
	 * at this trigger with the emitted items): the emit's done promise then settles with its run, as
	 * n8n's does with the execution's run data once it has run (without it: with nothing).
	 */
	runWorkflow?: (data: INodeExecutionData[][]) => Promise<IRun>;
}

export interface ManualTriggerRun {
	/** The first emit's items, or the error of emitError / of trigger() itself. */
	readonly result: Promise<{ items?: INodeExecutionData[][]; error?: Error }>;
	/** Stops the test (n8n calls closeFunction when the user stops listening or the run ends). */
	close(): Promise<void>;
}

export interface TriggerHarness {
	/** The node's production webhook URL as n8n computes it (`getNodeWebhookUrl('default')`). */
	readonly webhookUrl: string;
	/** The test ('manual') webhook URL. */
	readonly testWebhookUrl: string;
	readonly staticData: IDataObject;
	readonly executionKeys: Set<string>;
	readonly workflowId: string;
	readonly node: INode;
	checkExists(mode?: HookMode): Promise<boolean>;
	create(mode?: HookMode): Promise<boolean>;
	delete(mode?: HookMode): Promise<boolean>;
	/** n8n's activation: checkExists, then create when it returned false. Returns whether create ran. */
	activate(mode?: HookMode): Promise<boolean>;
	/** n8n's start ('init'): checkExists, then create when it is missing, for the published workflow. */
	activateAtStart(): Promise<boolean>;
	/** Runs `node.webhook()` in a fresh WebhookContext with a fake express req/res. */
	receive(request: WebhookRequest): Promise<WebhookReceipt>;
	/**
	 * How many production deliveries hold a scope of the workflow's expressions (an isolate of n8n's VM
	 * engine) now: n8n releases it once its request handler got the reply, which in response mode
	 * 'streaming' never comes unless webhook() said `noWebhookResponse` (receive()).
	 */
	deliveryScopesHeld(): number;
	/** n8n's production activation of a trigger() node; throws what trigger() throws. */
	startTrigger(options?: StartTriggerOptions): Promise<RunningTrigger>;
	/** The editor's "Listen for test event" on a trigger() node. */
	startManualTrigger(): Promise<ManualTriggerRun>;
}

function defaultWebhook(webhooks: IWebhookDescription[] | undefined, type: string): IWebhookDescription {
	const found = webhooks?.find((webhook) => webhook.name === 'default');
	if (!found) throw new Error(`Test harness: ${type} has no 'default' webhook`);
	return found;
}

function cloneJson<T>(value: T): T {
	return JSON.parse(JSON.stringify(value)) as T;
}

/** A reply as n8n sends it: text and buffers as they are, anything else serialized (toJSON) and read back. */
function sent(body: unknown): unknown {
	return body === undefined || body === null || typeof body === 'string' || Buffer.isBuffer(body) ? body : (JSON.parse(JSON.stringify(body)) as unknown);
}

export function createTriggerHarness(options: TriggerHarnessOptions): TriggerHarness {
	captureErrorReports();
	const nodeTypes = new TestNodeTypes();
	const type = nodeTypes.add(options.nodeType);
	const typeVersion = options.typeVersion ?? latestVersion(options.nodeType);
	const description = nodeTypes.getByNameAndVersion(type, typeVersion).description;
	const workflowId = options.workflowId ?? `wf-${randomUUID().slice(0, 8)}`;
	const store: IDataObject = options.staticData ?? {};
	const executionKeys = options.executionKeys ?? new Set<string>();
	/** The static data of the current test registration (n8n keeps it in the registration). */
	let testStore: IDataObject = {};
	const node: INode = {
		id: options.nodeId ?? randomUUID(),
		name: description.defaults.name ?? description.displayName,
		type,
		typeVersion,
		position: [0, 0],
		parameters: options.parameters,
		credentials: { serviceBotApi: TEST_CREDENTIAL_REF },
		webhookId: options.webhookId ?? randomUUID(),
	};
	const webhookDescription = (): IWebhookDescription => defaultWebhook(description.webhooks, type);
	const after: INode[] = (options.after ?? []).map((chained, index) => ({
		id: `after-${index}`,
		name: chained.name,
		type: nodeTypes.add(chained.nodeType),
		typeVersion: chained.typeVersion ?? latestVersion(chained.nodeType),
		position: [200 * (index + 1), 0],
		parameters: chained.parameters ?? {},
	}));
	const connections: IConnections = {};
	[node, ...after].forEach((from, index) => {
		const to = after[index];
		if (!to) return;
		const output = index === 0 ? 0 : (options.after?.[index - 1].output ?? 0);
		const main: IConnections[string]['main'] = Array.from({ length: output + 1 }, () => []);
		main[output] = [{ node: to.name, type: NodeConnectionTypes.Main, index: 0 }];
		connections[from.name] = { main };
	});

	/** A workflow as a fresh process loads it: static data from the store, nothing shared in memory. */
	function loadWorkflow(from: IDataObject = store): Workflow {
		const workflow = new Workflow({
			id: workflowId,
			name: options.workflowName ?? 'Trigger harness workflow',
			nodes: [cloneJson(node), ...after.map((chained) => cloneJson(chained))],
			connections,
			active: true,
			nodeTypes,
			staticData: cloneJson(from),
			settings: { executionOrder: 'v1' },
		});
		return runByTheHarness(workflow);
	}

	function saveStaticData(workflow: Workflow, into: IDataObject = store): void {
		if (workflow.staticData.__dataChanged !== true) return;
		const saved = cloneJson(workflow.staticData);
		delete saved.__dataChanged;
		for (const key of Object.keys(into)) delete into[key];
		Object.assign(into, saved);
		workflow.staticData.__dataChanged = false;
	}

	function webhookData(
		workflow: Workflow,
		additionalData: IWorkflowExecuteAdditionalData,
		isTest: boolean,
	): IWebhookData {
		const description = webhookDescription();
		const path = String(workflow.expression.getSimpleParameterValue(node, description.path, 'internal', {}));
		return {
			httpMethod: String(description.httpMethod) as IHttpRequestMethods,
			node: node.name,
			path: `${node.webhookId}/${path.replace(/^\/+|\/+$/g, '')}`,
			webhookDescription: description,
			workflowId,
			workflowExecuteAdditionalData: additionalData,
			webhookId: node.webhookId,
			isTest,
		};
	}

	async function runHook(
		method: WebhookSetupMethodNames,
		mode: WorkflowExecuteMode,
		activation: WorkflowActivateMode,
		isTest: boolean,
	): Promise<boolean> {
		const fn = options.nodeType.webhookMethods?.default?.[method];
		if (!fn) throw new Error(`Test harness: ${type} has no webhookMethods.default.${method}`);
		// A test registration starts with empty static data and keeps what its hooks write.
		if (isTest && method !== 'delete') testStore = {};
		const from = isTest ? testStore : store;
		const workflow = loadWorkflow(from);
		const additionalData = createAdditionalData({ credentials: options.credentials, webhookBaseUrl: options.webhookBaseUrl });
		const workflowNode = workflow.getNode(node.name)!;
		// n8n adds and removes a workflow's webhooks in a scope of its expressions, then saves its static data.
		try {
			return await inScope(workflow, async () => {
				const context = new HookContext(
					workflow,
					workflowNode,
					additionalData,
					mode,
					activation,
					webhookData(workflow, additionalData, isTest),
				);
				return (await fn.call(context)) as boolean;
			});
		} finally {
			saveStaticData(workflow, from);
		}
	}

	/** The URL `getNodeWebhookUrl('default')` gives in a HookContext of that mode. */
	function urlFor(mode: HookMode): string {
		const workflow = loadWorkflow();
		const additionalData = createAdditionalData({ credentials: options.credentials, webhookBaseUrl: options.webhookBaseUrl });
		const isTest = mode === 'manual';
		const context = new HookContext(
			workflow,
			workflow.getNode(node.name)!,
			additionalData,
			isTest ? 'manual' : 'trigger',
			isTest ? 'manual' : 'activate',
			webhookData(workflow, additionalData, isTest),
		);
		const url = context.getNodeWebhookUrl('default');
		if (!url) throw new Error('Test harness: the node has no default webhook URL');
		return url;
	}

	const hasWebhooks = description.webhooks !== undefined;
	const webhookUrl = hasWebhooks ? urlFor('trigger') : '';
	const testWebhookUrl = hasWebhooks ? urlFor('manual') : '';

	function triggerFn(): NonNullable<INodeType['trigger']> {
		const trigger = options.nodeType.trigger;
		if (!trigger) throw new Error(`Test harness: ${type} has no trigger()`);
		return trigger;
	}

	let deliveryScopes = 0;

	const harness: TriggerHarness = {
		deliveryScopesHeld: () => deliveryScopes,
		webhookUrl,
		testWebhookUrl,
		staticData: store,
		executionKeys,
		workflowId,
		node,
		async checkExists(mode = 'trigger') {
			return mode === 'manual'
				? await runHook('checkExists', 'manual', 'manual', true)
				: await runHook('checkExists', 'trigger', 'activate', false);
		},
		async create(mode = 'trigger') {
			return mode === 'manual'
				? await runHook('create', 'manual', 'manual', true)
				: await runHook('create', 'trigger', 'activate', false);
		},
		async delete(mode = 'trigger') {
			return await runHook('delete', 'internal', 'update', mode === 'manual');
		},
		async activate(mode = 'trigger') {
			if (await harness.checkExists(mode)) return false;
			await harness.create(mode);
			return true;
		},
		async activateAtStart() {
			if (await runHook('checkExists', 'trigger', 'init', false)) return false;
			await runHook('create', 'trigger', 'init', false);
			return true;
		},
		async receive(request) {
			const isTest = request.mode === 'manual';
			const headers: Record<string, string> = { 'content-type': 'application/json' };
			for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
			const rawBody =
				request.rawBody ?? Buffer.from(request.body === undefined ? '' : JSON.stringify(request.body), 'utf8');
			let body: unknown = request.body;
			if (body === undefined && rawBody.length > 0) {
				// n8n parses JSON bodies before the node runs; an unparseable one is a 400 there.
				try {
					body = JSON.parse(rawBody.toString('utf8'));
				} catch {
					return { status: 400, responseBody: { code: 400, message: 'Failed to parse request body' } };
				}
			}
			const method = (request.method ?? 'POST').toUpperCase();
			const url = new URL(isTest ? testWebhookUrl : webhookUrl);
			const req = {
				method,
				url: url.pathname,
				path: url.pathname,
				headers,
				body: body ?? {},
				rawBody,
				query: request.query ?? {},
				params: {},
				contentType: headers['content-type'].split(';')[0].trim(),
			};
			const res = new FakeResponse();
			res.onSent = request.onAnswer;

			// n8n runs a test delivery on the test registration's static data and does not save it.
			const workflow = loadWorkflow(isTest ? testStore : store);
			const additionalData = createAdditionalData({ credentials: options.credentials, webhookBaseUrl: options.webhookBaseUrl });
			additionalData.httpRequest = req as unknown as IWorkflowExecuteAdditionalData['httpRequest'];
			additionalData.httpResponse = res as unknown as IWorkflowExecuteAdditionalData['httpResponse'];
			// n8n opens the scope before it reads the webhook's path, and closes it once it has the reply.
			const openedScope = await openScope(workflow);
			deliveryScopes += 1;
			let scopeOpen = true;
			const release = async (): Promise<void> => {
				if (!scopeOpen) return;
				scopeOpen = false;
				deliveryScopes -= 1;
				await openedScope();
			};
			/** Whether n8n's request handler ever gets the reply, and so ever releases the scope. */
			let replyHandedOver = true;
			let receipt: WebhookReceipt;
			let startsExecution = false;
			try {
				const context = new WebhookContext(
					workflow,
					workflow.getNode(node.name)!,
					additionalData,
					isTest ? 'manual' : 'webhook',
					webhookData(workflow, additionalData, isTest),
					[],
					null,
				);
				// n8n evaluates the response mode before webhook() runs (webhook-helpers.js evaluateResponseOptions).
				// n8n 2.41 first resolves it natively (a field with a resolver, static parameters), else with the engine.
				const startNode = workflow.getNode(node.name)!;
				const native = resolveWebhookDescriptionField(startNode, webhookDescription(), 'responseMode');
				const responseMode = native.resolved
					? native.value
					: workflow.expression.getSimpleParameterValue(startNode, webhookDescription().responseMode, isTest ? 'manual' : 'webhook', {}, undefined, 'onReceived');
				const result = await options.nodeType.webhook!.call(context);
				startsExecution = result.workflowData !== undefined;
				if (startsExecution) await request.startsAfter;
				const streaming = responseMode === 'streaming' && result.workflowData !== undefined;
				if (result.noWebhookResponse === true && (!streaming || res.headersSent)) {
					// Sent by the node inside webhook(), serialized then (FakeResponse, as express).
					receipt = { status: res.statusCode, workflowData: result.workflowData, responseBody: res.body };
				} else if (streaming) {
					// n8n answers nothing itself: it hands the response to the execution, writes its chunks on it
					// and ends it once the execution has ended (active-executions.js finalizeExecution), whether
					// webhook() said noWebhookResponse or not. n8n 2.41.1's request handler gets a reply only when
					// webhook() said noWebhookResponse (webhook-helpers.js ~591, then at once); in streaming mode no
					// later path hands one over (~664-667 set didSendResponse, every later reply waits for
					// !didSendResponse), so live-webhooks.js ~141 never resolves and its `finally` (~153) never
					// releases the expression scope, unless n8n fails to create the execution (~830: the promise
					// rejects, the handler answers 500). With noWebhookResponse the handler has returned by then
					// and nobody answers a failed start: the node's own bound does.
					res.onSent = undefined;
					replyHandedOver = result.noWebhookResponse === true || request.startFails === true;
					// The reply (noWebhookResponse) was handed over as webhook() returned, before the run.
					if (result.noWebhookResponse === true) await release();
					if (request.startFails === true) {
						if (result.noWebhookResponse !== true) res.status(500).json({ code: 0, message: 'There was a problem executing the workflow' });
					} else if (!res.headersSent) {
						// The node answers when the run ends (Confirm Delivery): the run ends as the test says, at once by default.
						void (request.runEnds ?? Promise.resolve('succeeded')).then(() => res.end());
					}
					// A node that answered already (Stream AI Answers): the test ends the response as n8n would.
					await res.finished;
					receipt = { status: res.statusCode, workflowData: request.startFails === true ? undefined : result.workflowData, responseBody: res.body };
				} else if (result.workflowData === undefined) {
					receipt = {
						status: 200,
						responseBody: result.webhookResponse !== undefined ? result.webhookResponse : { message: 'Webhook call received' },
					};
				} else if (request.startFails === true) {
					receipt = { status: 500, responseBody: { code: 0, message: 'Workflow Webhook Error: Workflow could not be started!' } };
				} else {
					receipt = {
						status: 200,
						workflowData: result.workflowData,
						responseBody: result.webhookResponse !== undefined ? result.webhookResponse : { message: 'Workflow was started' },
					};
				}
				// n8n answers through the same response object (its `finish` follows) unless the node answered.
				if (!res.headersSent) {
					// `onAnswer` is told only what the node sends itself.
					res.onSent = undefined;
					res.status(receipt.status).json(receipt.responseBody);
				}
				receipt = { ...receipt, responseMode, response: res };
			} catch (error) {
				receipt = {
					status: 500,
					responseBody: { code: 0, message: 'Workflow Webhook Error: Workflow could not be started!' },
					error: error as Error,
				};
				// n8n answers a failed webhook() through the same response object (webhook-helpers.js ~561).
				if (!res.headersSent) {
					res.onSent = undefined;
					res.status(receipt.status).json(receipt.responseBody);
				}
			} finally {
				// n8n 2.41.1 saves a production webhook's static data after the call, but the execution the
				// call starts is created on the same static data, which resets n8n's "changed" flag first:
				// what webhook() changed is saved only when it started no execution.
				if (!isTest && !startsExecution) saveStaticData(workflow);
			}
			// A test delivery's reply is sent while n8n still holds the scope (it removes the test webhook
			// first); a production one after the scope was released.
			try {
				if (isTest) receipt = { ...receipt, responseBody: sent(receipt.responseBody) };
			} finally {
				if (replyHandedOver || isTest) await release();
			}
			return isTest ? receipt : { ...receipt, responseBody: sent(receipt.responseBody) };
		},
		async startTrigger(startOptions = {}) {
			const workflow = loadWorkflow();
			const additionalData = createAdditionalData({ credentials: options.credentials, webhookBaseUrl: options.webhookBaseUrl });
			const emitted: INodeExecutionData[][][] = [];
			const refused: string[] = [];
			const errors: Error[] = [];
			const waiters: Array<{ count: number; resolve: () => void }> = [];
			let dead = false;
			let emits = 0;
			/** What trigger() returned (set once it has returned). */
			const started: { response?: ITriggerResponse } = {};
			let closing: Promise<void> | undefined;
			const settle = (): void => {
				for (const waiter of waiters.splice(0)) {
					if (emitted.length >= waiter.count || errors.length > 0 || dead) waiter.resolve();
					else waiters.push(waiter);
				}
			};
			/** Emits whose execution n8n has not created yet (`executions: 'whenAsked'`). */
			const creating: Array<() => void> = [];
			/** Executions that run until the test finishes them (`executions: 'held'`). */
			const running: Array<() => void> = [];
			const close = async (): Promise<void> => {
				// n8n stopping the trigger cleanly still creates the executions it was emitted (a dead one does not).
				for (const create of creating.splice(0)) if (!dead) create();
				for (const finish of running.splice(0)) finish();
				closing ??= (async () => {
					await started.response?.closeFunction?.();
				})();
				await closing;
				settle();
			};
			const die = (): void => {
				dead = true;
				// A dead process runs nothing: stop the trigger in-process, without saving anything.
				void close();
			};
			const emit = (data: INodeExecutionData[][], _response?: unknown, done?: Parameters<ITriggerFunctions['emit']>[2], deduplicationKey?: string): void => {
				if (dead) return;
				emits++;
				const dieAt = startOptions.dieAtEmit;
				if (dieAt?.emit === emits && dieAt.when === 'before') return die();
				// n8n: `void saveStaticData(workflow)`, then the execution is created (not waiting for the save).
				if (dieAt?.emit !== emits || dieAt.when !== 'executionOnly') saveStaticData(workflow);
				if (dieAt?.emit === emits && dieAt.when === 'staticDataOnly') return die();
				const create = (): void => {
					// n8n 2.41 refuses an execution whose deduplication key one already has (a unique index),
					// logs a warning and runs nothing; the done promise resolves with nothing.
					if (deduplicationKey !== undefined) {
						if (executionKeys.has(deduplicationKey)) {
							refused.push(deduplicationKey);
							// n8n resolves it with nothing (its type says a run).
							done?.resolve(undefined as never);
							settle();
							return;
						}
						executionKeys.add(deduplicationKey);
					}
					emitted.push(data);
					if (dieAt?.emit === emits && dieAt.when === 'executionOnly') return die();
					startOptions.onEmit?.(data);
					const runWorkflow = startOptions.runWorkflow;
					if (runWorkflow) {
						void runWorkflow(data).then(
							(run) => done?.resolve(run as never),
							(error: unknown) => done?.reject(error as Error),
						);
					}
					// The execution has nothing to run here: it finishes at once, or when the test says.
					else if (startOptions.executions === 'held') running.push(() => done?.resolve(undefined as never));
					else done?.resolve(undefined as never);
					settle();
					if (dieAt?.emit === emits && dieAt.when === 'after') die();
				};
				if (startOptions.executions === 'whenAsked') creating.push(create);
				else create();
			};
			const emitError = (error: Error): void => {
				if (dead) return;
				errors.push(error);
				settle();
				// n8n removes a failed trigger (and queues a new activation with backoff).
				void close();
			};
			// n8n activates a workflow in a scope of its expressions, released once trigger() has returned.
			const release = await openScope(workflow);
			try {
				const context = new TriggerContext(workflow, workflow.getNode(node.name)!, additionalData, 'trigger', 'activate', emit, emitError);
				// A dead process sends nothing more: its requests fail from the moment it dies (die() then
				// stops the trigger in-process, and what its closeFunction would send never leaves).
				const send = context.helpers.httpRequestWithAuthentication;
				context.helpers.httpRequestWithAuthentication = async function (this: ThisParameterType<typeof send>, ...args: Parameters<typeof send>) {
					if (dead) throw new Error('Test harness: this n8n process has died');
					return await send.apply(this, args);
				};
				const response = await triggerFn().call(context);
				// n8n-core runs closeFunction in a scope of its own (withIsolate).
				const closeFunction = response?.closeFunction;
				if (response && closeFunction) response.closeFunction = async () => await inScope(workflow, async () => await closeFunction.call(response));
				started.response = response;
			} finally {
				await release();
			}
			saveStaticData(workflow);
			return {
				emitted,
				refused,
				errors,
				get closed() {
					return closing !== undefined;
				},
				get emits() {
					return emits;
				},
				createExecutions: () => {
					for (const create of creating.splice(0)) if (!dead) create();
				},
				finishExecutions: () => {
					for (const finish of running.splice(0)) finish();
				},
				kill: () => {
					creating.length = 0;
					die();
				},
				waitForEmits: async (count = emitted.length + 1) =>
					await new Promise<void>((resolve) => {
						waiters.push({ count, resolve });
						settle();
					}),
				close,
			};
		},
		async startManualTrigger() {
			// n8n's manual execution: the workflow's static data, never saved afterwards.
			const workflow = loadWorkflow();
			const additionalData = createAdditionalData({ credentials: options.credentials, webhookBaseUrl: options.webhookBaseUrl });
			const context = new TriggerContext(workflow, workflow.getNode(node.name)!, additionalData, 'manual', 'manual');
			let response: ITriggerResponse | undefined;
			// The manual execution's scope (WorkflowExecute): from trigger() to the end of the run, which
			// calls closeFunction; here it ends with close().
			const release = await openScope(workflow);
			const result = (async (): Promise<{ items?: INodeExecutionData[][]; error?: Error }> => {
				try {
					response = await triggerFn().call(context);
				} catch (error) {
					await release();
					return { error: error as Error };
				}
				const first = new Promise<{ items?: INodeExecutionData[][]; error?: Error }>((resolve) => {
					// n8n's TriggersAndPollers installs the test's emit and emitError the same way.
					const installed = context as unknown as { emit: (data: INodeExecutionData[][]) => void; emitError: (error: Error) => void };
					installed.emit = (data) => resolve({ items: data });
					installed.emitError = (error) => resolve({ error });
				});
				await response?.manualTriggerFunction?.();
				return await first;
			})();
			return {
				result,
				close: async () => {
					try {
						await response?.closeFunction?.();
					} finally {
						await release();
					}
				},
			};
		},
	};
	return harness;
}

export interface WebhookServer {
	url: string;
	/** The `workflowData` of each delivery that started a workflow, in arrival order. */
	executions: INodeExecutionData[][][];
	/** Every delivery with its answer, in arrival order (not the triggers' probes of each other). */
	receipts: WebhookReceipt[];
	/**
	 * The probes one trigger sent another (a body with `service_bot_probe: true`: "does this n8n still
	 * serve you?"), with their answers, in arrival order.
	 */
	probes: Array<{ path: string; status: number }>;
	/** The deliveries that started this harness's workflow (production or test), in arrival order. */
	executionsOf(harness: TriggerHarness, mode?: HookMode): INodeExecutionData[][][];
	close(): Promise<void>;
}

/** A TCP port that was free a moment ago, for a `webhookBaseUrl` the webhook server will then listen on. */
export async function freePort(): Promise<number> {
	const probe = http.createServer();
	await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
	const { port } = probe.address() as AddressInfo;
	await new Promise<void>((resolve) => probe.close(() => resolve()));
	return port;
}

/**
 * A real HTTP server on 127.0.0.1 that routes `POST <path of harness.webhookUrl>` (and the test URL)
 * to `harness.receive()`, so the emulator can push updates to it; several harnesses of the same n8n
 * (the same `webhookBaseUrl`) share it, as the workflows of one n8n share its port. Other paths
 * answer 404 as n8n does for an unknown webhook, but resume URLs (`/webhook-waiting/…`) when
 * `waiting` is given: n8n serves both on one port. It listens on the port of the first harness's
 * `webhookUrl` when that is a loopback URL with an explicit port (create the harness with
 * `webhookBaseUrl: http://127.0.0.1:${await freePort()}/`), otherwise on a free port (then only
 * `url` + path reaches it).
 */
export async function startWebhookServer(
	served: TriggerHarness | TriggerHarness[],
	options: {
		waiting?: WaitingRouter;
		/** A delivery to `path` waits for the promise this returns before its trigger gets it (a slow listener). */
		hold?: (path: string) => Promise<void> | undefined;
		/** How the run a delivery to `path` starts ends (`WebhookRequest.runEnds`); called when webhook() is called. */
		runEnds?: (path: string) => Promise<'succeeded' | 'failed'> | undefined;
		/**
		 * An answer n8n gives a request to `path` before any workflow sees it (e.g. its
		 * `503 Database is not ready!` under load); undefined lets the request through.
		 */
		refuse?: (path: string) => { status: number; body: unknown } | undefined;
		/** How n8n creates the execution a delivery to `path` starts (`WebhookRequest.startsAfter`, `startFails`); called per delivery. */
		starts?: (path: string) => Pick<WebhookRequest, 'startsAfter' | 'startFails'> | undefined;
	} = {},
): Promise<WebhookServer> {
	const harnesses = Array.isArray(served) ? served : [served];
	const routes = new Map<string, { harness: TriggerHarness; mode: HookMode }>();
	for (const harness of harnesses) {
		routes.set(new URL(harness.webhookUrl).pathname.replace(/\/+$/, ''), { harness, mode: 'trigger' });
		routes.set(new URL(harness.testWebhookUrl).pathname.replace(/\/+$/, ''), { harness, mode: 'manual' });
	}
	const executions: INodeExecutionData[][][] = [];
	const receipts: WebhookReceipt[] = [];
	const probes: Array<{ path: string; status: number }> = [];
	const isProbe = (body: Buffer): boolean => {
		try {
			return (JSON.parse(body.toString('utf8')) as Record<string, unknown> | null)?.service_bot_probe === true;
		} catch {
			return false;
		}
	};
	const byRoute = new Map<string, INodeExecutionData[][][]>();
	const routeKey = (harness: TriggerHarness, mode: HookMode): string => `${harness.node.webhookId ?? ''}:${mode}`;

	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const requestUrl = new URL(req.url ?? '/', 'http://127.0.0.1');
			const path = requestUrl.pathname.replace(/\/+$/, '');
			// The same n8n serves the resume URLs of waiting executions.
			if (options.waiting && path.includes('/webhook-waiting/')) {
				options.waiting.handle(req, Buffer.concat(chunks), res);
				return;
			}
			const route = routes.get(path);
			let replied = false;
			// Once: a node that answered itself (before webhook() returned) has been answered.
			const reply = (status: number, body: unknown) => {
				if (replied) return;
				replied = true;
				const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
				const type = typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json';
				res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
				res.end(text);
			};
			const probe = isProbe(Buffer.concat(chunks));
			if (route === undefined || req.method !== 'POST') {
				if (probe) probes.push({ path, status: 404 });
				reply(404, { code: 404, message: 'The requested webhook is not registered.' });
				return;
			}
			const refusal = options.refuse?.(path);
			if (refusal) {
				if (probe) probes.push({ path, status: refusal.status });
				reply(refusal.status, refusal.body);
				return;
			}
			const headers: Record<string, string> = {};
			for (const [name, value] of Object.entries(req.headers)) {
				if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
			}
			const query = Object.fromEntries(requestUrl.searchParams.entries());
			Promise.resolve(probe ? undefined : options.hold?.(path))
				.then(
					async () =>
						await route.harness.receive({
							headers,
							rawBody: Buffer.concat(chunks),
							method: req.method,
							mode: route.mode,
							query,
							onAnswer: reply,
							runEnds: probe ? undefined : options.runEnds?.(path),
							...(probe ? {} : options.starts?.(path)),
						}),
				)
				.then((receipt) => {
					if (probe) probes.push({ path, status: receipt.status });
					else receipts.push(receipt);
					if (receipt.workflowData) {
						executions.push(receipt.workflowData);
						const key = routeKey(route.harness, route.mode);
						byRoute.set(key, [...(byRoute.get(key) ?? []), receipt.workflowData]);
					}
					reply(receipt.status, receipt.responseBody);
				})
				.catch((error: unknown) => reply(500, { message: String(error) }));
		});
	});
	// Deliveries are short; keep-alive sockets would otherwise hold close() up.
	server.keepAliveTimeout = 1000;
	const target = new URL(harnesses[0].webhookUrl);
	const loopback = ['127.0.0.1', 'localhost'].includes(target.hostname);
	const wantedPort = loopback && target.port ? Number(target.port) : 0;
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(wantedPort, '127.0.0.1', () => {
			server.off('error', reject);
			resolve();
		});
	});
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		executions,
		receipts,
		probes,
		executionsOf: (harness, mode = 'trigger') => byRoute.get(routeKey(harness, mode)) ?? [],
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
		},
	};
}
