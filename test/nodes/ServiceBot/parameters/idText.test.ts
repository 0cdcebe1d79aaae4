/**
 * ID fields refuse what no ID holds: n8n's single-line editor garbles an expression typed key by key
 * (`{{ json.callback_query_id }}$ }}` gives `$ }}`), and such garbage must not be sent. Every ID field
 * (a click's, a chat's, a message's, a file's, a user's) refuses braces, `$` and spaces before any
 * request, naming the item and the field, quoting the value and saying what to do.
 */
import type { INodeParameters } from 'n8n-workflow';

import { byId, run } from '../../../harness/action-node';
import { useEmulator } from '../../../harness/emulator-suite';

const ctx = useEmulator();

const DID_NOT_EVALUATE = 'this looks like an expression that did not evaluate: switch the field to Expression mode';

describe('ID fields refuse braces, $ and spaces before sending', () => {
	test('a Callback Query ID whose expression left "$ }}" is refused, quoted, and nothing is sent', async () => {
		{
			const callbackQueryId = byId('={{ $json.id }}$ }}');
			const result = await run(ctx, { resource: 'callback', operation: 'answerCallbackQuery', callbackQueryId }, { items: [{ id: 'abc' }] });
			expect(result.error?.message).toBe(`Callback Query ID: 'abc$ }}' holds "$", which no ID holds: ${DID_NOT_EVALUATE} (hover it, click "Expression") and map the value again, e.g. by dragging it from the input [item 0]`);
		}
		expect(ctx.emu.callsTo('answerCallbackQuery')).toHaveLength(0);
	});

	test('a chat, a message ID, a file ID and a user ID holding "{", "$" or a space are refused naming the field and the item', async () => {
		const cases: Array<[INodeParameters, string]> = [
			[{ resource: 'message', operation: 'sendMessage', chatId: byId('={{ $json.value }}'), text: 'hi' }, "Chat: '{chat_id}' holds \"{\""],
			[{ resource: 'message', operation: 'deleteMessage', chatId: byId(ctx.d.privateChatId), messageId: byId('={{ $json.value }}') }, "Message ID: '{chat_id}' holds \"{\""],
			[{ resource: 'file', operation: 'getFile', fileId: '={{ $json.value }}' }, "File ID: '{chat_id}' holds \"{\""],
		];
		for (const [parameters, start] of cases) {
			const result = await run(ctx, parameters, { items: [{ value: '{chat_id}' }] });
			expect(result.error?.message).toContain(start);
			expect(result.error?.message).toContain(DID_NOT_EVALUATE);
			expect(result.error?.message).toMatch(/\[item 0\]$/);
		}
		const dollar = await run(ctx, { resource: 'message', operation: 'sendMessage', chatId: byId('={{ $json.value }}'), text: 'hi' }, { items: [{ value: '$json.chat_id' }] });
		expect(dollar.error?.message).toContain(`Chat: '$json.chat_id' holds "$"`);
		expect(ctx.emu.callsTo('sendMessage')).toHaveLength(0);
		expect(ctx.emu.callsTo('deleteMessage')).toHaveLength(0);
		expect(ctx.emu.callsTo('getFile')).toHaveLength(0);
	});
});
