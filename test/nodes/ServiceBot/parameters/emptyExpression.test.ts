/**
 * An expression that gave nothing for a required field: the error names the field and the item, says
 * what the expression gave, whether the item has the key it reads and which keys it has (after Send
 * and Wait the answer item has `chatId`, not `chat_id`). Nothing is sent.
 */
import type { IDataObject } from 'n8n-workflow';

import { withoutExpressions } from '../../../../nodes/ServiceBot/parameters/emptyExpression';
import { byId, run } from '../../../harness/action-node';
import { useEmulator } from '../../../harness/emulator-suite';
import { growth, growthVerdict } from '../../../harness/growth';

const ctx = useEmulator();

describe('a required field whose expression gave nothing', () => {
	test('Chat mapped from a key the item does not have: the error says it gave undefined, the item has no chat_id, lists its keys and the close one', async () => {
		const items = [
			{ chat_id: ctx.d.privateChatId, text: 'fine' },
			{ chatId: ctx.d.privateChatId, data: { approved: true }, text: 'approved' },
		];
		const result = await run(ctx, { resource: 'message', operation: 'sendMessage', chatId: byId('={{ $json.chat_id }}'), text: '={{ $json.text }}' }, { items });
		const message = result.error?.message ?? '';
		expect(message).toMatch(/^Chat: /);
		expect(message).toContain('{{ $json.chat_id }} gave undefined');
		expect(message).toContain('the item has no chat_id; it has: chatId, data, text');
		expect(message).toContain('{{ $json.chatId }}');
		expect(message).toMatch(/\[item 1\]$/);
		expect(ctx.emu.callsTo('sendMessage')).toHaveLength(0);
	});

	test('a key the item has but that is empty: the error says so', async () => {
		const result = await run(ctx, { resource: 'file', operation: 'getFile', fileId: '={{ $json.file_id }}' }, { items: [{ file_id: '', name: 'a.pdf' }] });
		const message = result.error?.message ?? '';
		expect(message).toMatch(/^File ID: /);
		expect(message).toContain("{{ $json.file_id }} gave ''");
		expect(message).toContain("the item's file_id is empty");
		expect(ctx.emu.callsTo('getFile')).toHaveLength(0);
	});
});

/** The hints n8n keeps for the node's run (shown in its output pane). */
function hintsOf(result: Awaited<ReturnType<typeof run>>): string[] {
	return (result.run.data.resultData.runData['Service Bot']?.[0]?.hints ?? []).map((hint) => `${hint.type}: ${hint.message}`);
}

/** A trigger item of a photo, as the Service Bot trigger makes it (no width or height under message.photo: it is a list of sizes). */
function photoItem(chatId: string): IDataObject {
	return {
		update_id: 7,
		message: { message_id: 3, chat: { id: chatId, type: 'private' }, date: 1, photo: [{ file_id: 'p1', width: 90, height: 60 }] },
		chat_id: chatId,
		file_kind: 'photo',
		file_width: 90,
		file_height: 60,
	};
}

