/**
 * Whether a question asked in the chat can be answered, decided before it is asked, where the node
 * runs: in the n8n process that runs the triggers (a regular n8n), or in another one. In queue mode
 * n8n 3.0 runs editor executions on workers (n8n 2.x does with OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS):
 * a worker holds none of the triggers, which run on the main. A worker is simulated by loading the
 * action node's modules afresh (`jest.isolateModules`: nothing the main's triggers recorded is in
 * them), while the main's published Service Bot Polling Trigger runs in this test's modules, on the
 * same emulator and the same n8n webhook base (both processes of one n8n share its URL).
 *
 * Expected messages are the README's ("A question nobody could answer").
 */
import type { IDataObject, INodeParameters, INodeType } from 'n8n-workflow';
import { randomUUID } from 'node:crypto';

import { ServiceBot } from '../../../../../nodes/ServiceBot/ServiceBot.node';
import { ServiceBotPollingTrigger } from '../../../../../nodes/ServiceBotPollingTrigger/ServiceBotPollingTrigger.node';
import type { Emulator, StoredMessage } from '../../../../emulator';
import { freePort, startWebhookServer, type RunningTrigger } from '../../../../harness';
import { byId } from '../../../../harness/action-node';
import { credentialsFor, useEmulator } from '../../../../harness/emulator-suite';
import { makeHarness } from '../../../../harness/trigger-nodes';
import { runUntilWait, serveWaiting, type WaitingExecution, type WaitingServer } from '../../../../harness/waiting';

let emu: Emulator;
const stops: Array<() => Promise<void>> = [];
useEmulator({ running: stops, started: (started) => (emu = started), pollWaits: { idlePauseMs: 20 } });

type ServiceBotModule = typeof import('../../../../../nodes/ServiceBot/ServiceBot.node');

/** The action node as a worker process loads it: its modules (and what they keep in memory) afresh. */
function onWorker(): INodeType {
	let node: INodeType | undefined;
	jest.isolateModules(() => {
		node = new (jest.requireActual<ServiceBotModule>('../../../../../nodes/ServiceBot/ServiceBot.node').ServiceBot)();
	});
	if (!node) throw new Error('module not loaded');
	return node;
}

/** n8n's webhook base and its waiting executions (`/webhook-waiting/…`), served for every process of this n8n. */
async function n8nServer(): Promise<WaitingServer> {
	const server = await serveWaiting();
	stops.push(server.close);
	return server;
}

/** A published workflow whose Service Bot Polling Trigger polls `token`'s bot (Trigger On: messages), in this test's process: the main. */
async function publishPolling(server: WaitingServer, token = emu.demo.token): Promise<RunningTrigger> {
	const harness = await makeHarness(emu, {
		nodeType: new ServiceBotPollingTrigger(),
		parameters: { updates: ['message'], options: {} },
		webhookBaseUrl: server.baseUrl,
		credentials: credentialsFor(emu, token),
	});
	const trigger = await harness.startTrigger();
	stops.push(async () => await trigger.close());
	return trigger;
}

const question = (): INodeParameters => ({
	resource: 'message',
	operation: 'sendAndWait',
	// As users build it: the chat from the item (the trigger's data in a real workflow).
	chatId: byId('={{ $json.message.chat.id }}'),
	message: '=Approve the refund of order {{ $json.order }}?',
});

/** The execution of a workflow run from the editor (mode manual), asking in the demo private chat. */
async function askFromTheEditor(nodeType: INodeType, server: WaitingServer): Promise<WaitingExecution> {
	const item: IDataObject = { order: 42, message: { chat: { id: emu.demo.privateChatId } } };
	const execution = await runUntilWait({ nodeType, parameters: question(), items: [item], credentials: credentialsFor(emu), webhookBaseUrl: server.baseUrl });
	server.add(execution);
	return execution;
}

function lastQuestion(): StoredMessage & { keyboard: Array<Array<{ text: string; callback_data?: string }>> } {
	const message = emu.history(emu.demo.privateChatId).filter((entry) => entry.sent_by_bot).at(-1) as StoredMessage;
	return { ...message, keyboard: (message.reply_markup as { inline_keyboard?: Array<Array<{ text: string; callback_data?: string }>> } | undefined)?.inline_keyboard ?? [] };
}

async function until(condition: () => boolean, what: string): Promise<void> {
	for (const start = Date.now(); !condition(); await new Promise((resolve) => setTimeout(resolve, 5))) {
		if (Date.now() - start > 20_000) throw new Error(`gave up waiting for ${what}`);
	}
}

