/** Unit tests of the node's pure helpers: text splitting, the ordered scheduler, output shapes. */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { METHODS } from '../../nodes/ServiceBot/resources';
import { shapeResult } from '../../nodes/ServiceBot/actions/output';
import { splitText as split } from '../../nodes/ServiceBot/helpers/splitText';
import { schedule, type Jobs } from '../../nodes/ServiceBot/actions/scheduler';

/** The parts of a split that must succeed. */
function splitText(text: string, max: number, parseMode?: string): string[] {
	const result = split(text, max, parseMode);
	if (!result.ok) throw new Error(result.problem);
	return result.parts;
}

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

describe('splitText with a parse mode: cuts only where the formatting is whole', () => {
	it('HTML: never inside an element, a tag or an entity', () => {
		expect(splitText('aa <b>bb cc</b> dd', 12, 'HTML')).toEqual(['aa', '<b>bb cc</b>', 'dd']);
		expect(splitText('a &amp; b c', 5, 'HTML')).toEqual(['a', '&amp;', 'b c']);
		// Without a parse mode the same text may be cut anywhere.
		expect(splitText('aa <b>bb cc</b> dd', 12)).toEqual(['aa <b>bb', 'cc</b> dd']);
	});

	it('Markdown: never inside an entity or an escape', () => {
		expect(splitText('x *a b c* y', 8, 'Markdown')).toEqual(['x', '*a b c*', 'y']);
		expect(splitText('ab\\_cd', 3, 'Markdown')).toEqual(['ab', '\\_c', 'd']);
	});

	it('MarkdownV2: never inside nested entities, code or a link', () => {
		expect(splitText('x *a _b c_ d* y', 12, 'MarkdownV2')).toEqual(['x', '*a _b c_ d*', 'y']);
		expect(splitText('x `a b c` y', 8, 'MarkdownV2')).toEqual(['x', '`a b c`', 'y']);
		expect(splitText('see [a b](https://e.x/y z) now', 25, 'MarkdownV2')).toEqual(['see', '[a b](https://e.x/y z)', 'now']);
	});

	it('HTML formatting longer than a part is closed at the end of each part and opened again at the start of the next', () => {
		expect(split(`<b>${'x'.repeat(20)}</b>`, 10, 'HTML')).toEqual({
			ok: true,
			parts: ['<b>xxx</b>', '<b>xxx</b>', '<b>xxx</b>', '<b>xxx</b>', '<b>xxx</b>', '<b>xxx</b>', '<b>xx</b>'],
		});
	});

	it('formatting that cannot be cut (a tag longer than a part, legacy Markdown): no split, and where it starts', () => {
		expect(split('ok <a href="https://example.com/a/long/path">x</a>', 20, 'HTML')).toEqual({
			ok: false,
			problem: 'formatting that starts at character 4 runs over 20 characters',
		});
		expect(split(`ok ${'*'}${'y '.repeat(10)}*`, 10, 'Markdown')).toEqual({
			ok: false,
			problem: 'formatting that starts at character 4 runs over 10 characters',
		});
	});
});

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

describe('shapeResult', () => {
	const shape = (name: string, result: unknown, body: IDataObject, splitIntoItems = true): IDataObject[] => {
		const found = METHODS.find((candidate) => candidate.name === name);
		if (!found) throw new Error(name);
		return shapeResult(found.output, result, body, splitIntoItems);
	};

	it('true results become a named flag', () => {
		expect(shape('deleteMessage', true, {})).toEqual([{ deleted: true }]);
		expect(shape('deleteMyCommands', true, {})).toEqual([{ deleted: true }]);
		expect(shape('deleteWebhook', true, {})).toEqual([{ deleted: true }]);
		expect(shape('pinChatMessage', true, {})).toEqual([{ pinned: true }]);
		expect(shape('unpinAllChatMessages', true, {})).toEqual([{ unpinned: true }]);
		expect(shape('sendChatAction', true, {})).toEqual([{ sent: true }]);
		expect(shape('answerCallbackQuery', true, {})).toEqual([{ answered: true }]);
		expect(shape('setMyName', true, {})).toEqual([{ updated: true }]);
		expect(shape('setWebhook', true, {})).toEqual([{ updated: true }]);
	});

	it('counts, message ids and lists', () => {
		expect(shape('getChatMemberCount', 7, {})).toEqual([{ count: 7 }]);
		expect(shape('copyMessage', { message_id: 4 }, { chat_id: '@x' })).toEqual([{ message_id: 4, chat_id: '@x' }]);
		expect(shape('getUpdates', [{ update_id: 1 }, { update_id: 2 }], {})).toEqual([{ update_id: 1 }, { update_id: 2 }]);
		expect(shape('getUpdates', [], {})).toEqual([]);
		expect(shape('getUpdates', [], {}, false)).toEqual([{ updates: [] }]);
		expect(shape('getChatAdministrators', [{ status: 'creator' }], {}, false)).toEqual([
			{ administrators: [{ status: 'creator' }] },
		]);
	});
});