describe('a text whose every expression gave nothing', () => {
	const photoText = '=A photo of {{ $json.message.photo.width }} × {{ $json.message.photo.height }}, {{ $json.file_size }} bytes';

	test('is sent as n8n made it, and the run warns once on the node naming the field, the item, the first expression and what the item has there', async () => {
		const items = [photoItem(ctx.d.privateChatId), photoItem(ctx.d.privateChatId)];
		const result = await run(ctx, { resource: 'message', operation: 'sendMessage', chatId: byId('={{ $json.chat_id }}'), text: photoText }, { items });
		expect(result.error).toBeUndefined();
		expect(ctx.emu.history(ctx.d.privateChatId).map((message) => message.text)).toEqual(['A photo of  × ,  bytes', 'A photo of  × ,  bytes']);
		expect(hintsOf(result)).toEqual([
			'warning: Text: every expression in it gave nothing for item 0, so it was sent as \'A photo of  × ,  bytes\'. {{ $json.message.photo.width }} gave nothing: the item\'s message.photo is a list of 1, which has no width. Check the names in the input panel, or drag the field from there',
		]);
	});

	test('a key the item does not have at all: the hint lists the keys it has there', async () => {
		const result = await run(ctx, { resource: 'message', operation: 'sendMessage', chatId: byId(ctx.d.privateChatId), text: '=Size: {{ $json.size }} bytes' }, { items: [{ file_size: 12, file_name: 'a.txt' }] });
		expect(result.error).toBeUndefined();
		expect(hintsOf(result)).toEqual(["warning: Text: every expression in it gave nothing for item 0, so it was sent as 'Size:  bytes'. {{ $json.size }} gave nothing: the item has no size (it has: file_size, file_name). Check the names in the input panel, or drag the field from there"]);
	});

	test('no hint when one expression gave something, when the text is one expression alone, or when it has no expression', async () => {
		const items = [{ first_name: 'Ada' }];
		const named = await run(ctx, { resource: 'message', operation: 'sendMessage', chatId: byId(ctx.d.privateChatId), text: '=Hello {{ $json.first_name }} {{ $json.last_name }}' }, { items });
		const whole = await run(ctx, { resource: 'message', operation: 'sendPhoto', chatId: byId(ctx.d.privateChatId), photo: ctx.d.media.photo, additionalFields: { caption: '={{ $json.caption }}' } }, { items });
		const fixed = await run(ctx, { resource: 'message', operation: 'sendMessage', chatId: byId(ctx.d.privateChatId), text: 'Hello' }, { items });
		expect([named, whole, fixed].map((result) => [result.error?.message, hintsOf(result)])).toEqual([
			[undefined, []],
			[undefined, []],
			[undefined, []],
		]);
	});

	test('a caption too; 1,000 items whose expressions all gave nothing: one hint, 1,000 sends', async () => {
		const items = Array.from({ length: 1000 }, (_, index) => ({ index }));
		const result = await run(ctx, { resource: 'message', operation: 'sendMessage', chatId: byId(ctx.d.privateChatId), text: '=Order {{ $json.order_id }} is ready' }, { items });
		expect(result.error).toBeUndefined();
		expect(ctx.emu.callsTo('sendMessage')).toHaveLength(1000);
		expect(hintsOf(result)).toHaveLength(1);
		const caption = await run(ctx, { resource: 'message', operation: 'sendPhoto', chatId: byId(ctx.d.privateChatId), photo: ctx.d.media.photo, additionalFields: { caption: '=From {{ $json.from }}' } }, { items: [{ sender: 'Ada' }] });
		expect(hintsOf(caption)).toEqual(["warning: Caption: every expression in it gave nothing for item 0, so it was sent as 'From '. {{ $json.from }} gave nothing: the item has no from (it has: sender). Check the names in the input panel, or drag the field from there"]);
	});
});

describe("a text's expressions are found in one pass", () => {
	test('linear in the text: many {{ }}, unclosed {{, braces inside an expression', async () => {
		for (const make of [(n: number) => `a {{ $json.x }} `.repeat(n), (n: number) => `{{ ${'{'.repeat(n)}`, (n: number) => `{{ {a:{b:1}} }} `.repeat(n), (n: number) => '{{'.repeat(n)]) {
			expect(growthVerdict(await growth((text) => withoutExpressions(text), make))).toBe('linear');
		}
	});

	test('the text around the expressions and the first expression, as n8n splits them (the first }} after a {{ closes it)', () => {
		expect(withoutExpressions('A {{ $json.a }} and {{ $json.b }}!')).toEqual({ text: 'A  and !', first: '{{ $json.a }}' });
		expect(withoutExpressions('no expression')).toEqual({ text: 'no expression', first: undefined });
		expect(withoutExpressions('open {{ $json.a')).toEqual({ text: 'open {{ $json.a', first: undefined });
	});
});
