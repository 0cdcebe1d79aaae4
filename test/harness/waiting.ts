/**
 * Waiting executions (Send and Wait for Response), run the way n8n 2.41.1 runs them (its
 * packages/cli/src/webhooks/waiting-webhooks.ts, webhook-helpers.ts and active-executions.ts, read for
 * behaviour):
 * - an execution whose node put it to wait keeps its run data; nothing of the node stays in memory;
 * - a request arrives at `<base>webhook-waiting/<executionId>/<suffix>`. When the suffix is the id of a
 *   node whose operation is `sendAndWait`, n8n checks the URL's `signature` (the instance's HMAC over
 *   the URL); for any other suffix it compares `signature` with the execution's resume token. Then: an
 *   execution that is running gets 409; one that has finished gets n8n's "no action required" page
 *   (send-and-wait suffix) or 409; a suffix without a matching restart webhook gets 404;
 * - otherwise the node's `webhook()` runs, in a WebhookContext on the stored run data, for every
 *   request that got this far: two answers arriving together both reach it;
 * - what `webhook()` returns: a response it wrote itself is sent; without workflow data its
 *   `webhookResponse` is sent and the execution keeps waiting; with workflow data n8n marks the
 *   execution running only if it still waits (a conditional update: exactly one request wins), then
 *   sends `webhookResponse` as JSON, and the execution goes on afterwards, its node's output being that
 *   workflow data. A request that loses gets 500 ("There was a problem executing the workflow");
 * - expressions (test/harness/expression-engine.ts): each request loads the workflow afresh and runs in
 *   a scope of its expressions, acquired before the webhook's path is evaluated and released once n8n
 *   has its reply, before it sends it (waiting-webhooks.js getWebhookExecutionData: acquireIsolate …
 *   `finally releaseIsolate()`; the request handler then `res.json()`s the reply): a reply serialized
 *   by its `toJSON` can no longer evaluate the node's expressions. What the node sent itself
 *   (`res.json()` inside `webhook()`) was serialized inside the scope;
 * - a wait that runs out goes on with the node disabled, passing its stored input on;
 * - an execution that goes on may wait again (a loop that asks again): it then waits on the new question.
 * `serveWaiting()` puts the resume URLs on a real HTTP server, so a trigger can resume over HTTP.
 */
// n8n-core keeps its own copy of @n8n/di: the container its InstanceSettings (the signing secret) live in.
import { Container } from 'n8n-core/node_modules/@n8n/di';
import {
	generateUrlSignature,
	InstanceSettings,
	prepareUrlForSigning,
	validateUrlSignature,
	WAITING_TOKEN_QUERY_PARAM,
	WebhookContext,
	WorkflowExecute,
} from 'n8n-core';
import type {
	IHttpRequestMethods,
	INodeType,
	IRun,
	IWebhookData,
	IWebhookDescription,
	IWorkflowExecuteAdditionalData,
	Workflow,
} from 'n8n-workflow';
import { SEND_AND_WAIT_OPERATION } from 'n8n-workflow';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { ExecuteNodeOptions, ExecuteNodeResult, PreparedExecution } from './execute-node';
import { prepareExecution, resultOf, startExecution } from './execute-node';
import { expressionEngine, openScope } from './expression-engine';
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
	/** What the client received: a JSON reply parsed, a page as text. */
	body: unknown;
	/** When this request resumed the execution: its result once it has gone on (n8n answers before that). */
	resumed?: Promise<ExecuteNodeResult>;
}

export type WaitingState = 'waiting' | 'running' | 'finished';

export interface WaitingExecution {
	readonly executionId: string;
	/** The run up to the first wait (status 'waiting', `waitTill` set). */
	readonly firstRun: IRun;
	readonly state: WaitingState;
	/** The result once the execution went on, by an answer or by the timeout (its latest run). */
	readonly finished?: ExecuteNodeResult;
	/** The execution's resume token (what `$execution.resumeUrl` carries). */
	readonly resumeToken: string;
	answer(request: AnswerRequest): Promise<AnswerReceipt>;
	/** Resolves once the execution is not running (waiting again, or finished). */
	settled(): Promise<void>;
	/** The wait runs out now (n8n's WaitTracker at `waitTill`). */
	timeOut(): Promise<ExecuteNodeResult>;
}

