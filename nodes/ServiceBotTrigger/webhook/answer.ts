/**
 * When the service is told a push arrived (option Confirm Delivery). The service keeps an update until
 * a push of it is answered 2xx and sends it again otherwise; n8n marks an execution still running when
 * its process dies (a kill, or the end of its 30 s graceful shutdown) `crashed` and never runs it
 * again. So with "When the Run Ends" a push that starts a run is answered once that run has ended
 * (e2e scenario 31, a SIGTERM and a SIGKILL during bursts: 0 of 80 lost; answered when the run
 * starts, the same run loses messages). Not the default: in queue mode, pushes held for their runs
 * stalled queue scenario 7 (three workflows on one bot, 40 connections) with "503 Database is not
 * ready!" from the webhook processes. Most of it was n8n never releasing each push's expression
 * isolate (below): the webhook processes grew to 3.3 and 2.8 GB in 3 minutes, 853 push attempts for
 * 300 updates. Released, on a machine as loaded (load 10-16): 338 attempts, 0.5-1.1 GB, yet 44 of
 * 480 answers missing after 10 minutes, its pools timing out (webhook process and workers); the
 * default, run right after at load 13-19, had 600 attempts and 16 missing: on a machine that busy
 * both modes lose. Released and with `DB_POSTGRESDB_POOL_SIZE=10` in every process (n8n's default
 * is 2) at load 14-15: passed, 300 updates in 93.9 s, 300 attempts, no error in any process (with
 * the leak, 10 had stalled like 2); the default right after, the same way: 86.5 s. And with one
 * connection the service waits for each run before it sends the next update (the soak's steady
 * 2 updates/s queued: p50 12.5 s).
 *
 * How the trigger learns that the run ended: the webhook's response mode is n8n's "streaming"
 * (`RESPONSE_MODE` in options.ts). n8n then answers nothing itself, hands the execution the push's
 * response object, writes an AI Agent's chunks and a keep-alive on it, and ends it when it finalizes
 * the execution, in regular and queue mode alike (1.123.81 and 2.41.1 `active-executions.js`
 * `finalizeExecution`; in queue mode the process that holds the push ends it once the worker's job
 * finished). The trigger puts its own `write`, `flush` and `end` on that object: the chunks go
 * nowhere (Stream AI Answers, pushStream.ts, is the option that shows them), and `end` is the run's
 * end. webhook() returns `noWebhookResponse` beside the items (receive.ts): n8n still hands the
 * response to the execution, and its request handler is done as webhook() returns. Without it, in
 * streaming mode n8n's handler never gets a reply (2.41.1 `webhook-helpers.js` ~664-667 set
 * `didSendResponse`; every later reply waits for its absence), so `live-webhooks.js` ~141 never
 * resolves and its `finally` (~153) never releases the expression isolate it took for the push
 * (`@n8n/expression-runtime`: pool of 1, a new isolate per push, disposed only on release): one
 * leaked per push, in regular and queue mode. The other response modes that answer at the end cost
 * more: "last node" holds that isolate until the run's end and makes a queue-mode main or webhook
 * process read each execution back from the database before it answers (2.41.1 `workflow-runner.js`
 * `needsFullExecutionData`; measured: its pool timed out, "503 Database is not ready!", and queue
 * scenario 7 stalled), and n8n 1.x cancels every "response node" execution when it
 * shuts down (1.123.81 `active-executions.js` `shutdown`). The price of "streaming": an AI Agent with
 * Enable Streaming (its default) takes n8n's streaming path, with the same output.
 *
 * What the service is answered, and when:
 * - **The run ended** (failed or not: sent again, a failed run would fail again): 200, held until the
 *   bot's other workflows on this n8n answered their copies of the update (webhook/forward.ts; each
 *   answers when its own run ended), so the service is told only once every workflow has run it.
 * - **No run was made**: n8n could not create the execution (its database failed before the
 *   execution existed, 2.41.1 `workflow-runner.js` ~282/~288). Its request handler was done when
 *   webhook() returned, so nobody answers but the bound (200), and that update is lost; where n8n
 *   makes an execution and fails it (a credential check, a failed enqueue) it ends the response
 *   (200), as for any failed run. A 5xx n8n does send (before webhook() returns) goes to the
 *   service as it is, so it sends the update again (the duplicate window forgets it: receive.ts).
 * - **The bound**: the service waits about 10 s for an answer, then sends the update again (with one
 *   connection it holds every later update back meanwhile). A push not answered
 *   `ANSWER_TIMING.boundMs` after it arrived is answered 200: its execution exists (or is being made).
 *   Only such a run, one longer than the bound (an AI agent), is lost when n8n dies while it runs, as
 *   every run was before.
 */
