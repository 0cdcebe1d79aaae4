/**
 * Ordered bounded concurrency for bulk sending. Jobs that share a key (a chat) run one after another
 * in input order; jobs with different keys run in parallel; at most `concurrency` run at any time.
 * Whenever a slot is free, the job started is the earliest one in input order that may run, so with
 * concurrency 1 everything runs strictly in input order. Only running jobs hold a promise: 10,000
 * items cost a few small arrays, not 10,000 pending promises or closures.
 */

/**
 * What to run: one job per position (an input item). Held as two functions rather than one object
 * per item, so that a large input costs no more than its positions.
 */
export interface Jobs {
	readonly size: number;
	/** The queue of a position: the same key runs one after another; `undefined` no queue; `null` nothing to run. */
	keyOf(position: number): string | undefined | null;
	run(position: number): Promise<unknown>;
}

export type Outcome =
	| { readonly status: 'done' }
	| { readonly status: 'failed'; readonly reason: unknown }
	/** Not started because an earlier failure stopped the run (`stopOnError`). */
	| { readonly status: 'skipped' };

interface ScheduleOptions {
	/** Maximum number of jobs running at once; 1 runs everything in input order. */
	readonly concurrency: number;
	/** After the first failure, start no further job (those already running finish). */
	readonly stopOnError: boolean;
}

const DONE: Outcome = { status: 'done' };
const SKIPPED: Outcome = { status: 'skipped' };

/** A binary min-heap of job positions: the earliest job that may run is always on top. */
class Positions {
	private readonly heap: number[] = [];

	get size(): number {
		return this.heap.length;
	}

	push(position: number): void {
		const { heap } = this;
		heap.push(position);
		let child = heap.length - 1;
		while (child > 0) {
			const parent = (child - 1) >> 1;
			if (heap[parent] <= heap[child]) break;
			[heap[parent], heap[child]] = [heap[child], heap[parent]];
			child = parent;
		}
	}

	pop(): number | undefined {
		const { heap } = this;
		const top = heap[0];
		const last = heap.pop();
		if (heap.length > 0 && last !== undefined) {
			heap[0] = last;
			let parent = 0;
			for (;;) {
				const left = parent * 2 + 1;
				const right = left + 1;
				let smallest = parent;
				if (left < heap.length && heap[left] < heap[smallest]) smallest = left;
				if (right < heap.length && heap[right] < heap[smallest]) smallest = right;
				if (smallest === parent) break;
				[heap[parent], heap[smallest]] = [heap[smallest], heap[parent]];
				parent = smallest;
			}
		}
		return top;
	}
}

/** Runs the jobs and resolves with each position's outcome (undefined where there was nothing to run). */
export async function schedule(jobs: Jobs, options: ScheduleOptions): Promise<Array<Outcome | undefined>> {
	const concurrency = Math.max(1, Math.floor(options.concurrency) || 1);
	const outcomes: Array<Outcome | undefined> = new Array(jobs.size);
	/** Per key, the positions waiting behind the key's running (or ready) job, in input order. */
	const waiting = new Map<string, number[]>();
	const ready = new Positions();
	for (let position = 0; position < jobs.size; position++) {
		const key = jobs.keyOf(position);
		if (key === null) continue;
		if (key === undefined) {
			ready.push(position);
			continue;
		}
		const behind = waiting.get(key);
		if (behind) behind.push(position);
		else {
			waiting.set(key, []);
			ready.push(position);
		}
	}

	let running = 0;
	let stopped = false;
	return await new Promise((resolve) => {
		const finish = (position: number, outcome: Outcome): void => {
			outcomes[position] = outcome;
			running--;
			const key = jobs.keyOf(position);
			const next = key ? waiting.get(key)?.shift() : undefined;
			if (next !== undefined) ready.push(next);
			pump();
		};
		const pump = (): void => {
			while (!stopped && running < concurrency && ready.size > 0) {
				const position = ready.pop() as number;
				running++;
				Promise.resolve()
					.then(async () => await jobs.run(position))
					.then(
						() => finish(position, DONE),
						(reason: unknown) => {
							if (options.stopOnError) stopped = true;
							finish(position, { status: 'failed', reason });
						},
					);
			}
			if (running > 0 || (!stopped && ready.size > 0)) return;
			for (let position = 0; position < jobs.size; position++) {
				if (outcomes[position] === undefined && jobs.keyOf(position) !== null) outcomes[position] = SKIPPED;
			}
			resolve(outcomes);
		};
		pump();
	});
}
