/**
 * Peak RSS growth of one download run, in a fresh process started with --expose-gc (started by
 * download.ts). Input in BENCH_DOWNLOAD_INPUT ({contender: 'A' | 'H', bytes, baseUrl, token, warm,
 * files}); prints one JSON line.
 * - A: Service Bot, Get File by `{{ $json.file_id }}`, Concurrency 50 (every file at once).
 * - H: the floor, n8n's own HTTP Request node (n8n-nodes-base of the pinned n8n) getting the same
 *   files from the same address with Response Format "File", 50 items per batch.
 * Files are stored as n8n 2.x stores binary data (filesystem mode); the baseline is taken after a
 * warm-up download of one file and a full GC.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { ServiceBot } from '../../nodes/ServiceBot/ServiceBot.node';
import { executeNode, type ExecuteNodeResult } from '../harness';
import { useBinaryDataStore } from '../harness/binary-data';
import { loadBaseNode } from './telegram';

interface SentFile {
	fileId: string;
	url: string;
}

interface Input {
	contender: 'A' | 'H';
	bytes: number;
	cache: string;
	baseUrl: string;
	token: string;
	warm: SentFile;
	files: SentFile[];
}

const MB = 1024 * 1024;
const AT_ONCE = 50;

function collect(): void {
	const gc = (globalThis as { gc?: () => void }).gc;
	if (!gc) throw new Error('download-child: run with --expose-gc');
	gc();
	gc();
}

/** The bytes the run stored, as n8n's binary data says (fileSize is a display string; the store's `bytes` where given). */
function storedBytes(result: ExecuteNodeResult): number {
	return result.output.reduce((sum, item) => {
		const file = item.binary?.data;
		return sum + (typeof file?.bytes === 'number' ? file.bytes : 0);
	}, 0);
}

async function main(): Promise<void> {
	const input = JSON.parse(process.env.BENCH_DOWNLOAD_INPUT ?? '') as Input;
	// n8n 2.x's default: files go to disk as they arrive, the item carries an id.
	await useBinaryDataStore();
	const httpRequest = input.contender === 'H' ? loadBaseNode(input.cache, 'HttpRequest/HttpRequest.node.js', 'HttpRequest') : undefined;
	const serviceBot = new ServiceBot();
	const credentials = { accessToken: input.token, baseUrl: input.baseUrl };

	const run = async (files: SentFile[]): Promise<{ received: number; error?: string }> => {
		const items: IDataObject[] = files.map((file) => ({ file_id: file.fileId, url: file.url }));
		let result: ExecuteNodeResult;
		if (httpRequest) {
			const parameters: INodeParameters = {
				method: 'GET',
				url: '={{ $json.url }}',
				options: { response: { response: { responseFormat: 'file' } }, batching: { batch: { batchSize: AT_ONCE, batchInterval: 0 } } },
			};
			// No authentication: the token is in the URL, as the service's file addresses carry it.
			result = await executeNode({ nodeType: httpRequest, typeName: 'n8n-nodes-base.httpRequest', typeVersion: 4.2, parameters, items, credentials });
		} else {
			result = await executeNode({
				nodeType: serviceBot,
				parameters: { resource: 'file', operation: 'getFile', fileId: '={{ $json.file_id }}', options: { concurrency: AT_ONCE } },
				items,
				credentials,
			});
		}
		return { received: storedBytes(result), error: result.error?.message };
	};

	const warmed = await run([input.warm]);
	if (warmed.error) throw new Error(`warm-up failed: ${warmed.error}`);
	collect();
	const before = process.memoryUsage();
	const maxRssBefore = process.resourceUsage().maxRSS * 1024;
	let peakRss = before.rss;
	const sampler = setInterval(() => {
		const now = process.memoryUsage().rss;
		if (now > peakRss) peakRss = now;
	}, 2);
	const started = performance.now();
	const outcome = await run(input.files);
	const ms = performance.now() - started;
	clearInterval(sampler);
	peakRss = Math.max(peakRss, process.memoryUsage().rss);
	const maxRssAfter = process.resourceUsage().maxRSS * 1024;
	if (maxRssAfter > maxRssBefore) peakRss = Math.max(peakRss, maxRssAfter);
	process.stdout.write(
		`${JSON.stringify({
			contender: input.contender,
			files: input.files.length,
			bytes: input.bytes,
			received: outcome.received,
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
		process.stderr.write(`download-child: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
		process.exit(1);
	},
);
