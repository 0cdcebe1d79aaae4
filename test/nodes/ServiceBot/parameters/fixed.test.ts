/**
 * The stray `}}` of an expression, as n8n splits one (n8n-workflow `splitExpression`): a `{{` opens a
 * code part unless written `\{{`, the first `}}` after it closes it, and a `}}` in a text part stays
 * text. The part shown runs from that `}}` to the next `{{` or 40 characters. Its time grows linearly
 * with the text (test/harness/growth.ts): it runs on every run of a node with an expression.
 */
import { strayClosing } from '../../../../nodes/ServiceBot/parameters/fixed';
import { growth, growthVerdict } from '../../../harness/growth';

describe('a }} outside {{ }} in an expression', () => {
	test.each([
		['Hello {{ $json.name }} }}, welcome', '}}, welcome'],
		['{{ $json.name }}}}', '}}'],
		['}} first', '}} first'],
		['a }} b {{ $json.x }}', '}} b '],
		[`{{ $json.a }} x }}${'y'.repeat(60)}`, `}}${'y'.repeat(38)}`],
		['\\{{ not code }} then', '}} then'],
	])('%j: %j', (expression, shown) => {
		expect(strayClosing(expression)).toBe(shown);
	});

	test.each([
		['Hello {{ $json.name }}, welcome'],
		['{{ $json.a }}{{ $json.b }}'],
		['{{ JSON.stringify({ a: 1 }) }} done'],
		['{{ $json.open'],
		['{{ a }} {{ b'],
		['no braces'],
		[''],
	])('%j: none', (expression) => {
		expect(strayClosing(expression)).toBeUndefined();
	});

	test.each<[string, (n: number) => string]>([
		['n pairs, then a stray', (n) => `${'{{ $json.a }} '.repeat(n)}}}`],
		['n opens without a close', (n) => '{{ '.repeat(n)],
		['n escaped opens, then a close', (n) => `${'\\{{ '.repeat(n)}}}`],
		['n closes without an open', (n) => '}} '.repeat(n)],
		['n single braces', (n) => '{ } '.repeat(n)],
	])('time grows linearly: %s', async (_name, make) => {
		expect(growthVerdict(await growth(strayClosing, make))).toBe('linear');
	});
});
