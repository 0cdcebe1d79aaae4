/**
 * A boolean from an expression in a text field. n8n's own nodes send it as its text ("true"): n8n's
 * getNodeParameter with `ensureType: 'string'` turns it into String(value), and the Telegram node
 * passes it to the Bot API, which reads it as "true". So it is sent as the text, and the run says so
 * on the node's output, naming the field and the item: a comparison left in a message's expression
 * (`{{ $json.status === 'paid' }}`) is a likely mistake nobody would notice otherwise.
 */
import type { ExecuteNodeResult } from '../../../harness';
import { byId, run } from '../../../harness/action-node';
import { useEmulator } from '../../../harness/emulator-suite';

const ctx = useEmulator();

/** The warnings n8n shows on the node's output in the editor (execution hints). */
const hintsOf = (result: ExecuteNodeResult): unknown[] => Object.values(result.run.data.resultData.runData).flatMap((tasks) => tasks.flatMap((task) => task.hints ?? []));

describe('a boolean from an expression in a text field', () => {
	test('Send Message: true and false are sent as their text, and the run warns once per field, naming it and the first item', async () => {
		const items = [{ status: 'paid' }, { status: 'open' }, { status: 'paid' }];
		const parameters = {
			resource: 'message',
			operation: 'sendMessage',
			chatId: byId(ctx.d.privateChatId),
			text: "={{ $json.status === 'paid' }}",
			additionalFields: {},
		};
		const result = await run(ctx, parameters, { items });
		expect(result.error).toBeUndefined();
		expect(ctx.emu.callsTo('sendMessage').map((call) => call.body.text)).toEqual(['true', 'false', 'true']);
		expect(hintsOf(result)).toEqual([
			{
				message:
					"Text: the expression of item 0 gave the boolean true, sent as the text \"true\" (so does any other item whose expression gives a boolean). If a text was meant, check the expression: a comparison such as {{ $json.status === 'paid' }} gives true or false",
				type: 'warning',
				location: 'outputPane',
			},
		]);
	});

	test('text that comes as text: no warning', async () => {
		const result = await run(
			ctx,
			{ resource: 'message', operation: 'sendMessage', chatId: byId(ctx.d.privateChatId), text: '={{ $json.status }}', additionalFields: {} },
			{ items: [{ status: 'true' }] },
		);
		expect(ctx.emu.callsTo('sendMessage').map((call) => call.body.text)).toEqual(['true']);
		expect(hintsOf(result)).toEqual([]);
	});
});
