/**
 * Refusals a user can act on say what to do in the error's message, which is all n8n's toast shows;
 * the service's own words come first. Each is a real refusal of the emulator, through the node.
 */
import type { INodeParameters } from 'n8n-workflow';
import { randomUUID } from 'node:crypto';

import { byId, run, seedMessage } from '../../harness/action-node';
import { useEmulator } from '../../harness/emulator-suite';

const ctx = useEmulator();

async function messageOf(parameters: INodeParameters, typeVersion?: number): Promise<string> {
	const result = await run(ctx, parameters, { typeVersion });
	expect(result.error?.name).toBe('NodeApiError');
	const message = result.error?.message ?? '';
	expect(message).not.toContain(ctx.d.token);
	return message;
}

const send = (chatId: string): INodeParameters => ({ resource: 'message', operation: 'sendMessage', chatId: byId(chatId), text: 'hello' });
const edit = (messageId: number): INodeParameters => ({
	resource: 'message',
	operation: 'editMessageText',
	chatId: byId(ctx.d.privateChatId),
	messageId: String(messageId),
	text: 'changed',
});

describe('a refusal says what to do next', () => {
	test('chat not found: where chat IDs come from', async () => {
		const message = await messageOf(send(randomUUID()));
		expect(message).toMatch(/^Bad Request: chat not found\. Check the Chat ID: use the chat_id of an update the bot received/);
	});

	test('the bot is not a member: add it to the chat', async () => {
		expect(await messageOf(send(ctx.d.foreignChatId))).toMatch(/^Forbidden: bot is not a member of the chat\. Add the bot to the chat/);
	});

	test("a message that is not the bot's cannot be edited: only the bot's own messages", async () => {
		const users = await ctx.emu.userSends({ chatId: ctx.d.privateChatId, userId: ctx.d.userId, text: 'mine' });
		const message = await messageOf(edit(users.message?.message_id ?? 0));
		expect(message).toMatch(/^Bad Request: message can't be edited\. Only messages the bot sent can be edited: check the Message ID/);
	});

	test('a message that does not exist: check the Message ID', async () => {
		await seedMessage(ctx, ctx.d.privateChatId, { text: 'the only one' });
		expect(await messageOf(edit(999))).toMatch(/^Bad Request: message to edit not found\. Check the Message ID/);
	});

	test('a click answered too late or twice (node versions 1 and 2 fail there): the click named, answer once, within seconds', async () => {
		const message = await messageOf({ resource: 'callback', operation: 'answerCallbackQuery', callbackQueryId: '4242', additionalFields: {} }, 2);
		expect(message).toMatch(/^The service refused to answer click "4242": it was already answered, or it is too old to answer \(the service takes one answer per click, within seconds of the tap\)/);
	});

	test('a refusal without advice keeps the service’s words alone', async () => {
		ctx.emu.injectFault({ kind: 'status', status: 400, method: 'sendMessage', description: 'Bad Request: something unusual' });
		expect(await messageOf(send(ctx.d.privateChatId))).toBe('Bad Request: something unusual');
	});
});
