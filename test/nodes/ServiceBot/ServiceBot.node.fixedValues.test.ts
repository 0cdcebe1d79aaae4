/**
 * What a new user trips over, told where they act (issue 31, item 6):
 * - A value typed as `{{ $json.x }}` into a field left in Fixed mode (n8n 2.41 switches a field to
 *   Expression when `{{` is pasted, not when it is typed) is the text it shows. In a field that takes
 *   an ID or a number the node refuses it before any request, naming the field, the item and the
 *   switch; in a free text it is sent as written, with a warning on the run. n8n saves an expression
 *   with a leading `=`: these tests save the parameters as n8n does.
 * - A number where a chat or user UUID belongs (Telegram's IDs are numbers) is refused with where IDs
 *   come from.
 * Expected texts are written here, not taken from the code.
 */
import type { IDataObject, INodeParameters, NodeExecutionHint } from 'n8n-workflow';

import { makeHarness } from '../../harness/trigger-nodes';
import { byId, run, runOk, seedMessage } from '../../harness/action-node';
import { useEmulator } from '../../harness/emulator-suite';

const ctx = useEmulator();

/** The Chat field's own check: how to get a chat's ID with a trigger and without one (spec: chat_id is a UUID or a public @username). */
const NOT_A_CHAT =
	'Not a chat UUID. After a Service Bot trigger map {{ $json.chat_id }} in Expression mode; without one, use By Username (@name of a public group or channel; Get Chat with it returns the UUID), or copy chat_id from a trigger item in Executions';

const SWITCH = 'Switch the field to Expression (hover the field, click "Expression") or remove the braces';

const answer = (callbackQueryId: string): INodeParameters => ({
	resource: 'callback',
	operation: 'answerCallbackQuery',
	callbackQueryId,
	additionalFields: {},
});

/** The hints n8n keeps for the node's run (shown in its output pane). */
function hintsOf(result: Awaited<ReturnType<typeof run>>): NodeExecutionHint[] {
	return result.run.data.resultData.runData['Service Bot']?.[0]?.hints ?? [];
}

/** A button the bot sent and the demo user clicked: the click's callback_query id. */
async function clickId(): Promise<string> {
	const sent = await seedMessage(ctx, ctx.d.privateChatId, { text: 'Tea?', reply_markup: { inline_keyboard: [[{ text: 'Tea', callback_data: 'tea' }]] } });
	const update = await ctx.emu.userClicks({ chatId: ctx.d.privateChatId, userId: ctx.d.userId, messageId: sent.message_id as number, data: 'tea' });
	const id = update.callback_query?.id;
	if (!id) throw new Error('the click has no callback_query id');
	return id;
}

