/**
 * A bulk send of 500 items over 20 chats while the emulator answers a third of the
 * calls with 429 and retry_after 1 → every message delivered exactly once, each chat's order kept.
 *
 * The 429s are spread deterministically: the first call of each chat and then every third call of
 * that chat (the node sends one chat's items one after another, so a chat's calls arrive in order).
 * So about a third of all calls are refused, every refused item succeeds on its retry, and the
 * 20 chats wait out their 1 s windows side by side (shown by the order the calls arrive in).
 */
import type { IDataObject } from 'n8n-workflow';

import type { RecordedCall } from '../emulator';
import { byId, jsonOf, pairingOf, run } from '../harness/action-node';
import { useEmulator } from '../harness/emulator-suite';

const ctx = useEmulator();

const ITEMS = 500;
const CHATS = 20;

function twentyChats(): string[] {
	return Array.from({ length: CHATS }, (_, index) => {
		const { chatId } = ctx.emu.addChat({
			type: 'group',
			title: `Rate ${index}`,
			members: [
				{ userId: ctx.d.botId, status: 'member' },
				{ userId: ctx.d.userId, status: 'member' },
			],
		});
		return chatId;
	});
}

describe('rate limits during a bulk send', () => {
	it(`${ITEMS} items over ${CHATS} chats, 429 (retry_after 1) to a third of the calls: each delivered once, in order`, async () => {
		const chats = twentyChats();
		// 25 items per chat, shuffled deterministically so that chats interleave irregularly.
		const order = Array.from({ length: ITEMS }, (_, index) => index % CHATS);
		let seed = 20_240_607;
		for (let index = order.length - 1; index > 0; index--) {
			seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
			const other = seed % (index + 1);
			[order[index], order[other]] = [order[other], order[index]];
		}
		const items = order.map((chat, index) => ({ chat: chats[chat], text: `m${index}` }));
		const callsPerChat = new Map<string, number>();
		ctx.emu.injectFault({
			kind: 'status',
			status: 429,
			retryAfter: 1,
			method: 'sendMessage',
			count: ITEMS,
			when: (call) => {
				const chat = String(call.body.chat_id);
				const seen = callsPerChat.get(chat) ?? 0;
				callsPerChat.set(chat, seen + 1);
				return seen % 3 === 0;
			},
		});

		const started = performance.now();
		const result = await run(
			ctx,
			{
				resource: 'message',
				operation: 'sendMessage',
				chatId: byId('={{ $json.chat }}'),
				text: '={{ $json.text }}',
				options: { concurrency: CHATS },
			},
			{ items },
		);
		const elapsed = performance.now() - started;

		// Every item succeeded, in input order, paired.
		expect(result.error).toBeUndefined();
		expect(jsonOf(result.output).map((message) => message.text)).toEqual(items.map((item) => item.text));
		expect(pairingOf(result.output)).toEqual(items.map((_, index) => index));

		// Each chat shows its messages exactly once, in input order.
		for (const chat of chats) {
			expect(ctx.emu.history(chat).map((message) => message.text)).toEqual(items.filter((item) => item.chat === chat).map((item) => item.text));
		}

		// A third of the calls were refused; every refused call was retried once, after retry_after.
		const calls = ctx.emu.callsTo('sendMessage');
		const refused = calls.filter((call) => call.status === 429);
		expect(calls.length).toBe(ITEMS + refused.length);
		// (A chat with an odd number of items ends on a refused call: slightly over a third.)
		expect(Math.abs(refused.length / calls.length - 1 / 3)).toBeLessThan(0.02);
		expect(refused.length).toBeGreaterThanOrEqual(250);
		const byChat = new Map<string, RecordedCall[]>();
		for (const call of calls) byChat.set(String(call.body.chat_id), [...(byChat.get(String(call.body.chat_id)) ?? []), call]);
		for (const chatCalls of byChat.values()) {
			chatCalls.forEach((call, index) => {
				if (call.status !== 429) return;
				const retry = chatCalls[index + 1];
				expect(retry.body.text).toBe(call.body.text);
				expect(retry.status).toBe(200);
				expect(retry.at - call.at).toBeGreaterThanOrEqual(1000);
			});
		}
		// The chats waited side by side: in the order the calls arrived, a chat waits from its 429 to its
		// retry, and many chats were waiting at the same time (one chat after another would give 1).
		const waiting = new Set<string>();
		let mostWaiting = 0;
		for (const call of calls) {
			const chat = String(call.body.chat_id);
			if (call.status === 429) waiting.add(chat);
			else waiting.delete(chat);
			mostWaiting = Math.max(mostWaiting, waiting.size);
		}
		expect(mostWaiting).toBeGreaterThanOrEqual(CHATS / 2);
		console.log(
			`rate limits: ${ITEMS} items, ${calls.length} calls, ${refused.length} answered 429, ` +
				`up to ${mostWaiting} chats waiting at once, ${(elapsed / 1000).toFixed(1)} s`,
		);
		const outputTexts: IDataObject[] = jsonOf(result.output);
		expect(new Set(outputTexts.map((message) => `${(message.chat as IDataObject).id}/${String(message.message_id)}`)).size).toBe(ITEMS);
	}, 120_000);
});
