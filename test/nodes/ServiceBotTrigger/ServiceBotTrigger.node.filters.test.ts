/**
 * The update type filter, the chat and user allow-lists (messages and
 * callback queries, failing closed) and the duplicate window, each with a passing and a rejected case.
 * Updates come from the emulator by real push where it can produce them; the rest go through
 * `receive()` with the secret the emulator holds.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Emulator } from '../../emulator';
import type { TriggerHarness } from '../../harness';
import {
	SECRET_HEADER,
	inNewProcess,
	liveTrigger,
	makeHarness,
	messageUpdate,
	sendButton,
	type LiveTrigger,
} from '../../harness/trigger-nodes';
import { useEmulator } from '../../harness/emulator-suite';

let emu: Emulator;
const live: LiveTrigger[] = [];
useEmulator({ running: live, started: (started) => (emu = started), logging: true });

async function start(parameters: INodeParameters): Promise<LiveTrigger> {
	const trigger = await liveTrigger(emu, { parameters });
	live.push(trigger);
	return trigger;
}

/** The bot posts a button in the chat and `userId` clicks it; resolves when the push is answered. */
async function click(chatId: string, userId: string, data: string): Promise<void> {
	const messageId = await sendButton(emu, chatId, data);
	await emu.userClicks({ chatId, userId, messageId, data });
	await emu.idle();
}

async function say(chatId: string, userId: string, text: string): Promise<void> {
	await emu.userSends({ chatId, userId, text });
	await emu.idle();
}

describe('Trigger On (update types)', () => {
	test('only messages: a message runs, a click does not; the service still sends clicks (answers to a Send and Wait for Response are clicks)', async () => {
		const trigger = await start({ updates: ['message'], options: {} });
		expect(emu.webhookOf()?.allowedUpdates).toEqual(['message', 'callback_query']);
		await say(emu.demo.privateChatId, emu.demo.userId, 'counted');
		await click(emu.demo.privateChatId, emu.demo.userId, 'not-counted');
		expect(trigger.emitted().map((item) => (item.message as IDataObject | undefined)?.text)).toEqual(['counted']);

		// A click pushed straight to the webhook.
		const receipt = await trigger.harness.receive({
			headers: { [SECRET_HEADER]: trigger.secret },
			body: {
				update_id: 900,
				callback_query: {
					id: 'cb-1',
					from: { id: emu.demo.userId, is_bot: false, first_name: 'Demo' },
					message: { message_id: 1, chat: { id: emu.demo.privateChatId, type: 'private' } },
					data: 'late',
				},
			},
		});
		expect(receipt.status).toBe(200);
		expect(receipt.workflowData).toBeUndefined();
	});

	test('only callback queries: a click runs, a message does not', async () => {
		const trigger = await start({ updates: ['callback_query'], options: {} });
		await say(emu.demo.privateChatId, emu.demo.userId, 'ignored');
		await click(emu.demo.privateChatId, emu.demo.userId, 'go');
		const receipt = await trigger.harness.receive({
			headers: { [SECRET_HEADER]: trigger.secret },
			body: messageUpdate(901, emu.demo.privateChatId, emu.demo.userId),
		});
		expect(receipt.status).toBe(200);
		expect(receipt.workflowData).toBeUndefined();
		expect(trigger.emitted().map((item) => (item.callback_query as IDataObject | undefined)?.data)).toEqual(['go']);
	});
});

describe('chat allow-list', () => {
	test('messages and clicks from a listed chat run; from another chat they do not', async () => {
		const trigger = await start({ updates: ['*'], options: { chatIds: `  ${emu.demo.groupChatId.toUpperCase()} ,` } });
		await say(emu.demo.groupChatId, emu.demo.userId, 'group message');
		await say(emu.demo.privateChatId, emu.demo.userId, 'private message');
		await click(emu.demo.groupChatId, emu.demo.otherUserId, 'group click');
		await click(emu.demo.privateChatId, emu.demo.userId, 'private click');

		const emitted = trigger.emitted();
		expect(emitted).toHaveLength(2);
		expect(emitted[0]).toMatchObject({ message: { text: 'group message' } });
		expect(emitted[1]).toMatchObject({ callback_query: { data: 'group click' } });
		// All four pushes were answered 200: a filtered update is acknowledged, not refused.
		expect(trigger.server.receipts.map((receipt) => receipt.status)).toEqual([200, 200, 200, 200]);
	});

	test('fails closed: an update whose chat cannot be resolved does not run', async () => {
		const trigger = await start({ updates: ['*'], options: { chatIds: emu.demo.privateChatId } });
		const noChat = {
			update_id: 902,
			callback_query: {
				id: 'cb-2',
				from: { id: emu.demo.userId, is_bot: false, first_name: 'Demo' },
				data: 'inline message, no chat',
			},
		};
		const receipt = await trigger.harness.receive({ headers: { [SECRET_HEADER]: trigger.secret }, body: noChat });
		expect(receipt.status).toBe(200);
		expect(receipt.workflowData).toBeUndefined();
		const unknownType = { update_id: 903, something_new: { value: 1 } };
		expect((await trigger.harness.receive({ headers: { [SECRET_HEADER]: trigger.secret }, body: unknownType })).workflowData).toBeUndefined();
	});
});

