/** The ordered scheduler of a run's items: one after another per key, in parallel across keys, bounded. */
import { schedule, type Jobs } from '../../../../nodes/ServiceBot/actions/scheduler';

/** The scheduler's jobs from a list of {key, run} (a hole: nothing to run there). */
function jobsOf(list: ReadonlyArray<{ key?: string; run: () => Promise<unknown> } | undefined>): Jobs {
	return {
		size: list.length,
		keyOf: (position) => (list[position] ? list[position]?.key : null),
		run: async (position) => await (list[position] as { run: () => Promise<unknown> }).run(),
	};
}

describe('schedule', () => {
	const tick = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

	it('same key: one after another in input order; different keys: in parallel, bounded', async () => {
		const log: string[] = [];
		let running = 0;
		let peak = 0;
		const perKeyRunning = new Map<string, number>();
		const tasks = Array.from({ length: 60 }, (_, index) => {
			const key = `k${(index * 7) % 6}`;
			return {
				key,
				run: async () => {
					running++;
					peak = Math.max(peak, running);
					perKeyRunning.set(key, (perKeyRunning.get(key) ?? 0) + 1);
					expect(perKeyRunning.get(key)).toBe(1);
					await tick((index * 13) % 7);
					log.push(`${key}:${index}`);
					perKeyRunning.set(key, (perKeyRunning.get(key) ?? 0) - 1);
					running--;
					return index;
				},
			};
		});
		const results = await schedule(jobsOf(tasks), { concurrency: 4, stopOnError: false });
		expect(results.map((result) => result?.status)).toEqual(tasks.map(() => 'done'));
		expect(peak).toBe(4);
		for (const key of new Set(tasks.map((task) => task.key))) {
			const order = log.filter((entry) => entry.startsWith(`${key}:`)).map((entry) => Number(entry.split(':')[1]));
			expect(order).toEqual([...order].sort((a, b) => a - b));
		}
	});

	it('stopOnError: no task starts after a failure; running ones finish; holes stay holes', async () => {
		const started: number[] = [];
		const tasks = [0, 1, 2, 3, 4].map((index) =>
			index === 2
				? undefined
				: {
						key: 'one',
						run: async () => {
							started.push(index);
							if (index === 1) throw new Error('boom');
							return index;
						},
					},
		);
		const results = await schedule(jobsOf(tasks), { concurrency: 3, stopOnError: true });
		expect(started).toEqual([0, 1]);
		expect(results.map((result) => result?.status)).toEqual(['done', 'failed', undefined, 'skipped', 'skipped']);
	});

	it('without stopOnError every task runs', async () => {
		const jobs = jobsOf(
			[1, 2, 3].map((value) => ({
				run: async () => {
					if (value === 2) throw new Error('two');
					return value;
				},
			})),
		);
		const results = await schedule(jobs, { concurrency: 2, stopOnError: false });
		expect(results.map((result) => result?.status)).toEqual(['done', 'failed', 'done']);
	});

	it('concurrency 1: every job in input order, whatever the keys and however slow the first', async () => {
		const started: number[] = [];
		const keys = ['a', 'a', 'b', 'c', 'b', 'a', undefined, 'c'];
		const jobs = keys.map((key, index) => ({
			key,
			run: async () => {
				started.push(index);
				await tick(index === 0 ? 30 : 1);
			},
		}));
		await schedule(jobsOf(jobs), { concurrency: 1, stopOnError: false });
		expect(started).toEqual(keys.map((_, index) => index));
	});
});
