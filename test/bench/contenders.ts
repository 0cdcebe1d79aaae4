/**
 * The three contenders, each sending `sendMessage` for every item to the emulator:
 * A our Service Bot node and B n8n's Telegram node, both through n8n-core's WorkflowExecute; C a raw
 * undici keep-alive Pool at A's concurrency, the practical limit of the machine and the emulator.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import http from 'node:http';
import { Pool } from 'undici';

import { ServiceBot } from '../../nodes/ServiceBot/ServiceBot.node';
import { executeNode } from '../harness';
import { executeAny } from './engine';
import type { TelegramContender } from './telegram';

export interface BenchItem extends IDataObject {
	chat: string;
	text: string;
}

export interface Target {
	baseUrl: string;
	token: string;
}

export interface RunOutcome {
	/** Items that came out of the node / requests answered ok. */
	sent: number;
	error?: string;
}

export type Contender = (items: BenchItem[], target: Target) => Promise<RunOutcome>;

/** Contenders whose memory is measured: A (ours), B (n8n's Telegram node), F (the floor inside n8n). */
export type MemoryContender = 'A' | 'B' | 'F';

const serviceBot = new ServiceBot();

/** A: our node, "Send Message", chat and text from each item by expression (as a user sets it up). */
export function serviceBotParameters(concurrency?: number): INodeParameters {
	return {
		resource: 'message',
		operation: 'sendMessage',
		chatId: { __rl: true, mode: 'id', value: '={{ $json.chat }}' },
		text: '={{ $json.text }}',
		options: concurrency === undefined ? {} : { concurrency },
	};
}

export function contenderA(concurrency?: number): Contender {
	return async (items, target) => {
		const result = await executeNode({
			nodeType: serviceBot,
			parameters: serviceBotParameters(concurrency),
			items,
			credentials: { accessToken: target.token, baseUrl: target.baseUrl },
		});
		return { sent: result.output.length, error: result.error?.message };
	};
}

/**
 * B: n8n's Telegram node (newest version, 1.2), "Send Message" with the same expressions. Attribution
 * off. Parse mode: the node has no "none" — an empty parse_mode is replaced by legacy Markdown in its
 * addAdditionalFields — so HTML is chosen, which leaves plain text as it is.
 */
export const TELEGRAM_PARAMETERS: INodeParameters = {
	resource: 'message',
	operation: 'sendMessage',
	chatId: '={{ $json.chat }}',
	text: '={{ $json.text }}',
	replyMarkup: 'none',
	additionalFields: { appendAttribution: false, parse_mode: 'HTML' },
};

export function contenderB(telegram: TelegramContender): Contender {
	return async (items, target) => {
		const result = await executeAny({
			nodeType: telegram.nodeType,
			typeName: 'n8n-nodes-base.telegram',
			parameters: TELEGRAM_PARAMETERS,
			items,
			credentialType: telegram.credentialType,
			credentialData: { accessToken: target.token, baseUrl: target.baseUrl },
		});
		return { sent: result.output.length, error: result.error?.message };
	};
}

/** C: the same requests (same JSON bodies as A sends) from a keep-alive undici Pool, `concurrency` workers. */
export function contenderC(concurrency: number): Contender {
	return async (items, target) => {
		const pool = new Pool(target.baseUrl, { connections: concurrency, pipelining: 1 });
		const path = `/bot${encodeURIComponent(target.token)}/sendMessage`;
		let next = 0;
		let sent = 0;
		let error: string | undefined;
		const worker = async (): Promise<void> => {
			while (next < items.length && error === undefined) {
				const item = items[next++];
				const response = await pool.request({
					path,
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({ chat_id: item.chat, text: item.text }),
				});
				const envelope = (await response.body.json()) as { ok?: boolean; description?: string };
				if (envelope.ok === true) sent++;
				else error = envelope.description ?? `HTTP ${response.statusCode}`;
			}
		};
		try {
			await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
		} finally {
			await pool.close();
		}
		return { sent, error };
	};
}

/**
 * C0 (for the explanation, no goal): the same requests from Node's plain http client with a NEW TCP
 * connection per request (`agent: false`), which is what n8n's HTTP helper does at the transport level
 * (it builds a new http.Agent, without keep-alive, for every request). C0 vs C = the price of the
 * connection per request; A vs C0 = n8n's helper (axios, agents, proxy checks) + engine + node.
 */
export function contenderNewConnection(concurrency: number): Contender {
	return async (items, target) => {
		const url = `${target.baseUrl}/bot${encodeURIComponent(target.token)}/sendMessage`;
		let next = 0;
		let sent = 0;
		let error: string | undefined;
		const send = (item: BenchItem): Promise<void> =>
			new Promise<void>((resolve, reject) => {
				const body = JSON.stringify({ chat_id: item.chat, text: item.text });
				const request = http.request(
					url,
					{
						method: 'POST',
						agent: false,
						headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
					},
					(response) => {
						const chunks: Buffer[] = [];
						response.on('data', (chunk: Buffer) => chunks.push(chunk));
						response.on('error', reject);
						response.on('end', () => {
							const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { ok?: boolean; description?: string };
							if (envelope.ok === true) sent++;
							else error = envelope.description ?? `HTTP ${response.statusCode}`;
							resolve();
						});
					},
				);
				request.on('error', reject);
				request.end(body);
			});
		const worker = async (): Promise<void> => {
			while (next < items.length && error === undefined) await send(items[next++]);
		};
		await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
		return { sent, error };
	};
}
