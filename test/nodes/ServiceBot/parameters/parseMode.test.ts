/** The parse mode kind's request step on its own: Markdown From AI converted before the requests, and its plain-text fallback. */
import type { IDataObject } from 'n8n-workflow';

import type { Param } from '../../../../nodes/ServiceBot/parameters/param';
import { parseModeKind } from '../../../../nodes/ServiceBot/parameters/parseMode';

describe('the parse mode kind\'s request step (what the node runs before making an item\'s requests)', () => {
	const param: Param = { name: 'parse_mode', kind: 'parseMode', required: false, displayName: 'Parse Mode', description: '' };
	const prepare = (body: IDataObject) => parseModeKind.prepare?.(body, param);

	test('Markdown From AI: the text and the caption converted, parse_mode HTML, the other fields kept', () => {
		const prepared = prepare({ chat_id: 'c', text: '**Hi** <you>', caption: '_see_ this', parse_mode: 'markdownFromAi' });
		expect(prepared?.body).toEqual({ chat_id: 'c', text: '<b>Hi</b> &lt;you&gt;', caption: '<i>see</i> this', parse_mode: 'HTML' });
	});

	test('any other parse mode, and none, leave the body to be sent as it is', () => {
		for (const mode of ['HTML', 'Markdown', 'MarkdownV2', undefined]) expect(prepare({ text: '**Hi**', parse_mode: mode })).toBeUndefined();
	});

	test('its fallback sends what a reader would have seen, without parse_mode, flags the output sentAsPlainText and says so in the log', () => {
		const fallback = prepare({ chat_id: 'c', text: '**A** & `b`', parse_mode: 'markdownFromAi' })?.fallback;
		expect(fallback?.body({ chat_id: 'c', text: '<b>A</b> &amp; <code>b</code>', parse_mode: 'HTML', reply_markup: '{}' })).toEqual({ chat_id: 'c', text: 'A & b', reply_markup: '{}' });
		expect(fallback?.body({ caption: '<i>x</i> &lt;y&gt;', parse_mode: 'HTML' })).toEqual({ caption: 'x <y>' });
		expect(fallback?.flag).toBe('sentAsPlainText');
		expect(fallback?.warning(new Error("Bad Request: can't parse entities"), 3)).toBe(
			"the service refused the formatting of item 3 (Bad Request: can't parse entities); sent it as plain text",
		);
	});

	test('its fallback does not answer an error that did not come from the service, whatever its text (the service\'s refusal: through the node, ServiceBot.node.markdownFromAi.test.ts)', () => {
		const fallback = prepare({ text: 'x', parse_mode: 'markdownFromAi' })?.fallback;
		expect(fallback?.answers(new Error("Bad Request: can't parse entities"))).toBe(false);
	});
});
