/** The trigger's helpers on their own: secret derivation and comparison, the duplicate window's two layers. */
import type { IDataObject } from 'n8n-workflow';

import { parseIdList, updateTypeOf } from '../../nodes/ServiceBotTrigger/filters';
import { deriveSecret, secretMatches, type WebhookIdentity } from '../../nodes/ServiceBotTrigger/secret';
import { SECRET_PATTERN } from './helpers';

const identity: WebhookIdentity = {
	workflowId: 'wf-1',
	nodeId: 'node-1',
	webhookId: 'hook-1',
	url: 'https://n8n.example.com/webhook/hook-1/webhook',
};

describe('deriveSecret', () => {
	test('is stable, 43 allowed characters, and changes with the token and every part of the identity', () => {
		const secret = deriveSecret('123:token', identity);
		expect(secret).toMatch(SECRET_PATTERN);
		expect(secret).toHaveLength(43);
		expect(deriveSecret('123:token', { ...identity })).toBe(secret);

		const variants = [
			deriveSecret('123:other', identity),
			deriveSecret('123:token', { ...identity, workflowId: 'wf-2' }),
			deriveSecret('123:token', { ...identity, nodeId: 'node-2' }),
			deriveSecret('123:token', { ...identity, webhookId: 'hook-2' }),
			deriveSecret('123:token', { ...identity, url: 'https://n8n.example.com/webhook-test/hook-1/webhook' }),
		];
		expect(new Set([secret, ...variants]).size).toBe(variants.length + 1);
	});

	test('parts cannot be shifted into each other', () => {
		const a = deriveSecret('t', { ...identity, workflowId: 'ab', nodeId: 'c' });
		const b = deriveSecret('t', { ...identity, workflowId: 'a', nodeId: 'bc' });
		expect(a).not.toBe(b);
	});
});

describe('secretMatches', () => {
	const expected = deriveSecret('123:token', identity);

	test('only the exact string matches', () => {
		expect(secretMatches(expected, expected)).toBe(true);
		expect(secretMatches(`${expected} `, expected)).toBe(false);
		expect(secretMatches(expected.slice(1), expected)).toBe(false);
		expect(secretMatches(`${expected.slice(0, -1)}${expected.endsWith('A') ? 'B' : 'A'}`, expected)).toBe(false);
	});

	test('absent, empty, repeated or non-string headers never match', () => {
		for (const received of [undefined, null, '', [expected, expected], [expected], 42]) {
			expect(secretMatches(received, expected)).toBe(false);
		}
		// An empty expected secret (no URL to derive it from) matches nothing, not even an empty header.
		expect(secretMatches('', '')).toBe(false);
	});
});

describe('filters helpers', () => {
	test('ID lists accept commas, spaces and new lines, and ignore case', () => {
		expect(parseIdList(' A-1, b-2\nC-3;;  ')).toEqual(['a-1', 'b-2', 'c-3']);
		expect(parseIdList('')).toEqual([]);
		expect(parseIdList(undefined)).toEqual([]);
	});

	test('the update type is the field holding an object', () => {
		expect(updateTypeOf({ update_id: 1, message: { text: 'x' } })).toBe('message');
		expect(updateTypeOf({ update_id: 1, callback_query: { id: '1' } })).toBe('callback_query');
		expect(updateTypeOf({ update_id: 1 })).toBeUndefined();
	});
});

describe('duplicate window layers', () => {
	type Dedupe = typeof import('../../nodes/ServiceBotTrigger/dedupe');

	/** A fresh copy of the module: what another n8n process would have in memory (nothing). */
	function freshProcess(): Dedupe {
		let loaded: Dedupe | undefined;
		jest.isolateModules(() => {
			loaded = jest.requireActual<Dedupe>('../../nodes/ServiceBotTrigger/dedupe');
		});
		if (!loaded) throw new Error('module not loaded');
		return loaded;
	}

	test('static data carries the window to another process', () => {
		const staticData: IDataObject = {};
		expect(freshProcess().seenBefore('key', 10, staticData)).toBe(false);
		expect(freshProcess().seenBefore('key', 10, staticData)).toBe(true);
		expect(freshProcess().seenBefore('key', 11, staticData)).toBe(false);
	});

	test('memory catches a copy when static data was not saved (test mode, or a concurrent request)', () => {
		const proc = freshProcess();
		expect(proc.seenBefore('key', 20, {})).toBe(false);
		expect(proc.seenBefore('key', 20, {})).toBe(true);
	});

	test('the window holds the last DUPLICATE_WINDOW (1000) ids; older ones leave it', () => {
		const proc = freshProcess();
		const staticData: IDataObject = {};
		const size = proc.DUPLICATE_WINDOW;
		for (let id = 1; id <= size + 1; id++) expect(proc.seenBefore('key', id, staticData)).toBe(false);
		const stored = staticData.recentUpdates as { ids: string; count: number };
		expect(stored.count).toBe(size);
		expect(stored.ids.split(',').map(Number)).toEqual(Array.from({ length: size }, (_, index) => index + 2));
		// Another process (fresh memory) sees the same window through static data.
		const other = freshProcess();
		expect(other.seenBefore('key', 1, staticData)).toBe(false);
		expect(other.seenBefore('key', 3, staticData)).toBe(true);
	});

	test('a window stored as an array (earlier versions) is still read', () => {
		const staticData: IDataObject = { recentUpdates: { key: 'key', ids: [7, 8] } };
		const proc = freshProcess();
		expect(proc.seenBefore('key', 8, staticData)).toBe(true);
		expect(proc.seenBefore('key', 9, staticData)).toBe(false);
		expect(staticData.recentUpdates).toEqual({ key: 'key', ids: '7,8,9', count: 3 });
	});

	test('windows of different webhooks (or bots) are separate', () => {
		const proc = freshProcess();
		const staticData: IDataObject = {};
		expect(proc.seenBefore('bot-a', 30, staticData)).toBe(false);
		expect(proc.seenBefore('bot-b', 30, staticData)).toBe(false);
		// The stored window now belongs to bot-b; bot-a still has its copy in memory.
		expect(proc.seenBefore('bot-a', 30, staticData)).toBe(true);
	});
});