describe('a Fixed value that looks like an expression', () => {
	test('Answer Callback Query with a Fixed {{ $json.callback_query_id }} fails naming the field, the item and the switch; nothing is sent', async () => {
		const id = await clickId();
		const result = await run(ctx, answer('{{ $json.callback_query_id }}'), { items: [{ callback_query_id: id }] });
		expect(result.error?.name).toBe('NodeOperationError');
		expect(result.error?.message).toBe(
			`Callback Query ID: '{{ $json.callback_query_id }}' is in Fixed mode, so it would be sent as this text. ${SWITCH} [item 0]`,
		);
		expect(ctx.emu.callsTo('answerCallbackQuery')).toHaveLength(0);
	});

	test('the same field as an expression answers the click', async () => {
		const id = await clickId();
		const output = await runOk(ctx, answer('={{ $json.callback_query_id }}'), { items: [{ callback_query_id: id }] });
		expect(output[0].json.answered).toBe(true);
		expect(ctx.emu.callsTo('answerCallbackQuery').map((call) => call.body.callback_query_id)).toEqual([id]);
	});

	test('a Fixed message ID (under Additional Fields too), media ID and user ID are refused the same way, before any request', async () => {
		const cases: Array<[INodeParameters, string]> = [
			[
				{ resource: 'message', operation: 'deleteMessage', chatId: byId(ctx.d.privateChatId), messageId: '{{ $json.message_id }}' },
				`Message ID: '{{ $json.message_id }}'`,
			],
			[
				{
					resource: 'message',
					operation: 'sendMessage',
					chatId: byId(ctx.d.privateChatId),
					text: 'hi',
					additionalFields: { replyToMessageId: '{{$json.message_id}}' },
				},
				`Reply To Message ID: '{{$json.message_id}}'`,
			],
			[
				{ resource: 'message', operation: 'sendPhoto', chatId: byId(ctx.d.privateChatId), photo: '{{ $json.file_id }}' },
				`Photo ID: '{{ $json.file_id }}'`,
			],
			[{ resource: 'chat', operation: 'getChatMember', chatId: byId(ctx.d.privateChatId), userId: '{{ $json.user_id }}' }, `User ID: '{{ $json.user_id }}'`],
		];
		for (const [parameters, field] of cases) {
			const result = await run(ctx, parameters, { items: [{ chat_id: ctx.d.privateChatId }, { chat_id: ctx.d.privateChatId }] });
			expect(result.error?.message).toBe(`${field} is in Fixed mode, so it would be sent as this text. ${SWITCH} [item 0]`);
		}
		expect(ctx.emu.calls).toHaveLength(0);
	});

	test("a Fixed {{ $json.chat_id }} in the chat's ID field: n8n refuses to run the node with the field's message, which says to map it in Expression mode", async () => {
		await expect(run(ctx, { resource: 'message', operation: 'sendMessage', chatId: byId('{{ $json.chat_id }}'), text: 'hi' })).rejects.toThrow(
			NOT_A_CHAT,
		);
		expect(ctx.emu.calls).toHaveLength(0);
	});

	test('a Fixed message text with {{ }} is sent as written, with one warning on the run naming the field', async () => {
		const text = 'Hello {{ $json.name }}, your order is in';
		const result = await run(ctx, { resource: 'message', operation: 'sendMessage', chatId: byId(ctx.d.privateChatId), text }, { items: [{ name: 'Ada' }, { name: 'Bob' }, { name: 'Cy' }] });
		expect(result.error).toBeUndefined();
		expect(ctx.emu.history(ctx.d.privateChatId).map((message) => message.text)).toEqual([text, text, text]);
		expect(hintsOf(result)).toEqual([
			{
				message: `Text: 'Hello {{ $json.name }}, your order is in' is in Fixed mode, so it was sent as this text, braces included. To fill it in from the input, switch the field to Expression (hover the field, click "Expression").`,
				type: 'warning',
				location: 'outputPane',
			},
		]);
	});

	test('a caption under Additional Fields gets the warning too; the same text as an expression gets none', async () => {
		const caption = await run(ctx, {
			resource: 'message',
			operation: 'sendPhoto',
			chatId: byId(ctx.d.privateChatId),
			photo: ctx.d.media.photo,
			additionalFields: { caption: 'Look: {{ $json.name }}' },
		});
		expect(caption.error).toBeUndefined();
		expect(hintsOf(caption).map((hint) => hint.message)).toEqual([
			`Caption: 'Look: {{ $json.name }}' is in Fixed mode, so it was sent as this text, braces included. To fill it in from the input, switch the field to Expression (hover the field, click "Expression").`,
		]);
		const expression = await run(ctx, { resource: 'message', operation: 'sendMessage', chatId: byId(ctx.d.privateChatId), text: '=Hello {{ $json.name }}' }, { items: [{ name: 'Ada' }] });
		expect(expression.error).toBeUndefined();
		expect(hintsOf(expression)).toEqual([]);
		expect(ctx.emu.history(ctx.d.privateChatId).map((message) => message.text)).toContain('Hello Ada');
	});

	test("the triggers' Restrict to Chat IDs in Fixed mode with {{ }} is refused at activation, saying to switch or enter the IDs", async () => {
		const harness = await makeHarness(ctx.emu, { parameters: { updates: ['*'], options: { chatIds: '{{ $json.chat_id }}' } } });
		const failure = await harness.activate().then(
			() => undefined,
			(error: unknown) => error as Error,
		);
		expect(failure?.message).toBe(
			'Restrict to Chat IDs: "{{ $json.chat_id }}" is in Fixed mode, so it is read as this text. Enter the IDs themselves, or switch the field to Expression (hover the field, click "Expression")',
		);
		expect(ctx.emu.callsTo('setWebhook')).toHaveLength(0);
	});
});

