/**
 * Waiting executions (Send and Wait for Response), run the way n8n 2.41 runs them (its
 * packages/cli/src/webhooks/waiting-webhooks.ts and wait-tracker.ts, read for behaviour):
 * - an execution whose node put it to wait keeps its run data; nothing of the node stays in memory;
 * - an answer arrives at the resume URL `<base>webhook-waiting/<executionId>/<nodeId>?…&signature=…`:
 *   n8n checks the signature (the instance's HMAC over the URL) before the node's `webhook()` runs,
 *   in a WebhookContext on the stored run data; what `webhook()` returns becomes the node's output and
 *   the execution goes on; when it returns no workflow data the execution keeps waiting;
 * - a wait that runs out goes on with the node disabled, passing its stored input on;
 * - an answer to an execution that went on (answered, or its wait ran out) gets n8n's "no action
 *   required" page with status 200, as n8n answers a finished send-and-wait execution; an unknown
 *   execution gets 404.
 * `serveWaiting()` puts the resume URLs on a real HTTP server, so a trigger can resume over HTTP.
 */
// n8n-core keeps its own copy of @n8n/di: the container its InstanceSettings (the signing secret) live in.
import { Container } from 'n8n-core/node_modules/@n8n/di';
import { InstanceSettings, validateUrlSignature, WAITING_TOKEN_QUERY_PARAM, WebhookContext, WorkflowExecute } from 'n8n-core';
import type {
	IHttpRequestMethods,
	INodeType,
	IRun,
	IWebhookData,
	IWebhookDescription,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { ExecuteNodeOptions, ExecuteNodeResult, PreparedExecution } from './execute-node';
import { prepareExecution, resultOf, startExecution } from './execute-node';
import { FakeResponse } from './fake-response';

export interface AnswerRequest {
	method: 'GET' | 'POST';
	/** The resume URL as the node made it (n8n's signed URL), with any extra query parameters. */
	url: string;
	headers?: Record<string, string>;
	/** The body as sent (a JSON or form body is parsed for `getBodyData()` as n8n does). */
	rawBody?: string;
}

export interface AnswerReceipt {
	status: number;
	contentType?: string;
	body: unknown;
	/** The execution's result when the answer resumed it. */
	resumed?: ExecuteNodeResult;
}

export interface WaitingExecution {
	readonly executionId: string;
	/** The run up to the wait (status 'waiting', `waitTill` set). */
	readonly firstRun: IRun;
	/** The result once the execution went on, by an answer or by the timeout. */
	readonly finished?: ExecuteNodeResult;
	answer(request: AnswerRequest): Promise<AnswerReceipt>;
	/** The wait runs out now (n8n's WaitTracker at `waitTill`). */
	timeOut(): Promise<ExecuteNodeResult>;
}

/** n8n's page (view `send-and-wait-no-action-required`) for an answer that comes too late. */
export const NO_ACTION_REQUIRED_PAGE = '<!DOCTYPE html><html><body><p>No action required</p></body></html>';

function parseBody(raw: string, contentType: string): unknown {
	if (raw === '') return {};
	if (contentType.includes('application/json')) return JSON.parse(raw) as unknown;
	if (contentType.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(raw));
	return {};
}

/** Runs the node under test until it waits; fails when it does not wait. */
export async function runUntilWait(options: ExecuteNodeOptions): Promise<WaitingExecution> {
	const prepared: PreparedExecution = prepareExecution(options);
	const firstRun = await startExecution(prepared);
	if (firstRun.status !== 'waiting' || !firstRun.data.waitTill) {
		const { error } = resultOf(firstRun, prepared.node);
		throw new Error(`the node did not wait (status ${firstRun.status}${error ? `: ${error.message}` : ''})`);
	}
	const { workflow, additionalData, node } = prepared;
	const executionId = String(additionalData.executionId);
	let finished: ExecuteNodeResult | undefined;

	/** The execution goes on from the stored run data, as n8n runs a resumed execution. */
	const goOn = async (): Promise<ExecuteNodeResult> => {
		const run = await new WorkflowExecute(additionalData, 'manual', firstRun.data).processRunExecutionData(workflow);
		finished = resultOf(run, node);
		return finished;
	};

	const webhookData = (method: IHttpRequestMethods, data: IWorkflowExecuteAdditionalData): IWebhookData => {
		const description = workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion).description;
		const webhookDescription = description.webhooks?.find(
			(webhook: IWebhookDescription) => webhook.restartWebhook === true && webhook.httpMethod === method,
		);
		if (!webhookDescription) throw new Error(`no waiting webhook for ${method}`);
		return {
			httpMethod: method,
			node: node.name,
			path: node.id,
			webhookDescription,
			workflowId: String(workflow.id),
			workflowExecuteAdditionalData: data,
			webhookId: undefined,
		};
	};

	const execution: WaitingExecution = {
		executionId,
		firstRun,
		get finished() {
			return finished;
		},
		async answer(request) {
			const url = new URL(request.url);
			const signature = url.searchParams.get(WAITING_TOKEN_QUERY_PARAM) ?? '';
			const secret = Container.get(InstanceSettings).hmacSignatureSecret;
			if (signature === '' || !validateUrlSignature(signature, url, secret)) return { status: 401, body: { error: 'Invalid token' } };
			if (!url.pathname.endsWith(`/${executionId}/${encodeURIComponent(node.id)}`)) return { status: 404, body: { error: 'Not found' } };
			if (finished) return { status: 200, contentType: 'text/html; charset=utf-8', body: NO_ACTION_REQUIRED_PAGE };

			const headers: Record<string, string> = {};
			for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
			const rawBody = request.rawBody ?? '';
			const contentType = headers['content-type'] ?? '';
			const req = {
				method: request.method,
				url: `${url.pathname}${url.search}`,
				path: url.pathname,
				headers,
				query: Object.fromEntries(url.searchParams),
				body: parseBody(rawBody, contentType),
				rawBody: Buffer.from(rawBody, 'utf8'),
				params: {},
				contentType: contentType.split(';')[0].trim(),
			};
			const res = new FakeResponse();
			additionalData.httpRequest = req as unknown as IWorkflowExecuteAdditionalData['httpRequest'];
			additionalData.httpResponse = res as unknown as IWorkflowExecuteAdditionalData['httpResponse'];
			const nodeType = workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion) as INodeType;
			const context = new WebhookContext(
				workflow,
				workflow.getNode(node.name)!,
				additionalData,
				'manual',
				webhookData(request.method, additionalData),
				[],
				firstRun.data,
			);
			const result = await nodeType.webhook!.call(context);
			const receipt: AnswerReceipt = { status: res.statusCode, contentType: res.getHeader('content-type'), body: res.body };
			if (result.workflowData === undefined) return receipt;
			// n8n: the waiting run of the node is dropped, and its stack entry gets the webhook's data and passes it on.
			firstRun.data.resultData.runData[node.name]?.pop();
			const entry = firstRun.data.executionData!.nodeExecutionStack[0];
			entry.data.main = result.workflowData;
			entry.node.disabled = true;
			entry.metadata = { ...entry.metadata, forwardAllOutputs: true };
			firstRun.data.waitTill = undefined;
			return { ...receipt, resumed: await goOn() };
		},
		async timeOut() {
			if (finished) throw new Error('the execution has finished already');
			return await goOn();
		},
	};
	return execution;
}