describe('Collect Answers In the Chat, run from the editor on a queue-mode worker (n8n 3.0)', () => {
	test('the main polls the bot: the worker asks (it cannot see the main\'s trigger), and the tap the main\'s trigger brings resumes the execution', async () => {
		const server = await n8nServer();
		await publishPolling(server);
		const execution = await askFromTheEditor(onWorker(), server);
		const asked = lastQuestion();
		expect(asked.text).toBe('Approve the refund of order 42?');

		const approve = asked.keyboard.flat().find((button) => button.text === '✅ Approve');
		await emu.userClicks({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, messageId: asked.message_id, data: String(approve?.callback_data) });
		await execution.settled();
		await until(() => execution.finished !== undefined, 'the execution to go on');
		expect(execution.finished?.output[0]?.json).toMatchObject({ approved: true, answeredVia: 'chat', chatId: emu.demo.privateChatId });
	});

	test('nothing polls the bot and a message waits at the service that no trigger took: refused before asking, saying so and what to do', async () => {
		const server = await n8nServer();
		await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'hello?' });
		const before = emu.calls.length;
		await expect(askFromTheEditor(onWorker(), server)).rejects.toThrow(
			/Collect Answers: the service still holds 1 update of this bot that no published trigger has taken, so no Service Bot Trigger or Service Bot Polling Trigger of this n8n receives its updates.*Publish one .*or set Collect Answers to On a Web Page \[item 0\]/,
		);
		expect(emu.calls.slice(before).map((call) => call.method)).toEqual(['getWebhookInfo']);
		expect(emu.history(emu.demo.privateChatId).filter((message) => message.sent_by_bot)).toEqual([]);
	});
});

describe('Collect Answers In the Chat on a bot left deaf', () => {
	test('the bot\'s webhook still delivers to a workflow n8n no longer serves (unpublished while the service refused writes, then n8n restarted): refused before asking, naming it and what repairs it; a served receiver is asked', async () => {
		const base = `http://127.0.0.1:${await freePort()}/`;
		const [gone, second, third] = [
			await makeHarness(emu, { webhookBaseUrl: base }),
			await makeHarness(emu, { webhookBaseUrl: base }),
			await makeHarness(emu, { webhookBaseUrl: base }),
		];
		stops.push(async () => {
			for (const harness of [second, third, gone]) await harness.delete().catch(() => false);
		});
		for (const harness of [gone, second, third]) await harness.activate();
		// The list names the three, the first receiving. n8n serves the other two only: the first's
		// workflow was unpublished while its removal could not reach the service.
		expect(new URL(emu.webhookOf()?.url ?? '').pathname).toBe(new URL(gone.webhookUrl).pathname);
		const server = await startWebhookServer([second, third]);

		// The Send and Wait of another workflow runs in an n8n started afresh: n8n 2.41 called no method
		// of the stored webhooks at its start, so nothing of the triggers is in memory.
		const before = emu.calls.length;
		const item: IDataObject = { order: 42, message: { chat: { id: emu.demo.privateChatId } } };
		await expect(
			runUntilWait({ nodeType: onWorker(), parameters: question(), items: [item], credentials: credentialsFor(emu), webhookBaseUrl: base }),
		).rejects.toThrow(
			new RegExp(
				`Collect Answers: the bot's webhook delivers every update to ${new URL(gone.webhookUrl).href.replace(/[.?]/g, '\\$&')}\\?…, a workflow this n8n no longer serves .*so no workflow of this bot receives anything, taps on the answer buttons included\\. Publish any workflow with a Service Bot Trigger on this bot.*or set Collect Answers to On a Web Page \\[item 0\\]`,
			),
		);
		await server.close();
		expect(emu.calls.slice(before).map((call) => call.method)).toEqual(['getWebhookInfo']);
		expect(server.probes).toEqual([{ path: new URL(gone.webhookUrl).pathname, status: 404 }]);
		expect(emu.history(emu.demo.privateChatId).filter((message) => message.sent_by_bot)).toEqual([]);

		// With the receiver served (its workflow published again), the question is asked.
		const healthy = await startWebhookServer([gone, second, third]);
		stops.push(async () => await healthy.close());
		await runUntilWait({ nodeType: onWorker(), parameters: question(), items: [item], credentials: credentialsFor(emu), webhookBaseUrl: base });
		expect(lastQuestion().text).toBe('Approve the refund of order 42?');
		expect(healthy.probes).toEqual([{ path: new URL(gone.webhookUrl).pathname, status: 200 }]);
	});
});

describe('Collect Answers In the Chat, run from the editor in the process that runs the triggers', () => {
	test('it polls other bots but not this one: refused before asking, naming the way out', async () => {
		const server = await n8nServer();
		const otherToken = `7000000003:${randomUUID()}`;
		emu.addBot({ token: otherToken });
		await publishPolling(server, otherToken);
		await expect(askFromTheEditor(new ServiceBot(), server)).rejects.toThrow(
			/Collect Answers: no published workflow of this n8n has a Service Bot Trigger or Service Bot Polling Trigger on this bot, .*Publish one .*or set Collect Answers to On a Web Page \[item 0\]/,
		);
		expect(emu.history(emu.demo.privateChatId).filter((message) => message.sent_by_bot)).toEqual([]);
	});
});
