/**
 * Ordered bounded concurrency for bulk sending. Jobs that share a key (a chat) run one after another
 * in input order; jobs with different keys run in parallel; at most `concurrency` run at any time.
 * Whenever a slot is free, the job started is the earliest one in input order that may run, so with
 * concurrency 1 everything runs strictly in input order. Only running jobs hold a promise: 10,000
 * items cost a few small arrays, not 10,000 pending promises.
 */

export interface Job {
	/** Jobs with the same key run one after another, in input order. */
	readonly key?: string;
	run(): Promise<unknown>;
}

export type Outcome =
	| { readonly status: 'done' }
	| { readonly status: 'failed'; readonly reason: unknown }
	/** Not started because an earlier failure stopped the run (`stopOnError`). */
	| { readonly status: 'skipped' };

export interface ScheduleOptions {
	/** Maximum number of jobs running at once; 1 runs everything in input order. */
	readonly concurrency: number;
	/** After the first failure, start no further job (those already running finish). */
	readonly stopOnError: boolean;
}

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

/** Runs the jobs (holes stay holes) and resolves with each job's outcome at its position. */
export async function schedule(jobs: ReadonlyArray<Job | undefined>, options: ScheduleOptions): Promise<Array<Outcome | undefined>> {
	const concurrency = Math.max(1, Math.floor(options.concurrency) || 1);
	const outcomes: Array<Outcome | undefined> = new Array(jobs.length);
	/** Per key, the positions waiting behind the key's running (or ready) job, in input order. */
	const waiting = new Map<string, number[]>();
	const ready = new Positions();
	jobs.forEach((job, position) => {
		if (!job) return;
		if (job.key === undefined) {
			ready.push(position);
			return;
		}
		const behind = waiting.get(job.key);
		if (behind) behind.push(position);
		else {
			waiting.set(job.key, []);
			ready.push(position);
		}
	});

	let running = 0;
	let stopped = false;
	return await new Promise((resolve) => {
		const finish = (position: number, outcome: Outcome): void => {
			outcomes[position] = outcome;
			running--;
			const key = jobs[position]?.key;
			const next = key === undefined ? undefined : waiting.get(key)?.shift();
			if (next !== undefined) ready.push(next);
			pump();
		};
		const pump = (): void => {
			while (!stopped && running < concurrency && ready.size > 0) {
				const position = ready.pop() as number;
				running++;
				Promise.resolve()
					.then(async () => await (jobs[position] as Job).run())
					.then(
						() => finish(position, { status: 'done' }),
						(reason: unknown) => {
							if (options.stopOnError) stopped = true;
							finish(position, { status: 'failed', reason });
						},
					);
			}
			if (running > 0 || (!stopped && ready.size > 0)) return;
			jobs.forEach((job, position) => {
				if (job && outcomes[position] === undefined) outcomes[position] = { status: 'skipped' };
			});
			resolve(outcomes);
		};
		pump();
	});
}
