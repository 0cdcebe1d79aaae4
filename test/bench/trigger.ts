/**
 * Cost of the Service Bot Trigger's webhook() per update, in-process.
 *
 * The trigger is activated against the emulator (so the secret is the one it really registered), then
 * `updates` message updates with distinct update_ids are delivered through the harness's
 * `receive()` with the right secret header. Numbers per update:
 * - webhook(): the node's own method only (wall time, and CPU time from process.cpuUsage, which a busy
 *   machine does not inflate by preempting this process) (secret check, body check, filters, the
 *   in-memory duplicate window, output item), timed around the call inside a real n8n-core WebhookContext;
 * - delivery: the whole `receive()`, which also builds what n8n builds per request — a fresh Workflow
 *   loaded with its static data, additionalData and the WebhookContext. No HTTP, no workflow
 *   execution after it.
 */
import type { IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { ServiceBotTrigger } from '../../nodes/ServiceBotTrigger/ServiceBotTrigger.node';
import { createTriggerHarness, freePort } from '../harness';
import type { EmulatorProcess } from './emulator-process';
import { summarize, type Summary } from './stats';

const SECRET_HEADER = 'X-Service-Bot-Api-Secret-Token';

export interface TriggerResult {
	updates: number;
	warmup: number;
	/** webhook() alone, wall µs per update. */
	webhookUs: Summary & { mean: number; p99: number };
	/** webhook() alone, CPU µs per update (process.cpuUsage around the call): not inflated by preemption. */
	webhookCpuUs: Summary & { mean: number; p99: number };
	/** The whole harness delivery (fresh Workflow + WebhookContext + webhook()), µs. */
	deliveryUs: Summary & { mean: number; p99: number };
	started: number;
}

function describe(samples: number[]): Summary & { mean: number; p99: number } {
	const sorted = [...samples].sort((a, b) => a - b);
	const mean = samples.reduce((sum, value) => sum + value, 0) / samples.length;
	return { ...summarize(samples), mean, p99: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] };
}

export async function measureTrigger(emulator: EmulatorProcess, updates = 2000, warmup = 300): Promise<TriggerResult> {
	await emulator.control('POST', '/reset');
	const { demo } = emulator;
	const webhookSamples: number[] = [];
	const webhookCpuSamples: number[] = [];
	let recording = false;

	const nodeType = new ServiceBotTrigger();
	const webhook = ServiceBotTrigger.prototype.webhook;
	nodeType.webhook = async function timedWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const cpu = process.cpuUsage();
		const started = performance.now();
		try {
			return await webhook.call(this);
		} finally {
			const wall = (performance.now() - started) * 1000;
			const used = process.cpuUsage(cpu);
			if (recording) {
				webhookSamples.push(wall);
				webhookCpuSamples.push(used.user + used.system);
			}
		}
	};

	const harness = createTriggerHarness({
		nodeType,
		parameters: { updates: ['*'], options: {} },
		credentials: { accessToken: emulator.token, baseUrl: emulator.baseUrl },
		webhookBaseUrl: `http://127.0.0.1:${await freePort()}/`,
	});
	await harness.activate();
	const hook = await emulator.control<{ secretToken?: string } | null>('GET', '/webhook');
	if (!hook?.secretToken) throw new Error('trigger bench: activation did not register a secret');
	const headers = { [SECRET_HEADER]: hook.secretToken };

	const deliverySamples: number[] = [];
	let started = 0;
	for (let index = 1; index <= warmup + updates; index++) {
		recording = index > warmup;
		const body = {
			update_id: index,
			message: {
				message_id: index,
				date: 1_700_000_000 + index,
				chat: { id: demo.privateChatId, type: 'private' },
				from: { id: demo.userId, is_bot: false, first_name: 'Demo' },
				text: `hello ${index}`,
			},
		};
		const t0 = performance.now();
		const receipt = await harness.receive({ headers, body });
		if (recording) deliverySamples.push((performance.now() - t0) * 1000);
		if (!receipt.workflowData) throw new Error(`trigger bench: update ${index} did not start the workflow (${receipt.status})`);
		if (recording) started++;
	}
	await harness.delete();
	return {
		updates,
		warmup,
		webhookUs: describe(webhookSamples),
		webhookCpuUs: describe(webhookCpuSamples),
		deliveryUs: describe(deliverySamples),
		started,
	};
}