/** n8n's page (view `send-and-wait-no-action-required`) for an answer that comes too late. */
export const NO_ACTION_REQUIRED_PAGE = '<!DOCTYPE html><html><body><p>No action required</p></body></html>';

/** n8n's reply to a request whose resume lost to another one (ExecutionAlreadyResumingError, reported as a 500). */
export const RESUME_LOST = { code: 0, message: 'There was a problem executing the workflow' };

function parseBody(raw: string, contentType: string): unknown {
	if (raw === '') return {};
	if (contentType.includes('application/json')) return JSON.parse(raw) as unknown;
	if (contentType.includes('application/x-www-form-urlencoded') || contentType.includes('text/plain')) return Object.fromEntries(new URLSearchParams(raw));
	return {};
}

/** What a client reads of a body as n8n sends it: JSON serialized (and parsed back), text as it is. */
function received(body: unknown): unknown {
	return typeof body === 'string' || body === undefined ? body : (JSON.parse(JSON.stringify(body)) as unknown);
}

/** Runs the node under test until it waits; fails when it does not wait. */
/**
 * `resumeGuard: false` answers as n8n 1.x does: it has no conditional update, so a request whose
 * `webhook()` resumes while another resume of the same wait is under way resumes it as well.
 */
export async function runUntilWait(options: ExecuteNodeOptions, { resumeGuard = true } = {}): Promise<WaitingExecution> {
	const prepared: PreparedExecution = prepareExecution(options);
	const firstRun = await startExecution(prepared);
	if (firstRun.status !== 'waiting' || !firstRun.data.waitTill) {
		const { error } = resultOf(firstRun, prepared.node);
		throw new Error(`the node did not wait (status ${firstRun.status}${error ? `: ${error.message}` : ''})`);
	}
	const { additionalData, node } = prepared;
	const executionId = String(additionalData.executionId);
	const resumeToken = firstRun.data.resumeToken ?? '';
	let run: IRun = firstRun;
	let state: WaitingState = 'waiting';
	let finished: ExecuteNodeResult | undefined;
	let going: Promise<ExecuteNodeResult> | undefined;

	/**
	 * The execution goes on from the stored run data, as n8n runs a resumed execution: on the workflow
	 * loaded again, in WorkflowExecute's own scope of its expressions.
	 */
	const goOn = async (): Promise<ExecuteNodeResult> => {
		state = 'running';
		await expressionEngine();
		run = await new WorkflowExecute(additionalData, 'manual', run.data).processRunExecutionData(prepared.loadWorkflow());
		// The node's latest run: a node that asks again has one run per question.
		const result = resultOf(run, node, 'last');
		if (run.status === 'waiting' && run.data.waitTill) {
			state = 'waiting';
		} else {
			state = 'finished';
			finished = result;
		}
		return result;
	};

	/** The node's restart webhook for `method` and `path`, its path evaluated as n8n does (in the request's scope). */
	const webhookData = (loaded: Workflow, method: IHttpRequestMethods, path: string, data: IWorkflowExecuteAdditionalData): IWebhookData | undefined => {
		const loadedNode = loaded.getNode(node.name)!;
		const description = loaded.nodeTypes.getByNameAndVersion(node.type, node.typeVersion).description;
		const webhookDescription = description.webhooks?.find((webhook: IWebhookDescription) => {
			const webhookPath = String(loaded.expression.getSimpleParameterValue(loadedNode, webhook.path, 'internal', {}));
			return webhook.restartWebhook === true && webhook.httpMethod === method && webhookPath === path;
		});
		if (!webhookDescription) return undefined;
		return {
			httpMethod: method,
			node: node.name,
			path,
			webhookDescription,
			workflowId: String(loaded.id),
			workflowExecuteAdditionalData: data,
			webhookId: undefined,
		};
	};

	const isSendAndWait = (suffix: string) => suffix === node.id && node.parameters.operation === SEND_AND_WAIT_OPERATION;

	const execution: WaitingExecution = {
		executionId,
		firstRun,
		resumeToken,
		get state() {
			return state;
		},
		get finished() {
			return finished;
		},
		async answer(request) {
			const url = new URL(request.url);
			const [, , id = '', suffix = ''] = url.pathname.replace(/^\/+/, '/').split('/').slice(-4);
			const signature = url.searchParams.get(WAITING_TOKEN_QUERY_PARAM) ?? '';
			if (id !== executionId) return { status: 404, body: { code: 404, message: `The execution "${id}" does not exist.` } };
			if (isSendAndWait(suffix)) {
				const secret = Container.get(InstanceSettings).hmacSignatureSecret;
				if (signature === '' || !validateUrlSignature(signature, url, secret)) return { status: 401, body: { error: 'Invalid token' } };
			} else if (signature !== resumeToken) {
				return { status: 401, body: { error: 'Invalid token' } };
			}
			if (state === 'running') return { status: 409, body: { code: 409, message: `The execution "${executionId}" is running already.` } };
			if (state === 'finished') {
				return isSendAndWait(suffix)
					? { status: 200, contentType: 'text/html; charset=utf-8', body: NO_ACTION_REQUIRED_PAGE }
					: { status: 409, body: { code: 409, message: `The execution "${executionId} has finished already.` } };
			}

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
			// Each request gets its own additional data, as n8n builds it per request.
			const data: IWorkflowExecuteAdditionalData = {
				...additionalData,
				httpRequest: req as unknown as IWorkflowExecuteAdditionalData['httpRequest'],
				httpResponse: res as unknown as IWorkflowExecuteAdditionalData['httpResponse'],
			};
			// n8n loads the workflow for this request and opens a scope of its expressions.
			const loaded = prepared.loadWorkflow();
			const release = await openScope(loaded);
			/** What n8n has to send once it released the scope: the reply is serialized only then. */
			let reply: AnswerReceipt;
			try {
				const webhook = webhookData(loaded, request.method, suffix, data);
				if (!webhook) {
					return isSendAndWait(suffix)
						? { status: 200, contentType: 'text/html; charset=utf-8', body: NO_ACTION_REQUIRED_PAGE }
						: { status: 404, body: { code: 404, message: 'The workflow does not contain a waiting webhook with a matching path/method.' } };
				}
				const nodeType = loaded.nodeTypes.getByNameAndVersion(node.type, node.typeVersion) as INodeType;
				const context = new WebhookContext(loaded, loaded.getNode(node.name)!, data, 'manual', webhook, [], run.data);
				const result = await nodeType.webhook!.call(context);
				if (result.noWebhookResponse === true || res.headersSent) {
					// Sent by the node itself, inside webhook(): serialized then (FakeResponse, as express).
					reply = { status: res.statusCode, contentType: res.getHeader('content-type'), body: res.body };
				} else if (result.workflowData === undefined) {
					reply = { status: 200, body: result.webhookResponse ?? { message: 'Webhook call received' } };
				} else if (state !== 'waiting') {
					// n8n's conditional update: only a request that still finds the execution waiting resumes it.
					if (resumeGuard || state !== 'running' || !going) {
						reply = { status: 500, body: RESUME_LOST };
					} else {
						// n8n 1.x: a second resume of the wait (here it joins the first run rather than running again).
						reply = { status: 200, body: result.webhookResponse ?? { message: 'Workflow was started' }, resumed: going };
					}
				} else {
					state = 'running';
					// n8n: the waiting run of the node is dropped, and its stack entry gets the webhook's data and passes it on.
					run.data.resultData.runData[node.name]?.pop();
					const entry = run.data.executionData!.nodeExecutionStack[0];
					entry.data.main = result.workflowData;
					// n8n loads the stored execution, so the stack's node is a copy: the workflow's node stays enabled.
					entry.node = { ...entry.node, disabled: true };
					entry.metadata = { ...entry.metadata, forwardAllOutputs: true };
					run.data.waitTill = undefined;
					// n8n starts the resumed run (WorkflowRunner.run), then hands the reply over; the run goes on beside it.
					going = Promise.resolve().then(goOn);
					reply = { status: 200, body: result.webhookResponse ?? { message: 'Workflow was started' }, resumed: going };
				}
			} finally {
				await release();
			}
			// n8n's request handler sends the reply after the scope was released: serialized (toJSON) only now.
			return { ...reply, body: received(reply.body) };
		},
		async settled() {
			while (state === 'running') await (going ?? Promise.resolve());
		},
		async timeOut() {
			if (state !== 'waiting') throw new Error(`the execution is ${state}`);
			return await goOn();
		},
	};
	return execution;
}

