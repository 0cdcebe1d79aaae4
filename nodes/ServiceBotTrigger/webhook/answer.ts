/**
 * When the service is told a push arrived. The service keeps an update until a push of it is answered
 * 2xx, and sends it again otherwise; n8n marks executions still running when it exits (a kill, or the
 * end of its 30 s graceful shutdown) `crashed` and never runs them again. So a push is answered only
 * once its execution has run: the trigger's webhook has n8n's response mode "last node" without data
 * (n8n answers 200 with an empty body when the execution ends; 500 when the workflow failed, and the
 * service's next push of it is then answered at once by the duplicate window). Two exceptions:
 *
 * - **The bound.** The service waits about 10 s for an answer, then sends the update again (and
 *   with one connection holds every later update back meanwhile). A push not answered
 *   `ANSWER_TIMING.boundMs` after it arrived is answered 200 anyway: its execution exists (or is
 *   being made), like the polling trigger's `confirmWithinMs`. Only such an execution, one that runs
 *   longer than the bound, is lost when n8n is killed while it runs.
 * - **Shutdown.** A push that reaches an n8n whose HTTP server no longer listens (it is stopping) is
 *   refused (503, the connection closed), so the service keeps it for the next n8n, and the bound no
 *   longer applies. n8n 2.41.1 never gets there: its `AbstractServer.onShutdown` is an
 *   `@OnShutdown()` handler registered for the class, and n8n's container gives it an instance
 *   other than the running server, so the server is never closed and n8n serves pushes through its
 *   whole graceful shutdown (measured: issue 39; e2e scenario 28). What protects such a push there is
 *   the held answer: its execution runs (n8n waits up to its shutdown timeout), or n8n exits and the
 *   unanswered push is sent again to the next n8n. Only the bound's answers can be lost then.
 *
 * A node sees nothing else of a shutdown: n8n 2.41 calls no method of a webhook node then.
 * `server.listening` of the request's socket is what turns false once n8n closes its server.
 *
 * Answering at the bound cannot go through n8n's response object: n8n answers "last node" pushes
 * itself when the execution ends and does not look whether an answer was sent already (2.41.1
 * `webhook-request-handler.js` sets headers, and express throws "Cannot set headers after they are
 * sent", logged as an error for the push). So the bound's answer is written on the connection
 * itself, complete, with `Connection: close`, and the connection is ended: n8n's own answer later
 * finds it closed and is dropped without an error.
 */
import type { IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { pause } from '../../shared/transport/client';

/** How a push is answered; tests shorten it (`jest.replaceProperty`), n8n never changes it. */
export const ANSWER_TIMING = {
	/**
	 * A push not answered this long after it arrived is answered 200 anyway. Below the service's
	 * wait for an answer (about 10 s), with room for a busy n8n to get the answer out.
	 */
	boundMs: 7_000,
};

/** What of a connection the trigger needs: Node's socket, seen structurally. */
interface Connection {
	readonly destroyed?: boolean;
	readonly server?: { readonly listening?: unknown };
	write?(data: string): unknown;
	destroySoon?(): void;
	end?(): void;
}

function connectionOf(value: unknown): Connection | undefined {
	return typeof value === 'object' && value !== null ? (value as Connection) : undefined;
}

/** Whether n8n is shutting down: its HTTP server no longer listens (n8n closes it first at SIGTERM). */
export function isShuttingDown(ctx: IWebhookFunctions): boolean {
	return connectionOf(ctx.getRequestObject().socket)?.server?.listening === false;
}

/**
 * Refuses a push with 503 and closes the connection, so the service sends it again later, on a new
 * connection (to the next n8n when this one is stopping). Nothing of it runs here.
 */
export function refuse(ctx: IWebhookFunctions, why: string): IWebhookResponseData {
	const res = ctx.getResponseObject();
	if (!res.headersSent) res.status(503).set('Connection', 'close').json({ message: `Not taken: ${why}; send it again` });
	return { noWebhookResponse: true };
}

const BOUND_ANSWER = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}';

/**
 * Arms the bound for a push that arrived at `arrivedAt`: if nothing has answered it by the bound,
 * and n8n is not shutting down, it is answered 200 on its connection. Returns at once; the wait ends
 * early when the push is answered or its connection closes.
 */
export function answerAtTheBound(ctx: IWebhookFunctions, arrivedAt: number): void {
	const res = ctx.getResponseObject();
	const request = ctx.getRequestObject();
	const answered = new AbortController();
	const stop = (): void => answered.abort();
	res.once('close', stop);
	void (async () => {
		await pause(Math.max(0, arrivedAt + ANSWER_TIMING.boundMs - Date.now()), answered.signal);
		res.off('close', stop);
		if (answered.signal.aborted || res.headersSent || res.writableEnded) return;
		// Shutting down: n8n waits for the execution and answers when it has run (or the connection dies with n8n).
		if (connectionOf(request.socket)?.server?.listening === false) return;
		const connection = connectionOf(res.socket);
		if (!connection || connection.destroyed === true || typeof connection.write !== 'function') return;
		connection.write(BOUND_ANSWER);
		// Half-closed once written; n8n's own answer later finds the connection gone.
		if (typeof connection.destroySoon === 'function') connection.destroySoon();
		else connection.end?.();
	})();
}