describe('user allow-list', () => {
	test('messages and clicks by a listed user run; by another user they do not', async () => {
		const trigger = await start({ updates: ['*'], options: { userIds: `${emu.demo.otherUserId}, 00000000-0000-4000-8000-000000000000` } });
		await say(emu.demo.groupChatId, emu.demo.otherUserId, 'from other');
		await say(emu.demo.groupChatId, emu.demo.userId, 'from demo');
		await click(emu.demo.groupChatId, emu.demo.otherUserId, 'other clicks');
		await click(emu.demo.groupChatId, emu.demo.userId, 'demo clicks');

		const emitted = trigger.emitted();
		expect(emitted).toHaveLength(2);
		expect(emitted[0]).toMatchObject({ message: { text: 'from other', from: { id: emu.demo.otherUserId } } });
		expect(emitted[1]).toMatchObject({ callback_query: { data: 'other clicks', from: { id: emu.demo.otherUserId } } });
	});

	test('fails closed: an update without a user does not run', async () => {
		const trigger = await start({ updates: ['*'], options: { userIds: emu.demo.userId } });
		const update = messageUpdate(904, emu.demo.privateChatId, emu.demo.userId);
		delete (update.message as IDataObject).from;
		const receipt = await trigger.harness.receive({ headers: { [SECRET_HEADER]: trigger.secret }, body: update });
		expect(receipt.status).toBe(200);
		expect(receipt.workflowData).toBeUndefined();
	});

	test('both lists together: both must match', async () => {
		const trigger = await start({
			updates: ['*'],
			options: { chatIds: emu.demo.groupChatId, userIds: emu.demo.userId },
		});
		await say(emu.demo.groupChatId, emu.demo.userId, 'yes');
		await say(emu.demo.groupChatId, emu.demo.otherUserId, 'wrong user');
		await say(emu.demo.privateChatId, emu.demo.userId, 'wrong chat');
		expect(trigger.emitted().map((item) => (item.message as IDataObject).text)).toEqual(['yes']);
	});
});

describe('duplicate window', () => {
	async function activated(): Promise<{ harness: TriggerHarness; secret: string }> {
		const harness = await makeHarness(emu);
		await harness.activate();
		return { harness, secret: emu.webhookOf()?.secretToken ?? '' };
	}

	test('the same update_id runs once and is acknowledged the second time; a new id runs', async () => {
		const { harness, secret } = await activated();
		const send = async (id: number) =>
			await harness.receive({
				headers: { [SECRET_HEADER]: secret },
				body: messageUpdate(id, emu.demo.privateChatId, emu.demo.userId),
			});
		const first = await send(500);
		expect(first.workflowData).toBeDefined();
		const again = await send(500);
		expect(again.status).toBe(200);
		expect(again.workflowData).toBeUndefined();
		const next = await send(501);
		expect(next.workflowData).toBeDefined();
	});

	test('an update n8n could not start (it answered the push 500 after webhook() returned) runs when the service sends it again, once', async () => {
		const { harness, secret } = await activated();
		const update = messageUpdate(650, emu.demo.privateChatId, emu.demo.userId);
		const failed = await harness.receive({ headers: { [SECRET_HEADER]: secret }, body: update, startFails: true });
		expect(failed.status).toBe(500);
		expect(failed.workflowData).toBeUndefined();
		// The service got no 2xx and sends the update again to the same process.
		const again = await harness.receive({ headers: { [SECRET_HEADER]: secret }, body: update });
		expect(again.status).toBe(200);
		expect(again.workflowData?.[0][0].json).toEqual(update);
		// Started this time: a third copy is a duplicate.
		const third = await harness.receive({ headers: { [SECRET_HEADER]: secret }, body: update });
		expect(third.status).toBe(200);
		expect(third.workflowData).toBeUndefined();
	});

	test('a copy reaching another n8n process runs again: the window is per process (n8n 2.41 saves no static data of a call that starts an execution)', async () => {
		const { harness, secret } = await activated();
		const update = messageUpdate(600, emu.demo.privateChatId, emu.demo.userId);
		expect((await harness.receive({ headers: { [SECRET_HEADER]: secret }, body: update })).workflowData).toBeDefined();
		expect((await harness.receive({ headers: { [SECRET_HEADER]: secret }, body: update })).workflowData).toBeUndefined();
		const other = await inNewProcess(emu, harness, 'webhook');
		expect((await other.receive({ headers: { [SECRET_HEADER]: secret }, body: update })).workflowData).toBeDefined();
	});

	test('a redelivery by the service after a failed answer does not run twice (real push)', async () => {
		const trigger = await start({ updates: ['*'], options: {} });
		await say(emu.demo.privateChatId, emu.demo.userId, 'once');
		const [delivered] = trigger.emitted();
		// The service sends the same update again (as after a timeout on its side).
		const receipt = await trigger.harness.receive({ headers: { [SECRET_HEADER]: trigger.secret }, body: delivered });
		expect(receipt.status).toBe(200);
		expect(receipt.workflowData).toBeUndefined();
		expect(trigger.emitted()).toHaveLength(1);
	});
});
