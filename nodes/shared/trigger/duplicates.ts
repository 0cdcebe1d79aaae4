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
 */
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
