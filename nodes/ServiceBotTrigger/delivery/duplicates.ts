/**
 * The duplicate window: an update whose `update_id` was seen among the last `DUPLICATE_WINDOW`
 * updates of this trigger is acknowledged but not run again. A webhook delivers an update again when
 * the service got no 2xx in time; a poller can fetch one again when n8n stopped after running it but
 * before the next `getUpdates` acknowledged it. For polling this is the second line of defence: the
 * offset in static data is the first.
 *
 * Two layers, because n8n gives no single place that every process shares cheaply:
 * - Workflow static data ("node" scope). For production webhooks n8n loads the workflow, with its
 *   static data, from the database for every request and saves changed static data right after
 *   answering, so the window survives restarts and is shared by the processes of one n8n (main and
 *   webhook processes in queue mode). Two copies of one update arriving at the same moment on two
 *   processes can both pass (each read the data before the other saved it); retries by the service
 *   come seconds apart, so this is rare. A poller's static data is saved with each emitted update.
 *   In the editor's test mode n8n does not save static data.
 * - An in-memory window per process, which catches concurrent copies reaching the same process and
 *   covers test mode.
 * The window is keyed by a one-way key of the bot token and the trigger's identity (see
 * `deliveryKey`): a different bot, trigger or delivery (test or production) starts with an empty window.
 */
import type { IDataObject } from 'n8n-workflow';

export const DUPLICATE_WINDOW = 1000;
/** Bound on the number of windows one process keeps (one per trigger it serves). */
const MAX_WINDOWS = 1000;

class RecentIds {
	private readonly order: number[] = [];
	private readonly members = new Set<number>();

	has(id: number): boolean {
		return this.members.has(id);
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

const memory = new Map<string, RecentIds>();

function memoryWindow(key: string): RecentIds {
	let window = memory.get(key);
	if (window) {
		// Re-insert, so the Map's order is least recently used first.
		memory.delete(key);
	} else {
		window = new RecentIds();
		if (memory.size >= MAX_WINDOWS) {
			const leastRecent = memory.keys().next().value;
			if (leastRecent !== undefined) memory.delete(leastRecent);
		}
	}
	memory.set(key, window);
	return window;
}

/**
 * Kept as one string of decimal ids, oldest first ("17,18,19"), with their count. n8n wraps every
 * object and array of static data in a Proxy (ObservableObject) when it loads a workflow and hands
 * them out through that Proxy, so a 1000-element array cost O(window) proxy work per update (about
 * two thirds of webhook()). A string is one primitive. Arrays written by an earlier version are read.
 */
interface StoredWindow {
	key: string;
	ids: string;
	count: number;
}

interface Window {
	ids: string;
	count: number;
}

const STATIC_KEY = 'recentUpdates';

function readStored(staticData: IDataObject, key: string): Window {
	const stored = staticData[STATIC_KEY] as { key?: unknown; ids?: unknown; count?: unknown } | undefined;
	if (!stored || stored.key !== key) return { ids: '', count: 0 };
	if (typeof stored.ids === 'string') {
		const count = typeof stored.count === 'number' ? stored.count : stored.ids === '' ? 0 : stored.ids.split(',').length;
		return { ids: stored.ids, count };
	}
	if (Array.isArray(stored.ids)) {
		const ids = stored.ids.filter((id): id is number => typeof id === 'number').slice(-DUPLICATE_WINDOW);
		return { ids: ids.join(','), count: ids.length };
	}
	return { ids: '', count: 0 };
}

function contains(ids: string, id: string): boolean {
	return ids === id || ids.startsWith(`${id},`) || ids.endsWith(`,${id}`) || ids.includes(`,${id},`);
}

/** The window with `id` appended and the oldest ids beyond DUPLICATE_WINDOW dropped. */
function append(window: Window, id: string): Window {
	let ids = window.ids === '' ? id : `${window.ids},${id}`;
	let count = window.count + 1;
	while (count > DUPLICATE_WINDOW) {
		ids = ids.slice(ids.indexOf(',') + 1);
		count--;
	}
	return { ids, count };
}

/**
 * Records `updateId` and says whether it had been seen before (then it must not run again).
 * `staticData` is the node's workflow static data; it is changed only when the id is new.
 */
export function seenBefore(key: string, updateId: number, staticData: IDataObject): boolean {
	const inMemory = memoryWindow(key);
	const stored = readStored(staticData, key);
	const id = String(updateId);
	if (inMemory.has(updateId) || contains(stored.ids, id)) {
		inMemory.add(updateId);
		return true;
	}
	inMemory.add(updateId);
	const value: StoredWindow = { key, ...append(stored, id) };
	staticData[STATIC_KEY] = value as unknown as IDataObject;
	return false;
}
