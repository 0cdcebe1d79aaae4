/**
 * When the service is told a push arrived (option Confirm Delivery). The service keeps an update until
 * a push of it is answered 2xx and sends it again otherwise; n8n marks an execution still running when
 * its process dies (a kill, or the end of its 30 s graceful shutdown) `crashed` and never runs it
 * again. So by default a push that starts a run is answered once that run has ended: the webhook's
 * response mode is n8n's "last node" with no data (`RESPONSE_MODE` in options.ts), in which n8n
 * answers when the execution ends (e2e scenario 31, a SIGTERM and a SIGKILL during bursts: 0 of 80
 * lost; answered when the run starts, the same run loses messages). Not "response node", which answers at the same moment: n8n 1.x cancels every execution
 * that has a response promise when it shuts down (1.123.81 `active-executions.js` `shutdown`), so
 * each clean restart would cut runs off. The price of "last node" is in queue mode, where the main
 * or webhook process reads each execution back from the database before it answers (2.41.1
 * `workflow-runner.js` `needsFullExecutionData`): docs/queue-mode.md points there to "When the Run
 * Starts": there a restart stops no run.
 *
 * What the service is answered, and when:
 * - **The run ended**: n8n's answer, held until the bot's other workflows on this n8n have answered
 *   their copies of the update (webhook/forward.ts; each answers after its own run), so the service
 *   is told only once every workflow of the bot has run it.
 * - **The run ended with an error**: n8n answers 500 "Error in workflow" (1.123.81 and 2.41.1
 *   `webhook-helpers.js`). That run happened: the service is answered 200, as sending it again would
 *   only run the same failure again.
 * - **No run was made**: any other 5xx (n8n could not create the execution) goes to the service as it
 *   is, so it sends the update again (the duplicate window forgets it: receive.ts).
 * - **The bound**: the service waits about 10 s for an answer, then sends the update again (with one
 *   connection it holds every later update back meanwhile). A push not answered
 *   `ANSWER_TIMING.boundMs` after it arrived is answered 200: its execution exists (or is being made).
 *   Only such a run, one longer than the bound (an AI agent, a Send and Wait), is lost when n8n dies
 *   while it runs, as every run was before.
 *
 * n8n answers a push through the response object it handed `webhook()` (express: `json` → `send` →
 * `end`), so the hold is `end` replaced on that object. After the service was answered, n8n's own
 * later answer must not reach the connection nor throw "Cannot set headers after they are sent"
 * (logged by n8n as an error for the push): the header and body methods become no-ops on it.
 */
import type { IWebhookFunctions } from 'n8n-workflow';

import { pause } from '../../shared/transport/client';

/** How a push is answered; tests shorten it (`jest.replaceProperty`), n8n never changes it. */
export const ANSWER_TIMING = {
	/** A push not answered this long after it arrived is answered 200: below the service's wait (about 10 s), with room for a busy n8n. */
	boundMs: 7_000,
};

/** n8n's answer to a push whose run ended with an error (its body's `message`). */
const RAN_WITH_ERROR = 'Error in workflow';

/** What of n8n's response object the hold uses: Node's ServerResponse (with express's methods), seen structurally. */
interface PushResponse {
	statusCode: number;
	end: (...args: unknown[]) => unknown;
	write: (...args: unknown[]) => unknown;
	writeHead: (...args: unknown[]) => unknown;
	setHeader: (...args: unknown[]) => unknown;
	removeHeader: (...args: unknown[]) => unknown;
	once(event: 'close', listener: () => void): unknown;
}

/** Whether an answer's body is n8n's "Error in workflow" (a run that happened and failed). */
function ranWithError(body: unknown): boolean {
	const text = typeof body === 'string' ? body : body instanceof Uint8Array ? new TextDecoder().decode(body) : undefined;
	if (text === undefined || text.length > 1_000) return false;
	try {
		const parsed: unknown = JSON.parse(text);
		return typeof parsed === 'object' && parsed !== null && (parsed as { message?: unknown }).message === RAN_WITH_ERROR;
	} catch {
		return false;
	}
}

/** Node's stream methods take a callback last: called, as the real ones would. */
function callBack(args: unknown[]): void {
	const last = args[args.length - 1];
	if (typeof last === 'function') (last as () => void)();
}

/**
 * Holds n8n's answer to this push until `copies` settle (the bot's other workflows answered theirs)
 * and answers at `ANSWER_TIMING.boundMs` after `arrivedAt` whatever came by then. Returns at once
 * what settles when n8n answers, which it does once the run has ended (Show Typing stops there).
 */
export function answerAfterRun(ctx: IWebhookFunctions, arrivedAt: number, copies: Promise<unknown>): Promise<void> {
	const res = ctx.getResponseObject() as unknown as PushResponse;
	const realEnd = res.end.bind(res);
	const bound = new AbortController();
	let answered = false;
	let copiesIn = false;
	let held: unknown[] | undefined;
	let runEnded = (): void => {};
	const ran = new Promise<void>((resolve) => (runEnded = resolve));

	const answer = (args: unknown[]): void => {
		if (answered) return;
		answered = true;
		bound.abort();
		if (res.statusCode >= 500 && ranWithError(args[0])) res.statusCode = 200;
		realEnd(...args);
		const same = (): PushResponse => res;
		res.setHeader = same;
		res.removeHeader = same;
		res.writeHead = same;
		res.write = (...writeArgs: unknown[]): boolean => {
			callBack(writeArgs);
			return true;
		};
	};
	res.end = (...args: unknown[]): unknown => {
		runEnded();
		if (answered) callBack(args);
		else if (copiesIn) answer(args);
		else held = args;
		return res;
	};
	res.once('close', () => bound.abort());
	void copies.then(
		() => {
			copiesIn = true;
			if (held) answer(held);
		},
		() => {
			copiesIn = true;
			if (held) answer(held);
		},
	);
	void (async () => {
		await pause(Math.max(0, arrivedAt + ANSWER_TIMING.boundMs - Date.now()), bound.signal);
		if (answered || bound.signal.aborted) return;
		if (held) return answer(held);
		res.statusCode = 200;
		res.setHeader('Content-Type', 'application/json; charset=utf-8');
		answer([JSON.stringify({ message: 'Workflow was started' })]);
	})();
	return ran;
}
