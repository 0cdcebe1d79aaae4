/**
 * `npm run bench:webhook-answer`: what answering a push only once its execution has run costs, in real
 * n8n 2.41.1 (nodes/ServiceBotTrigger/webhook/answer.ts). One published echo workflow (Service Bot
 * Trigger → Send Message); the service's `max_connections` set to 1 and to 40 (setWebhook with the same
 * URL and secret); a burst of messages sent at once, timed until every echo arrived; then the same with
 * every reply taking 20 s at the service (an AI agent's execution). Prints messages per second and how
 * long the service waited for each push's answer. Run it on a package built from any commit to compare.
 */
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';

import { DEMO_CREDENTIAL_NAME } from '../dev/demo';
import type { ScenarioContext } from '../e2e/lib/context';
import { runScenarios } from '../e2e/lib/runner';
import type { Scenario } from '../e2e/lib/runner';
import { inSequence, sendMessage, webhookTrigger } from '../e2e/lib/workflow';
import { ROOT, pack, provision } from '../real-n8n/install';
import type { EmulatorProcess } from '../real-n8n/emulator-process';
import { stopAll, stopAllOnExit, waitFor } from '../real-n8n/processes';

async function echoedCount(emulator: EmulatorProcess, prefix: string): Promise<number> {
	return (await emulator.history()).filter((message) => message.from?.is_bot === true && (message.text ?? '').startsWith(`echo ${prefix}`)).length;
}

async function fault(emulator: EmulatorProcess, delayMs: number): Promise<void> {
	await fetch(`${emulator.baseUrl}/_emulator/faults`, { method: 'DELETE' });
	if (delayMs > 0) {
		await fetch(`${emulator.baseUrl}/_emulator/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'delay', method: 'sendMessage', delayMs, count: 100_000 }) });
	}
}

async function maxConnections(emulator: EmulatorProcess, count: number): Promise<void> {
	const hook = await emulator.webhook();
	if (!hook) throw new Error('no webhook');
	const response = await fetch(`${emulator.baseUrl}/bot${emulator.demo.token}/setWebhook`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ url: hook.url, secret_token: hook.secretToken, max_connections: count, allowed_updates: hook.allowedUpdates }),
	});
	if (!response.ok) throw new Error(`setWebhook: ${response.status}`);
}

const bench: Scenario = {
	name: 'webhook answer cost',
	async run(ctx: ScenarioContext) {
		const emulator = await ctx.emulator();
		const n8n = await ctx.n8n();
		await n8n.start();
		await n8n.setupOwner();
		const credential = await n8n.request('POST', '/rest/credentials', { name: DEMO_CREDENTIAL_NAME, type: 'serviceBotApi', data: { accessToken: emulator.demo.token, baseUrl: emulator.baseUrl } });
		const credentialId = String(credential.id);
		const created = await n8n.createWorkflow({
			name: 'Echo',
			settings: { executionOrder: 'v1' },
			nodes: [
				webhookTrigger({ id: randomUUID(), name: 'Trigger', position: [0, 0], credentialId, webhookId: randomUUID(), typeVersion: 2, updates: ['message'] }),
				sendMessage({ id: randomUUID(), name: 'Echo', position: [300, 0], credentialId, chatId: '={{ $json.chat_id }}', text: '=echo {{ $json.chatInput }}' }),
			],
			connections: inSequence('Trigger', 'Echo'),
		});
		await n8n.activate(String(created.id));
		await waitFor('the webhook', async () => ((await emulator.webhook()) ? true : undefined), { limitMs: 60_000 });
		await emulator.userSends('warm');
		await waitFor('warm-up', async () => ((await echoedCount(emulator, 'warm')) === 1 ? true : undefined), { limitMs: 60_000 });
		const cases: Array<{ connections: number; delayMs: number; count: number }> = [
			{ connections: 1, delayMs: 0, count: 60 },
			{ connections: 40, delayMs: 0, count: 120 },
			{ connections: 1, delayMs: 20_000, count: 4 },
			{ connections: 40, delayMs: 20_000, count: 40 },
		];
		for (const [index, { connections, delayMs, count }] of cases.entries()) {
			await maxConnections(emulator, connections);
			await fault(emulator, delayMs);
			const prefix = `c${index}-`;
			const start = Date.now();
			for (let i = 0; i < count; i += 1) await emulator.userSends(`${prefix}${i}`);
			let drainedAt = 0;
			await waitFor(`${count} echoes`, async () => {
				if (drainedAt === 0 && (await emulator.pendingUpdates()).length === 0) drainedAt = Date.now();
				return (await echoedCount(emulator, prefix)) === count ? true : undefined;
			}, { limitMs: 600_000, intervalMs: 100 });
			const done = Date.now();
			if (drainedAt === 0) drainedAt = done;
			ctx.log(
				`max_connections ${connections}, reply ${delayMs / 1000} s, ${count} messages: all echoed after ${((done - start) / 1000).toFixed(1)} s (${(count / ((done - start) / 1000)).toFixed(2)} messages/s); the service had every push answered after ${((drainedAt - start) / 1000).toFixed(1)} s`,
			);
		}
	},
};

async function main(): Promise<number> {
	stopAllOnExit(() => undefined);
	const install = await provision();
	const dir = join(ROOT, 'test', 'output', 'bench-webhook-answer');
	const tarball = await pack(join(dir, 'pack'));
	return await runScenarios({ label: 'bench', chosen: [{ scenario: bench, index: 1 }], install, tarball, outputDir: dir, screenshotDir: dir, keep: false, started: Date.now() });
}

main().then(
	(failed) => process.exit(failed === 0 ? 0 : 1),
	async (error: unknown) => {
		process.stdout.write(`bench: ${String(error)}\n`);
		await stopAll();
		process.exit(1);
	},
);
