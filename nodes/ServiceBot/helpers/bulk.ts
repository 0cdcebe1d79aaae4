/**
 * Ordered bounded concurrency for bulk sending.
 *
 * Tasks that share a key (a chat) run one after another in input order; tasks with different keys
 * run in parallel; at most `concurrency` tasks run at any time. Tasks without a key have no order
 * constraint. The results come back at the tasks' positions, so output order equals input order
 * whatever order the tasks finished in.
 */

export interface BulkTask<T> {
	/** Tasks with the same key run one after another, in input order. */
	readonly key?: string;
	readonly run: () => Promise<T>;
}

export type Settled<T> =
	| { readonly status: 'fulfilled'; readonly value: T }
	| { readonly status: 'rejected'; readonly reason: unknown }
	/** Not started because an earlier failure stopped the run (`stopOnError`). */
	| { readonly status: 'skipped' };

export interface BulkOptions {
	/** Maximum number of tasks running at once; 1 runs everything sequentially. */
	readonly concurrency: number;
	/** After the first failure, start no further task (those already running finish). */
	readonly stopOnError: boolean;
}

/** A counting semaphore whose waiters are served first come, first served. */
class Semaphore {
	private free: number;

	private readonly waiters: Array<() => void> = [];

	constructor(size: number) {
		this.free = size;
	}

	async acquire(): Promise<void> {
		if (this.free > 0) {
			this.free--;
			return;
		}
		await new Promise<void>((resolve) => this.waiters.push(resolve));
	}

	release(): void {
		const next = this.waiters.shift();
		if (next) next();
		else this.free++;
	}
}

const settledOk = Promise.resolve();

export async function runOrdered<T>(
	tasks: ReadonlyArray<BulkTask<T> | undefined>,
	options: BulkOptions,
): Promise<Array<Settled<T> | undefined>> {
	const concurrency = Math.max(1, Math.floor(options.concurrency) || 1);
	const semaphore = new Semaphore(concurrency);
	/** The last task queued per key; the next task of that key starts after it settles. */
	const tails = new Map<string, Promise<unknown>>();
	let stopped = false;

	const runOne = async (task: BulkTask<T>): Promise<Settled<T>> => {
		await semaphore.acquire();
		try {
			if (stopped) return { status: 'skipped' };
			try {
				return { status: 'fulfilled', value: await task.run() };
			} catch (reason) {
				if (options.stopOnError) stopped = true;
				return { status: 'rejected', reason };
			}
		} finally {
			semaphore.release();
		}
	};

	const pending = tasks.map((task): Promise<Settled<T> | undefined> | undefined => {
		if (!task) return undefined;
		if (task.key === undefined) return runOne(task);
		const previous = tails.get(task.key) ?? settledOk;
		// runOne never rejects, so the chain never breaks.
		const current = previous.then(async () => await runOne(task));
		tails.set(task.key, current);
		return current;
	});

	return await Promise.all(pending);
}