export interface WaitingServer {
	/** n8n's webhook base for `webhookBaseUrl`: `http://127.0.0.1:<port>/`. */
	baseUrl: string;
	/** Serves the resume URLs of this execution. */
	add(execution: WaitingExecution): void;
	/** Every answer that reached the server, in order. */
	receipts: AnswerReceipt[];
	close(): Promise<void>;
}

/** A real HTTP server for resume URLs (`/webhook-waiting/<executionId>/…`), answering as n8n does. */
export async function serveWaiting(): Promise<WaitingServer> {
	const executions = new Map<string, WaitingExecution>();
	const receipts: AnswerReceipt[] = [];
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const url = new URL(req.url ?? '/', base);
			const executionId = /^\/webhook-waiting\/([^/]+)\//.exec(url.pathname)?.[1] ?? '';
			const execution = executions.get(executionId);
			const send = (status: number, body: unknown, type = 'application/json') => {
				const text = typeof body === 'string' ? body : JSON.stringify(body ?? null);
				res.writeHead(status, { 'content-type': type });
				res.end(text);
			};
			if (!execution) {
				send(404, { error: `The execution "${executionId}" does not exist.` });
				return;
			}
			const headers: Record<string, string> = {};
			for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers[name] = value;
			execution
				.answer({ method: req.method === 'POST' ? 'POST' : 'GET', url: url.toString(), headers, rawBody: Buffer.concat(chunks).toString('utf8') })
				.then((receipt) => {
					receipts.push(receipt);
					send(receipt.status, receipt.body, receipt.contentType ?? 'application/json');
				})
				.catch((error: unknown) => send(500, { error: String(error) }));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
	return {
		baseUrl: base,
		add: (execution) => executions.set(execution.executionId, execution),
		receipts,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