import type { IWebhookFunctions } from 'n8n-workflow';

import { pause } from '../../shared/transport/client';

/** How a push is answered; tests shorten it (`jest.replaceProperty`), n8n never changes it. */
export const ANSWER_TIMING = {
	/** A push not answered this long after it arrived is answered 200: below the service's wait (about 10 s), with room for a busy n8n. */
	boundMs: 7_000,
};

/** What of n8n's response object the hold uses: Node's ServerResponse (with express's methods), seen structurally. */
interface PushResponse {
	statusCode: number;
	end: (...args: unknown[]) => unknown;
	write: (...args: unknown[]) => unknown;
	flush: () => void;
	setHeader: (...args: unknown[]) => unknown;
	once(event: 'close', listener: () => void): unknown;
}

/** Node's stream methods take a callback last: called, as the real ones would. */
function callBack(args: unknown[]): void {
	const last = args[args.length - 1];
	if (typeof last === 'function') (last as () => void)();
}

/**
 * Takes the response n8n streams a run's chunks on (they go nowhere) and answers the service when n8n
 * ends it, the run's end, once `copies` settled (the bot's other workflows answered theirs), or at
 * `ANSWER_TIMING.boundMs` after `arrivedAt`, whichever comes first. Returns at once what settles when
 * the run ended (Show Typing stops there).
 */
export function answerAfterRun(ctx: IWebhookFunctions, arrivedAt: number, copies: Promise<unknown>): Promise<void> {
	const res = ctx.getResponseObject() as unknown as PushResponse;
	const realEnd = res.end.bind(res);
	const bound = new AbortController();
	let answered = false;
	let copiesIn = false;
	/** What n8n's `end` brought: the run's end, or its own answer when it could not make the run (5xx). */
	let held: unknown[] | undefined;
	let runEnded = (): void => {};
	const ran = new Promise<void>((resolve) => (runEnded = resolve));

	const answer = (args: unknown[]): void => {
		if (answered) return;
		answered = true;
		bound.abort();
		if (res.statusCode >= 500) {
			realEnd(...args);
		} else {
			res.statusCode = 200;
			res.setHeader('Content-Type', 'application/json; charset=utf-8');
			realEnd(JSON.stringify({ message: 'Workflow was started' }));
		}
		// n8n may still write or answer (a keep-alive, an error after the bound): nothing reaches the connection.
		res.setHeader = (): PushResponse => res;
	};
	res.write = (...args: unknown[]): boolean => {
		callBack(args);
		return true;
	};
	res.flush = (): void => {};
	res.end = (...args: unknown[]): unknown => {
		runEnded();
		if (!answered && held === undefined) {
			held = args;
			if (copiesIn || res.statusCode >= 500) answer(held);
		} else {
			callBack(args);
		}
		return res;
	};
	res.once('close', () => bound.abort());
	const settled = (): void => {
		copiesIn = true;
		if (held) answer(held);
	};
	void copies.then(settled, settled);
	void (async () => {
		await pause(Math.max(0, arrivedAt + ANSWER_TIMING.boundMs - Date.now()), bound.signal);
		if (!answered && !bound.signal.aborted) answer(held ?? []);
	})();
	return ran;
}
