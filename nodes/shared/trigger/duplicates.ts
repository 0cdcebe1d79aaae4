/**
 * The duplicate window: an update whose `update_id` was seen among the last `DUPLICATE_WINDOW`
 * updates of this trigger in this n8n process is acknowledged but not run again. A webhook gets an
 * update again when the service got no 2xx in time; a poller can fetch one again after a restart.
 *
 * It lives in memory, per process, and that is all it can be: n8n 2.41.1 does not save static data
 * that `webhook()` changed when the update starts an execution (creating the execution resets n8n's
 * "changed" flag; measured in queue mode: after 500 updates the stored window held no id), and static
 * data would be last-writer-wins between processes anyway. So a copy that reaches another webhook
 * process, or comes after a restart, runs again (README "Scaling": the guarantee as measured, and the
 * load-balancer setting that avoids it). Polling has stronger lines in front of this one: the offset,
 * and n8n's execution deduplication key (ServiceBotPollingTrigger/poll.ts).
 *
 * Keyed by a one-way key of the bot token and the trigger's identity (see `deliveryKey`): a different
 * bot, trigger or delivery (test or production) starts with an empty window.
 *
 * An update is in the window from its arrival, but its push is settled only when n8n answered it:
 * n8n answers 5xx when it cannot create the execution (its database saturated), and then the update
 * must run when it comes again. So a push of an update whose earlier push is still waiting for n8n's
 * answer (the sender gave up waiting and sent it again) waits for that answer before the window is
 * asked (`claim`); answered "already received" at once, it was lost when the earlier push then
 * failed (queue mode under load: 7 of 8 missing answers of a run, each a 500 then a 200 from the same
 * process).
 */
import { pause } from '../transport/client';

const DUPLICATE_WINDOW = 1000;
/** Bound on the number of windows one process keeps (one per trigger it serves). */
const MAX_WINDOWS = 1000;

class RecentIds {
	private readonly order: number[] = [];
	private readonly members = new Set<number>();

	has(id: number): boolean {
		return this.members.has(id);
	}

	delete(id: number): void {
		if (!this.members.delete(id)) return;
		this.order.splice(this.order.indexOf(id), 1);
	}

	add(id: number): void {
		if (this.members.has(id)) return;
		this.order.push(id);
		this.members.add(id);
		while (this.order.length > DUPLICATE_WINDOW) {
			const oldest = this.order.shift();
			if (oldest !== undefined) this.members.delete(oldest);
		}
	}
}

const windows = new Map<string, RecentIds>();

function windowOf(key: string): RecentIds {
	let window = windows.get(key);
	if (window) {
		// Re-insert, so the Map's order is least recently used first.
		windows.delete(key);
	} else {
		window = new RecentIds();
		if (windows.size >= MAX_WINDOWS) {
			const leastRecent = windows.keys().next().value;
			if (leastRecent !== undefined) windows.delete(leastRecent);
		}
	}
	windows.set(key, window);
	return window;
}

/** Records `updateId` in the window of `key` and says whether it was there already (then it must not run again). */
export function seenBefore(key: string, updateId: number): boolean {
	const window = windowOf(key);
	if (window.has(updateId)) return true;
	window.add(updateId);
	return false;
}

/**
 * Takes `updateId` out of the window of `key`: the update was recorded when it arrived, but n8n did
 * not start its execution, so it must run when the service sends it again.
 */
export function forget(key: string, updateId: number): void {
	windows.get(key)?.delete(updateId);
}

/** How a push waits for an earlier push of its update; tests shorten it (`jest.replaceProperty`). */
export const IN_FLIGHT_TIMING = {
	/**
	 * The longest a push waits for the earlier push's answer before it is answered "send again later":
	 * below the service's wait for an answer (about 10 s).
	 */
	waitMs: 5_000,
	/** An earlier push n8n has not answered after this long counts as answered (no push is held for ever). */
	staleMs: 60_000,
};

/** Pushes waiting for n8n's answer, by window key and update (removed when answered). */
const inFlight = new Map<string, { readonly since: number; readonly answered: Promise<void> }>();

/** Settles a claim with n8n's answer: started (2xx, or nothing to start), or not (5xx: forgotten). */
export type Settle = (started: boolean) => void;

async function answeredWithin(answered: Promise<void>, ms: number): Promise<boolean> {
	let settled = false;
	const done = new AbortController();
	await Promise.race([answered.then(() => (settled = true)), pause(ms, done.signal)]);
	done.abort();
	return settled;
}

/**
 * Marks a push of `updateId` in flight in the window of `key`, after any earlier push of it was
 * answered (waiting up to `IN_FLIGHT_TIMING.waitMs`); returns how to settle it, or undefined when the
 * earlier push is still unanswered (the sender should send it again later). The mark is made in the
 * same step as the wait ends, so two waiting pushes never both pass.
 */
export async function claim(key: string, updateId: number): Promise<Settle | undefined> {
	const flight = `${key} ${updateId}`;
	const deadline = Date.now() + IN_FLIGHT_TIMING.waitMs;
	for (let earlier = inFlight.get(flight); earlier; earlier = inFlight.get(flight)) {
		if (Date.now() - earlier.since > IN_FLIGHT_TIMING.staleMs) break;
		const left = deadline - Date.now();
		if (left <= 0 || !(await answeredWithin(earlier.answered, left))) return undefined;
	}
	let answer = (): void => {};
	const mark = { since: Date.now(), answered: new Promise<void>((resolve) => (answer = resolve)) };
	inFlight.set(flight, mark);
	let settled = false;
	return (started) => {
		if (settled) return;
		settled = true;
		if (!started) forget(key, updateId);
		if (inFlight.get(flight) === mark) inFlight.delete(flight);
		answer();
	};
}
