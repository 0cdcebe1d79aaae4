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
});
