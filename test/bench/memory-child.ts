/**
 * Peak RSS growth of one run of a node over N items (default 10,000), in a fresh process started with
 * --expose-gc so that nothing else of the bench is in its heap. Started by run.ts; input in the
 * environment variable BENCH_MEMORY_INPUT ({contender: 'A' | 'B' | 'F', cache, baseUrl, token, chats, items});
 * prints one JSON line.
 *
 * Baseline: after loading everything and a 200-item warm-up run, the input items built, and a full GC.
 * Peak: the highest RSS sampled every 2 ms during the run, and the kernel's high-water mark (getrusage
 * maxrss) if it rose during the run. Live: the heap after a full GC with the run's output still held.
 */
import { executeNode } from '../harness';
import { ServiceBot } from '../../nodes/ServiceBot/ServiceBot.node';
import { TELEGRAM_PARAMETERS, serviceBotParameters, type BenchItem, type MemoryContender } from './contenders';
import { executeAny } from './engine';
import { executeFloor } from './floor';
import { loadTelegram } from './telegram';

interface Input {
	contender: MemoryContender;
	/** A's and F's Concurrency option (B always sends one at a time). */
	concurrency: number;
	/** The n8n install holding n8n's Telegram node (B). */
	cache: string;
	baseUrl: string;
	token: string;
	chats: string[];
	items: number;
}

const MB = 1024 * 1024;

function collect(): void {
	const gc = (globalThis as { gc?: () => void }).gc;
	if (!gc) throw new Error('memory-child: run with --expose-gc');
	gc();
	gc();
}

async function main(): Promise<void> {
	const input = JSON.parse(process.env.BENCH_MEMORY_INPUT ?? '') as Input;
	const telegram = input.contender === 'B' ? loadTelegram(input.cache) : undefined;
	const serviceBot = new ServiceBot();
	/** Runs the node and returns its output (kept, so that the live heap with the output can be measured). */
	const run = async (items: BenchItem[]): Promise<{ output: unknown[]; error?: string }> => {
		if (telegram) {
			const result = await executeAny({
				nodeType: telegram.nodeType,
				typeName: 'n8n-nodes-base.telegram',
				parameters: TELEGRAM_PARAMETERS,
				items,
				credentialType: telegram.credentialType,
				credentialData: { accessToken: input.token, baseUrl: input.baseUrl },
			});
			return { output: result.output, error: result.error?.message };
		}
		if (input.contender === 'F') {
			const result = await executeFloor(items, input.concurrency, { baseUrl: input.baseUrl, token: input.token });
			return { output: result.output, error: result.error?.message };
		}
		const result = await executeNode({
			nodeType: serviceBot,
			parameters: serviceBotParameters(input.concurrency),
			items,
			credentials: { accessToken: input.token, baseUrl: input.baseUrl },
		});
		return { output: result.output, error: result.error?.message };
	};
	const makeItems = (count: number): BenchItem[] =>
		Array.from({ length: count }, (_, index) => ({ chat: input.chats[index % input.chats.length], text: `memory ${index}` }));

	const warm = await run(makeItems(200));
	if (warm.error) throw new Error(`warm-up failed: ${warm.error}`);

	let items: BenchItem[] | undefined = makeItems(input.items);
	collect();
	const before = process.memoryUsage();
	const maxRssBefore = process.resourceUsage().maxRSS * 1024;
	let peakRss = before.rss;
	let peakHeap = before.heapUsed;
	const sampler = setInterval(() => {
		const now = process.memoryUsage();
		if (now.rss > peakRss) peakRss = now.rss;
		if (now.heapUsed > peakHeap) peakHeap = now.heapUsed;
	}, 2);

	const started = performance.now();
	let outcome: { output: unknown[]; error?: string } | undefined = await run(items);
	const ms = performance.now() - started;
	clearInterval(sampler);
	const end = process.memoryUsage();
	peakRss = Math.max(peakRss, end.rss);
	const maxRssAfter = process.resourceUsage().maxRSS * 1024;
	// The kernel's high-water mark only tells something when it rose during the run.
	if (maxRssAfter > maxRssBefore) peakRss = Math.max(peakRss, maxRssAfter);
	const sent = outcome.output.length;
	const error = outcome.error;
	items = undefined;
	collect();
	const live = process.memoryUsage();
	outcome = undefined;
	collect();
	const retained = process.memoryUsage();

	process.stdout.write(
		`${JSON.stringify({
			contender: input.contender,
			concurrency: input.concurrency,
			items: input.items,
			sent,
			error,
			ms,
			baselineRssMB: before.rss / MB,
			peakRssMB: peakRss / MB,
			peakRssGrowthMB: (peakRss - before.rss) / MB,
			peakHeapGrowthMB: (peakHeap - before.heapUsed) / MB,
			liveHeapWithOutputMB: (live.heapUsed - before.heapUsed) / MB,
			retainedAfterGcMB: (retained.rss - before.rss) / MB,
		})}\n`,
	);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		process.stderr.write(`memory-child: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
		process.exit(1);
	},
);
