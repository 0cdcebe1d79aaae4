/** Unit tests of the node's pure helpers: text splitting, the ordered scheduler, output shapes. */
import fc from 'fast-check';

import { getMethod } from '../../nodes/shared/catalogue';
import { runOrdered } from '../../nodes/ServiceBot/helpers/bulk';
import { shapeResult } from '../../nodes/ServiceBot/helpers/output';
import { splitText } from '../../nodes/ServiceBot/helpers/splitText';

describe('splitText', () => {
	it('keeps a text at the limit whole and cuts one over it', () => {
		expect(splitText('abcd', 4)).toEqual(['abcd']);
		expect(splitText('abcde', 4)).toEqual(['abcd', 'e']);
		expect(splitText('', 4)).toEqual(['']);
	});

	it('prefers paragraph, then line, then space breaks, dropping the break', () => {
		expect(splitText('aa bb\ncc\n\ndd ee', 12)).toEqual(['aa bb\ncc', 'dd ee']);
		expect(splitText('aa bb\ncc dd ee', 10)).toEqual(['aa bb', 'cc dd ee']);
		expect(splitText('aa bb cc dd', 7)).toEqual(['aa bb', 'cc dd']);
		expect(splitText('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
	});

	it('never cuts a surrogate pair', () => {
		expect(splitText('abc😀d', 4)).toEqual(['abc', '😀d']);
		expect(splitText('😀😀😀', 3)).toEqual(['😀', '😀', '😀']);
	});

	it('property: parts fit, are non-empty, keep whole characters, and rebuild the text', () => {
		const alphabet = fc.constantFrom('a', 'b', ' ', '\n', '😀', 'é');
		fc.assert(
			fc.property(fc.array(alphabet, { maxLength: 200 }), fc.integer({ min: 2, max: 30 }), (chars, max) => {
				const text = chars.join('');
				const parts = splitText(text, max);
				expect(parts.every((part) => part.length <= max)).toBe(true);
				if (text.length > 0) expect(parts.every((part) => part.length > 0)).toBe(true);
				for (const part of parts) {
					expect(/^[\udc00-\udfff]/.test(part)).toBe(false);
					expect(/[\ud800-\udbff]$/.test(part)).toBe(false);
				}
				// Only separators are dropped at cuts: removing all whitespace gives the same characters.
				expect(parts.join('').replace(/\s/g, '')).toBe(text.replace(/\s/g, ''));
			}),
		);
	});
});

describe('runOrdered', () => {
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
		const results = await runOrdered(tasks, { concurrency: 4, stopOnError: false });
		expect(results.map((result) => (result?.status === 'fulfilled' ? result.value : undefined))).toEqual(
			tasks.map((_, index) => index),
		);
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
		const results = await runOrdered(tasks, { concurrency: 3, stopOnError: true });
		expect(started).toEqual([0, 1]);
		expect(results.map((result) => result?.status)).toEqual(['fulfilled', 'rejected', undefined, 'skipped', 'skipped']);
	});

	it('without stopOnError every task runs', async () => {
		const results = await runOrdered(
			[1, 2, 3].map((value) => ({
				run: async () => {
					if (value === 2) throw new Error('two');
					return value;
				},
			})),
			{ concurrency: 2, stopOnError: false },
		);
		expect(results.map((result) => result?.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
	});
});

describe('shapeResult', () => {
	const method = (name: string) => {
		const found = getMethod(name);
		if (!found) throw new Error(name);
		return found;
	};

	it('true results become a named flag', () => {
		expect(shapeResult(method('deleteMessage'), true, {})).toEqual([{ deleted: true }]);
		expect(shapeResult(method('deleteMyCommands'), true, {})).toEqual([{ deleted: true }]);
		expect(shapeResult(method('deleteWebhook'), true, {})).toEqual([{ deleted: true }]);
		expect(shapeResult(method('pinChatMessage'), true, {})).toEqual([{ pinned: true }]);
		expect(shapeResult(method('unpinAllChatMessages'), true, {})).toEqual([{ unpinned: true }]);
		expect(shapeResult(method('sendChatAction'), true, {})).toEqual([{ sent: true }]);
		expect(shapeResult(method('answerCallbackQuery'), true, {})).toEqual([{ answered: true }]);
		expect(shapeResult(method('setMyName'), true, {})).toEqual([{ updated: true }]);
		expect(shapeResult(method('setWebhook'), true, {})).toEqual([{ updated: true }]);
	});

	it('counts, message ids and lists', () => {
		expect(shapeResult(method('getChatMemberCount'), 7, {})).toEqual([{ count: 7 }]);
		expect(shapeResult(method('copyMessage'), { message_id: 4 }, { chat_id: '@x' })).toEqual([{ message_id: 4, chat_id: '@x' }]);
		expect(shapeResult(method('getUpdates'), [{ update_id: 1 }, { update_id: 2 }], {})).toEqual([{ update_id: 1 }, { update_id: 2 }]);
		expect(shapeResult(method('getUpdates'), [], {})).toEqual([]);
		expect(shapeResult(method('getUpdates'), [], {}, false)).toEqual([{ updates: [] }]);
		expect(shapeResult(method('getChatAdministrators'), [{ status: 'creator' }], {}, false)).toEqual([
			{ administrators: [{ status: 'creator' }] },
		]);
	});
});
