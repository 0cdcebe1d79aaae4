/**
 * An expression that gave nothing for a required field: the error names the field and the item, says
 * what the expression gave, whether the item has the key it reads and which keys it has (after Send
 * and Wait the answer item has `chatId`, not `chat_id`). Nothing is sent.
 */
import { byId, run } from '../../../harness/action-node';
import { useEmulator } from '../../../harness/emulator-suite';

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
