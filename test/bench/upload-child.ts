/**
 * Peak RSS growth of one upload run, in a fresh process started with --expose-gc (started by
 * upload.ts). Input in BENCH_UPLOAD_INPUT ({contender: 'A' | 'H', files, bytes, baseUrl, token,
 * chats}); prints one JSON line.
 * - A: Service Bot, Send Document, Source Binary File, default Concurrency (8).
 * - H: the floor, n8n's own HTTP Request node (n8n-nodes-base of the pinned n8n) posting the same
 *   files as multipart/form-data to the same method, 8 items per batch.
 * The files are stored as n8n 2.x stores binary data (filesystem mode) before the baseline; the
 * baseline is taken after a warm-up upload of one small file and a full GC.
 */
import type { IBinaryKeyData, IDataObject, INodeParameters } from 'n8n-workflow';

import { ServiceBot } from '../../nodes/ServiceBot/ServiceBot.node';
import { executeNode, storeFiles } from '../harness';
import { loadBaseNode } from './telegram';

interface Input {
	contender: 'A' | 'H';
	files: number;
	bytes: number;
	cache: string;
	baseUrl: string;
	token: string;
	chats: string[];
}

const MB = 1024 * 1024;
const CONCURRENCY = 8;

function collect(): void {
	const gc = (globalThis as { gc?: () => void }).gc;
	if (!gc) throw new Error('upload-child: run with --expose-gc');
	gc();
	gc();
}

async function main(): Promise<void> {
	const input = JSON.parse(process.env.BENCH_UPLOAD_INPUT ?? '') as Input;
	const httpRequest = input.contender === 'H' ? loadBaseNode(input.cache, 'HttpRequest/HttpRequest.node.js', 'HttpRequest') : undefined;
	const serviceBot = new ServiceBot();

	const run = async (items: IDataObject[], binaries: IBinaryKeyData[]): Promise<{ sent: number; error?: string }> => {
		if (httpRequest) {
			const parameters: INodeParameters = {
				method: 'POST',
				url: `${input.baseUrl}/bot${input.token}/sendDocument`,
				sendBody: true,
				contentType: 'multipart-form-data',
				bodyParameters: {
					parameters: [
						{ parameterType: 'formData', name: 'chat_id', value: '={{ $json.chat }}' },
						{ parameterType: 'formBinaryData', name: 'document', inputDataFieldName: 'data' },
					],
				},
				options: { batching: { batch: { batchSize: CONCURRENCY, batchInterval: 0 } } },
			};
			// No authentication: the token is in the URL, as the Bot API takes it.
			const result = await executeNode({
				nodeType: httpRequest,
				typeName: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				parameters,
				items,
				binaries,
				credentials: { accessToken: input.token, baseUrl: input.baseUrl },
			});
			return { sent: result.output.length, error: result.error?.message };
		}
		const result = await executeNode({
			nodeType: serviceBot,
			parameters: {
				resource: 'message',
				operation: 'sendDocument',
				chatId: { __rl: true, mode: 'id', value: '={{ $json.chat }}' },
				mediaSource: 'binaryFile',
			},
			items,
			binaries,
			credentials: { accessToken: input.token, baseUrl: input.baseUrl },
		});
		return { sent: result.output.length, error: result.error?.message };
	};

	const prepare = async (count: number, bytes: number, tag: string): Promise<{ items: IDataObject[]; binaries: IBinaryKeyData[] }> => {
		const items: IDataObject[] = [];
		const binaries: IBinaryKeyData[] = [];
		for (let index = 0; index < count; index++) {
			items.push({ chat: input.chats[index % input.chats.length] });
			binaries.push(await storeFiles({ data: { data: Buffer.alloc(bytes, index % 251), fileName: `${tag}-${index}.bin`, mimeType: 'application/octet-stream' } }, tag));
		}
		return { items, binaries };
	};

	const warm = await prepare(1, 10_000, 'warm');
	const warmed = await run(warm.items, warm.binaries);
	if (warmed.error) throw new Error(`warm-up failed: ${warmed.error}`);
	const workload = await prepare(input.files, input.bytes, 'run');
	collect();
	const before = process.memoryUsage();
	const maxRssBefore = process.resourceUsage().maxRSS * 1024;
	let peakRss = before.rss;
	const sampler = setInterval(() => {
		const now = process.memoryUsage().rss;
		if (now > peakRss) peakRss = now;
	}, 2);
	const started = performance.now();
	const outcome = await run(workload.items, workload.binaries);
	const ms = performance.now() - started;
	clearInterval(sampler);
	peakRss = Math.max(peakRss, process.memoryUsage().rss);
	const maxRssAfter = process.resourceUsage().maxRSS * 1024;
	if (maxRssAfter > maxRssBefore) peakRss = Math.max(peakRss, maxRssAfter);
	process.stdout.write(
		`${JSON.stringify({
			contender: input.contender,
			files: input.files,
			bytes: input.bytes,
			sent: outcome.sent,
			error: outcome.error,
			ms,
			baselineRssMB: before.rss / MB,
			peakRssGrowthMB: (peakRss - before.rss) / MB,
		})}\n`,
	);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		process.stderr.write(`upload-child: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
		process.exit(1);
	},
);
