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
 *   `__dataChanged`); every call starts from the last saved state. Test-mode registrations share the
 *   same store here (n8n keeps them in the test-webhook registration instead).
 */
import { HookContext, WebhookContext } from 'n8n-core';
import type {
	IDataObject,
	IHttpRequestMethods,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IWebhookData,
	IWebhookDescription,
	IWorkflowExecuteAdditionalData,
	WebhookSetupMethodNames,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { captureErrorReports } from './error-reports';
import { createAdditionalData } from './additional-data';
import type { TestCredentials } from './credentials-helper';
import { TEST_CREDENTIAL_REF } from './execute-node';
import { latestVersion, TestNodeTypes } from './node-types';

export type HookMode = 'trigger' | 'manual';

export interface TriggerHarnessOptions {
	nodeType: INodeType;
	parameters: INodeParameters;
	credentials: TestCredentials;
	/** What the node sees as n8n's webhook base (N8N_WEBHOOK_URL), e.g. `http://127.0.0.1:PORT/`. */
	webhookBaseUrl: string;
	workflowId?: string;
	webhookId?: string;
	nodeId?: string;
	/** Workflow static data to share between harnesses (simulates persistence / another process). */
	staticData?: IDataObject;
	typeVersion?: number;
}

export interface WebhookRequest {
	headers?: Record<string, string>;
	body?: unknown;
	rawBody?: Buffer;
	method?: string;
	/** 'manual' delivers to the test webhook (execution mode 'manual'); default production. */
	mode?: HookMode;
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
}

export interface TriggerHarness {
	/** The node's production webhook URL as n8n computes it (`getNodeWebhookUrl('default')`). */
	readonly webhookUrl: string;
	/** The test ('manual') webhook URL. */
	readonly testWebhookUrl: string;
	readonly staticData: IDataObject;
	readonly node: INode;
	checkExists(mode?: HookMode): Promise<boolean>;
	create(mode?: HookMode): Promise<boolean>;
	delete(mode?: HookMode): Promise<boolean>;
	/** n8n's activation: checkExists, then create when it returned false. Returns whether create ran. */
	activate(mode?: HookMode): Promise<boolean>;
	/** Runs `node.webhook()` in a fresh WebhookContext with a fake express req/res. */
	receive(request: WebhookRequest): Promise<WebhookReceipt>;
}

/** The subset of express's Response that nodes use; records what was sent. */
class FakeResponse {
	statusCode = 200;
	headersSent = false;
	body: unknown = undefined;
	readonly headers: Record<string, string> = {};

	status(code: number): this {
		this.statusCode = code;
		return this;
	}

	sendStatus(code: number): this {
		return this.status(code).send(String(code));
	}

	setHeader(name: string, value: string): this {
		this.headers[name.toLowerCase()] = String(value);
		return this;
	}

	header(name: string, value: string): this {
		return this.setHeader(name, value);
	}

	set(name: string, value: string): this {
		return this.setHeader(name, value);
	}

	getHeader(name: string): string | undefined {
		return this.headers[name.toLowerCase()];
	}

	json(body: unknown): this {
		this.setHeader('content-type', 'application/json; charset=utf-8');
		return this.send(body);
	}

	send(body?: unknown): this {
		if (this.headersSent) throw new Error('Test harness: the response was already sent');
		this.body = body;
		this.headersSent = true;
		return this;
	}

	end(body?: unknown): this {
		if (!this.headersSent) this.send(body);
		return this;
	}
}

function defaultWebhook(webhooks: IWebhookDescription[] | undefined, type: string): IWebhookDescription {
	const found = webhooks?.find((webhook) => webhook.name === 'default');
	if (!found) throw new Error(`Test harness: ${type} has no 'default' webhook`);
	return found;
}

function cloneJson<T>(value: T): T {
	return JSON.parse(JSON.stringify(value)) as T;
}

export function createTriggerHarness(options: TriggerHarnessOptions): TriggerHarness {
	captureErrorReports();
	const nodeTypes = new TestNodeTypes();
	const type = nodeTypes.add(options.nodeType);
	const typeVersion = options.typeVersion ?? latestVersion(options.nodeType);
	const description = nodeTypes.getByNameAndVersion(type, typeVersion).description;
	const workflowId = options.workflowId ?? `wf-${randomUUID().slice(0, 8)}`;
	const store: IDataObject = options.staticData ?? {};
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
	const webhookDescription = defaultWebhook(description.webhooks, type);

	/** A workflow as a fresh process loads it: static data from the store, nothing shared in memory. */
	function loadWorkflow(): Workflow {
		return new Workflow({
			id: workflowId,
			name: 'Trigger harness workflow',
			nodes: [cloneJson(node)],
			connections: {},
			active: true,
			nodeTypes,
			staticData: cloneJson(store),
			settings: { executionOrder: 'v1' },
		});
	}

	function saveStaticData(workflow: Workflow): void {
		if (workflow.staticData.__dataChanged !== true) return;
		const saved = cloneJson(workflow.staticData);
		for (const key of Object.keys(store)) delete store[key];
		Object.assign(store, saved);
	}

	function webhookData(
		workflow: Workflow,
		additionalData: IWorkflowExecuteAdditionalData,
		isTest: boolean,
	): IWebhookData {
		const path = String(workflow.expression.getSimpleParameterValue(node, webhookDescription.path, 'internal', {}));
		return {
			httpMethod: String(webhookDescription.httpMethod) as IHttpRequestMethods,
			node: node.name,
			path: `${node.webhookId}/${path.replace(/^\/+|\/+$/g, '')}`,
			webhookDescription: webhookDescription,
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
		const workflow = loadWorkflow();
		const additionalData = createAdditionalData({ credentials: options.credentials, webhookBaseUrl: options.webhookBaseUrl });
		const workflowNode = workflow.getNode(node.name)!;
		const context = new HookContext(
			workflow,
			workflowNode,
			additionalData,
			mode,
			activation,
			webhookData(workflow, additionalData, isTest),
		);
		try {
			return (await fn.call(context)) as boolean;
		} finally {
			saveStaticData(workflow);
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

	const webhookUrl = urlFor('trigger');
	const testWebhookUrl = urlFor('manual');

	const harness: TriggerHarness = {
		webhookUrl,
		testWebhookUrl,
		staticData: store,
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
				query: {},
				params: {},
				contentType: headers['content-type'].split(';')[0].trim(),
			};
			const res = new FakeResponse();

			const workflow = loadWorkflow();
			const additionalData = createAdditionalData({ credentials: options.credentials, webhookBaseUrl: options.webhookBaseUrl });
			additionalData.httpRequest = req as unknown as IWorkflowExecuteAdditionalData['httpRequest'];
			additionalData.httpResponse = res as unknown as IWorkflowExecuteAdditionalData['httpResponse'];
			const context = new WebhookContext(
				workflow,
				workflow.getNode(node.name)!,
				additionalData,
				isTest ? 'manual' : 'webhook',
				webhookData(workflow, additionalData, isTest),
				[],
				null,
			);
			try {
				const result = await options.nodeType.webhook!.call(context);
				if (result.noWebhookResponse === true) {
					return { status: res.statusCode, workflowData: result.workflowData, responseBody: res.body };
				}
				if (result.workflowData === undefined) {
					return {
						status: 200,
						responseBody: result.webhookResponse !== undefined ? result.webhookResponse : { message: 'Webhook call received' },
					};
				}
				return {
					status: 200,
					workflowData: result.workflowData,
					responseBody: result.webhookResponse !== undefined ? result.webhookResponse : { message: 'Workflow was started' },
				};
			} catch (error) {
				return {
					status: 500,
					responseBody: { code: 0, message: 'Workflow Webhook Error: Workflow could not be started!' },
					error: error as Error,
				};
			} finally {
				saveStaticData(workflow);
			}
		},
	};
	return harness;
}

export interface WebhookServer {
	url: string;
	/** The `workflowData` of each delivery that started the workflow, in arrival order. */
	executions: INodeExecutionData[][][];
	/** Every delivery with its answer, in arrival order. */
	receipts: WebhookReceipt[];
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
 * to `harness.receive()`, so the emulator can push updates to it. Other paths answer 404 as n8n does
 * for an unknown webhook. It listens on the port of `harness.webhookUrl` when that is a loopback URL
 * with an explicit port (create the harness with `webhookBaseUrl: http://127.0.0.1:${await freePort()}/`),
 * otherwise on a free port (then only `url` + path reaches it).
 */
export async function startWebhookServer(harness: TriggerHarness): Promise<WebhookServer> {
	const productionPath = new URL(harness.webhookUrl).pathname;
	const testPath = new URL(harness.testWebhookUrl).pathname;
	const executions: INodeExecutionData[][][] = [];
	const receipts: WebhookReceipt[] = [];

	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const path = (req.url ?? '').split('?')[0].replace(/\/+$/, '');
			const mode: HookMode | undefined =
				path === productionPath ? 'trigger' : path === testPath ? 'manual' : undefined;
			const reply = (status: number, body: unknown) => {
				const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
				const type = typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json';
				res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
				res.end(text);
			};
			if (mode === undefined || req.method !== 'POST') {
				reply(404, { code: 404, message: 'The requested webhook is not registered.' });
				return;
			}
			const headers: Record<string, string> = {};
			for (const [name, value] of Object.entries(req.headers)) {
				if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
			}
			harness
				.receive({ headers, rawBody: Buffer.concat(chunks), method: req.method, mode })
				.then((receipt) => {
					receipts.push(receipt);
					if (receipt.workflowData) executions.push(receipt.workflowData);
					reply(receipt.status, receipt.responseBody);
				})
				.catch((error: unknown) => reply(500, { message: String(error) }));
		});
	});
	// Deliveries are short; keep-alive sockets would otherwise hold close() up.
	server.keepAliveTimeout = 1000;
	const target = new URL(harness.webhookUrl);
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
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
		},
	};
}