/** A resume URL of the execution's node with `parameters`, signed as n8n signs them (getSignedResumeUrl). */
export function signedResumeUrl(execution: WaitingExecution, parameters: Record<string, string>, base = 'http://localhost:5678/'): string {
	const url = new URL(`${base}webhook-waiting/${execution.executionId}/node-under-test`);
	for (const [key, value] of Object.entries(parameters)) url.searchParams.set(key, value);
	url.searchParams.set(WAITING_TOKEN_QUERY_PARAM, generateUrlSignature(prepareUrlForSigning(url), Container.get(InstanceSettings).hmacSignatureSecret));
	return url.toString();
}

/** Routes requests for `/webhook-waiting/<executionId>/…` to the executions it was given, as n8n serves them. */
export interface WaitingRouter {
	add(execution: WaitingExecution): void;
	/** Every answer that reached an execution, in order. */
	receipts: AnswerReceipt[];
	/** Requests arriving from now on wait (as on a busy n8n) until the returned function is called. */
	hold(): () => void;
	/** How many requests have arrived (held ones included). */
	readonly arrivals: number;
	handle(req: IncomingMessage, body: Buffer, res: ServerResponse): void;
}

export function waitingRouter(): WaitingRouter {
	const executions = new Map<string, WaitingExecution>();
	const receipts: AnswerReceipt[] = [];
	let gate: Promise<void> = Promise.resolve();
	let arrivals = 0;
	return {
		receipts,
		get arrivals() {
			return arrivals;
		},
		add: (execution) => executions.set(execution.executionId, execution),
		hold() {
			let release: () => void = () => {};
			gate = new Promise<void>((resolve) => (release = resolve));
			return release;
		},
		handle(req, body, res) {
			arrivals++;
			void gate.then(() => answerNow(req, body, res));
		},
	};

	function answerNow(req: IncomingMessage, body: Buffer, res: ServerResponse): void {
		const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
		const executionId = /\/webhook-waiting\/([^/]+)\//.exec(url.pathname)?.[1] ?? '';
		const execution = executions.get(executionId);
		const send = (status: number, reply: unknown, type = 'application/json') => {
			const text = typeof reply === 'string' ? reply : JSON.stringify(reply ?? null);
			res.writeHead(status, { 'content-type': type });
			res.end(text);
		};
		if (!execution) {
			send(404, { code: 404, message: `The execution "${executionId}" does not exist.` });
			return;
		}
		const headers: Record<string, string> = {};
		for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers[name] = value;
		execution
			.answer({ method: req.method === 'POST' ? 'POST' : 'GET', url: url.toString(), headers, rawBody: body.toString('utf8') })
			.then((receipt) => {
				receipts.push(receipt);
				send(receipt.status, receipt.body, receipt.contentType ?? 'application/json');
			})
			.catch((error: unknown) => send(500, { error: String(error) }));
	}
}

export interface WaitingServer extends Omit<WaitingRouter, 'handle'> {
	/** n8n's webhook base for `webhookBaseUrl`: `http://127.0.0.1:<port>/`. */
	baseUrl: string;
	close(): Promise<void>;
}

/** A real HTTP server for resume URLs (`/webhook-waiting/<executionId>/…`), answering as n8n does. */
export async function serveWaiting(host = '127.0.0.1'): Promise<WaitingServer> {
	const router = waitingRouter();
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => router.handle(req, Buffer.concat(chunks), res));
	});
	await new Promise<void>((resolve) => server.listen(0, host, resolve));
	return {
		baseUrl: `http://${host}:${(server.address() as AddressInfo).port}/`,
		add: router.add,
		hold: router.hold,
		receipts: router.receipts,
		get arrivals() {
			return router.arrivals;
		},
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
