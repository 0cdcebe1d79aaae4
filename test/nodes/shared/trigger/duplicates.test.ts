/** The duplicate window on its own: per process, per trigger, the last 1000 update ids. */

describe('duplicate window', () => {
	type Duplicates = typeof import('../../../../nodes/shared/trigger/duplicates');

	/** A fresh copy of the module: what another n8n process would have in memory (nothing). */
	function freshProcess(): Duplicates {
		let loaded: Duplicates | undefined;
		jest.isolateModules(() => {
			loaded = jest.requireActual<Duplicates>('../../../../nodes/shared/trigger/duplicates');
		});
		if (!loaded) throw new Error('module not loaded');
		return loaded;
	}

	test('a copy reaching the same process is caught; another process knows nothing of it (n8n keeps no shared window)', () => {
		const proc = freshProcess();
		expect(proc.seenBefore('key', 20)).toBe(false);
		expect(proc.seenBefore('key', 20)).toBe(true);
		expect(freshProcess().seenBefore('key', 20)).toBe(false);
	});

	test('the window holds the last 1000 ids; older ones leave it', () => {
		const size = 1000;
		const proc = freshProcess();
		for (let id = 1; id <= size + 1; id++) expect(proc.seenBefore('key', id)).toBe(false);
		expect(proc.seenBefore('key', 1)).toBe(false);
		expect(proc.seenBefore('key', 3)).toBe(true);
		expect(proc.seenBefore('key', size + 1)).toBe(true);
	});

	test('a forgotten id is new again, the others stay; the window still holds the last 1000 ids', () => {
		const size = 1000;
		const proc = freshProcess();
		for (let id = 1; id <= 3; id++) expect(proc.seenBefore('key', id)).toBe(false);
		proc.forget('key', 2);
		proc.forget('key', 99);
		proc.forget('other key', 1);
		expect(proc.seenBefore('key', 1)).toBe(true);
		expect(proc.seenBefore('key', 3)).toBe(true);
		expect(proc.seenBefore('key', 2)).toBe(false);
		// 1, 3, 2 in the window; 997 more fill it, the next one pushes out 1 (the oldest).
		for (let id = 4; id <= size; id++) expect(proc.seenBefore('key', id)).toBe(false);
		expect(proc.seenBefore('key', size + 1)).toBe(false);
		expect(proc.seenBefore('key', 3)).toBe(true);
		expect(proc.seenBefore('key', 2)).toBe(true);
		expect(proc.seenBefore('key', 1)).toBe(false);
	});

	test('windows of different triggers (or bots) are separate', () => {
		const proc = freshProcess();
		expect(proc.seenBefore('bot-a', 30)).toBe(false);
		expect(proc.seenBefore('bot-b', 30)).toBe(false);
		expect(proc.seenBefore('bot-a', 30)).toBe(true);
	});

	/** Whether a promise has settled after the pending callbacks ran (no timer involved). */
	async function settledYet(promise: Promise<unknown>): Promise<boolean> {
		let done = false;
		void promise.then(() => (done = true));
		for (let turn = 0; turn < 20; turn++) await Promise.resolve();
		return done;
	}

	test('pushes of an update in flight wait for its answer and pass one at a time; a failed answer (5xx) makes the update new again', async () => {
		const proc = freshProcess();
		const first = await proc.claim('key', 7);
		expect(first).toBeDefined();
		expect(proc.seenBefore('key', 7)).toBe(false);
		const second = proc.claim('key', 7);
		const third = proc.claim('key', 7);
		expect(await settledYet(second)).toBe(false);
		expect(await settledYet(third)).toBe(false);
		// n8n could not create the first push's execution.
		first?.(false);
		expect(await settledYet(second)).toBe(true);
		// The second passed and holds the update now: the third still waits.
		expect(await settledYet(third)).toBe(false);
		expect(proc.seenBefore('key', 7)).toBe(false);
		(await second)?.(true);
		const last = await third;
		expect(last).toBeDefined();
		// The second's execution exists: the third finds the update received.
		expect(proc.seenBefore('key', 7)).toBe(true);
		last?.(true);
		expect(proc.seenBefore('key', 7)).toBe(true);
	});

	test('a push whose update is still in flight after the wait is told to come again later; another update or trigger does not wait', async () => {
		const proc = freshProcess();
		proc.IN_FLIGHT_TIMING.waitMs = 20;
		const first = await proc.claim('key', 8);
		expect(proc.seenBefore('key', 8)).toBe(false);
		expect(await proc.claim('key', 8)).toBeUndefined();
		expect(await settledYet(proc.claim('key', 9))).toBe(true);
		expect(await settledYet(proc.claim('other key', 8))).toBe(true);
		// Settled twice (n8n's answer, then a streamed end): the second call changes nothing.
		first?.(true);
		first?.(false);
		expect(proc.seenBefore('key', 8)).toBe(true);
		expect(await proc.claim('key', 8)).toBeDefined();
	});

	test('an update in flight longer than n8n ever takes to answer does not hold its pushes for ever', async () => {
		const proc = freshProcess();
		proc.IN_FLIGHT_TIMING.staleMs = 0;
		await proc.claim('key', 10);
		await new Promise((resolve) => setTimeout(resolve, 5));
		expect(await settledYet(proc.claim('key', 10))).toBe(true);
	});
});
