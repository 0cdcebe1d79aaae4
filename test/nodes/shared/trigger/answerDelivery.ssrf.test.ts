/**
 * n8n's SSRF protection (`N8N_SSRF_PROTECTION_ENABLED=true`, off by default in n8n 2.41.1) applies to
 * every request a node makes through n8n's helpers, so also to the trigger bringing a chat answer to
 * n8n's own resume URL. Its default blocked ranges include loopback and private networks
 * (127.0.0.0/8, 10.0.0.0/8, 192.168.0.0/16, …): an n8n whose webhook URL resolves there must allow it
 * (N8N_SSRF_ALLOWED_HOSTNAMES or N8N_SSRF_ALLOWED_IP_RANGES). Measured here with n8n's own
 * configuration and request helpers: the emulator is on 127.0.0.1 (allowed), n8n's resume URLs on
 * 127.0.0.2 (blocked) or on 127.0.0.1.
 */
// n8n-core's own copies: the helpers the nodes call resolve their configuration there.
import { SsrfProtectionConfig } from 'n8n-core/node_modules/@n8n/config';
import { Container } from 'n8n-core/node_modules/@n8n/di';

import { ServiceBot } from '../../../../nodes/ServiceBot/ServiceBot.node';
import { ServiceBotPollingTrigger } from '../../../../nodes/ServiceBotPollingTrigger/ServiceBotPollingTrigger.node';
import type { Emulator, StoredMessage } from '../../../emulator';
import { runUntilWait, serveWaiting } from '../../../harness/waiting';
import { byId } from '../../../harness/action-node';
import { makeHarness } from '../../../harness/trigger-nodes';
import { credentialsFor, spyOnLogger, useEmulator } from '../../../harness/emulator-suite';

let emu: Emulator;
const stops: Array<() => Promise<void>> = [];

beforeAll(() => {
	const ssrf = Container.get(SsrfProtectionConfig);
	ssrf.enabled = true;
	ssrf.allowedIpRanges = ['127.0.0.1/32'];
});
useEmulator({ running: stops, started: (started) => (emu = started), pollWaits: { idlePauseMs: 20 } });

/** A published polling trigger and a waiting approval, both of an n8n whose resume URLs are on `host`; the demo user taps Approve. */
async function tapApproveWithN8nOn(host: string) {
	const server = await serveWaiting(host);
	stops.push(server.close);
	const harness = await makeHarness(emu, { nodeType: new ServiceBotPollingTrigger(), parameters: { updates: ['message'], options: { longPollTimeout: 0 } }, webhookBaseUrl: server.baseUrl });
	const trigger = await harness.startTrigger();
	stops.push(async () => await trigger.close());
	const execution = await runUntilWait({
		nodeType: new ServiceBot(),
		parameters: { resource: 'message', operation: 'sendAndWait', chatId: byId(emu.demo.privateChatId), message: 'Approve?' },
		items: [{}],
		credentials: credentialsFor(emu),
		webhookBaseUrl: server.baseUrl,
	});
	server.add(execution);
	const question = emu.history(emu.demo.privateChatId).filter((message) => message.sent_by_bot).at(-1) as StoredMessage;
	const approve = (question.reply_markup as { inline_keyboard: Array<Array<{ callback_data?: string }>> }).inline_keyboard[0][0].callback_data ?? '';
	const tap = await emu.userClicks({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, messageId: question.message_id, data: approve });
	while (!emu.callbackAnswers().some((answer) => answer.callback_query_id === tap.callback_query?.id)) await new Promise((resolve) => setTimeout(resolve, 5));
	const notice = emu.callbackAnswers().find((answer) => answer.callback_query_id === tap.callback_query?.id)?.text;
	return { execution, notice };
}

test('with SSRF protection on, an answer to an n8n whose webhook URL is in a blocked range does not arrive: the person is told to try again, the log names the setting to allow it', async () => {
	const logs = spyOnLogger();
	stops.push(async () => logs.restore());
	const { execution, notice } = await tapApproveWithN8nOn('127.0.0.2');
	expect(notice).toBe('Your answer could not be delivered. Please try again.');
	expect(execution.state).toBe('waiting');
	expect(logs.messages('warn').join('\n')).toMatch(/N8N_SSRF_ALLOWED_HOSTNAMES/);
});

test('with SSRF protection on and n8n’s address allowed, the answer resumes the execution', async () => {
	const { execution, notice } = await tapApproveWithN8nOn('127.0.0.1');
	await execution.settled();
	expect(notice).toBe('✅ Approve');
	expect(execution.finished?.output[0].json).toMatchObject({ approved: true });
});