describe('an expression with a }} outside {{ }}: n8n sends it as text', () => {
	// n8n's editor closes a typed {{ with }} itself; a person who types }} too leaves one outside. n8n
	// splits an expression at the first }} after each {{, so a }} outside stays in the text as it is.
	test('the message is sent as n8n makes it, with one warning on the run naming the field and showing where', async () => {
		const result = await run(
			ctx,
			{ resource: 'message', operation: 'sendMessage', chatId: byId(ctx.d.privateChatId), text: '=Hello {{ $json.name }} }}, welcome' },
			{ items: [{ name: 'Ada' }, { name: 'Bob' }] },
		);
		expect(result.error).toBeUndefined();
		expect(ctx.emu.history(ctx.d.privateChatId).map((message) => message.text)).toEqual(['Hello Ada }}, welcome', 'Hello Bob }}, welcome']);
		expect(hintsOf(result)).toEqual([
			{
				message:
					"Text: the expression has a }} outside {{ }} (in '}}, welcome'), so every message shows it. n8n's editor closes a typed {{ by itself: delete the extra }}.",
				type: 'warning',
				location: 'outputPane',
			},
		]);
	});

	test('a caption under Additional Fields too; an expression whose braces all pair (an object literal inside) gets none', async () => {
		const caption = await run(ctx, {
			resource: 'message',
			operation: 'sendPhoto',
			chatId: byId(ctx.d.privateChatId),
			photo: ctx.d.media.photo,
			additionalFields: { caption: '={{ $json.name }}}}' },
		}, { items: [{ name: 'Ada' }] });
		expect(caption.error).toBeUndefined();
		expect(hintsOf(caption).map((hint) => hint.message)).toEqual([
			"Caption: the expression has a }} outside {{ }} (in '}}'), so every message shows it. n8n's editor closes a typed {{ by itself: delete the extra }}.",
		]);
		const paired = await run(
			ctx,
			{ resource: 'message', operation: 'sendMessage', chatId: byId(ctx.d.privateChatId), text: '={{ $json.name }} and {{ JSON.stringify({ a: 1 }) }} and {{ $json.name }}' },
			{ items: [{ name: 'Ada' }] },
		);
		expect(paired.error).toBeUndefined();
		expect(hintsOf(paired)).toEqual([]);
		expect(ctx.emu.history(ctx.d.privateChatId).map((message) => message.text)).toContain('Ada and {"a":1} and Ada');
	});
});

describe('a number where a UUID belongs says where IDs come from', () => {
	const sendTo = (chat: string): INodeParameters => ({ resource: 'message', operation: 'sendMessage', chatId: byId(chat), text: 'hi' });

	test('a numeric chat ID typed in the ID field (as on Telegram): n8n refuses to run the node with the field\'s message', async () => {
		await expect(run(ctx, sendTo('123456789'))).rejects.toThrow(NOT_A_CHAT);
		expect(ctx.emu.calls).toHaveLength(0);
	});

	test("a numeric chat ID from an expression: the node says this service's chat IDs are UUIDs, mapped from the trigger", async () => {
		const result = await run(ctx, sendTo('={{ $json.chat }}'), { items: [{ chat: -1001234567890 } as IDataObject] });
		expect(result.error?.message).toBe(
			"Chat: '-1001234567890' is not a chat UUID or @username. Chat IDs of this service are UUIDs, not numbers as on Telegram: map {{ $json.chat_id }} from the Service Bot Trigger's output (as an expression) [item 0]",
		);
		expect(result.error?.description).toBe(
			'Chat IDs are UUIDs such as 0b6c8a58-0a7e-4b3c-9f3e-2f1f5d9a7c11: after a Service Bot trigger, map {{ $json.chat_id }} (as an expression), or take the id that Get Chat returns. Public groups and channels can also be named by their username starting with @.',
		);
		expect(ctx.emu.calls).toHaveLength(0);
	});

	test('a numeric user ID: user IDs are UUIDs, mapped from the trigger', async () => {
		const result = await run(ctx, { resource: 'chat', operation: 'getChatMember', chatId: byId(ctx.d.groupChatId), userId: '42' });
		expect(result.error?.message).toBe(
			"User ID: '42' is not a user UUID. User IDs of this service are UUIDs, not numbers as on Telegram: map {{ $json.user_id }} from the Service Bot Trigger's output (as an expression) [item 0]",
		);
		expect(ctx.emu.calls).toHaveLength(0);
	});

});
