/**
 * npm run bench:markdown — the parse mode "Markdown From AI": how long the converter takes on a long
 * model answer, and what it costs per item in the Service Bot node against plain text (contender A
 * with and without the option, the same items, the emulator in its own process).
 *
 * Options: --runs N (measured node runs per variant, default 5), --items N (default 2000).
 */
import { performance } from 'node:perf_hooks';

import { markdownToHtml } from '../../nodes/shared/markdown/blocks';
import { ServiceBot } from '../../nodes/ServiceBot/ServiceBot.node';
import { executeNode } from '../harness';
import type { BenchItem } from './contenders';
import { serviceBotParameters } from './contenders';
import { spawnEmulator } from './emulator-process';
import { fixed, spread, summarize, table } from './stats';

/** One section of an answer as chat models write them: a heading, a table, a list, code, emphasis. */
function section(index: number): string {
	return [
		`## Step ${index}: check the order`,
		'',
		`Your order **#${1000 + index}** is *on its way* — see [the tracker](https://example.com/t/${index}).`,
		'',
		'| Item | Qty | Price |',
		'|---|---:|---:|',
		`| Widget_${index} | ${index % 7} | ${index}.50 € |`,
		'| Gadget & co | 2 | 3.00 € |',
		'',
		'1. Open the app',
		'   - tap `Orders`',
		'   - choose ~~old~~ the new one',
		'2. Reply `yes` if a < b && c > d',
		'',
		'```js',
		`const total = items.map((item) => item.price * item.qty).reduce((a, b) => a + b, ${index});`,
		'```',
		'',
	].join('\n');
}

function answerOf(length: number): string {
	let text = '';
	for (let index = 1; text.length < length; index++) text += section(index);
	return text.slice(0, length);
}

function converterSpeed(length: number, runs: number): { median: number; p95: number; htmlLength: number } {
	const answer = answerOf(length);
	let html = '';
	for (let warm = 0; warm < 20; warm++) html = markdownToHtml(answer);
	const times: number[] = [];
	for (let run = 0; run < runs; run++) {
		const start = performance.now();
		html = markdownToHtml(answer);
		times.push(performance.now() - start);
	}
	times.sort((a, b) => a - b);
	return { median: summarize(times).median, p95: times[Math.floor(times.length * 0.95)], htmlLength: html.length };
}

function parseArgs(argv: string[]): { runs: number; items: number } {
	const args = { runs: 5, items: 2000 };
	for (let index = 0; index < argv.length; index++) {
		if (argv[index] === '--runs') args.runs = Number(argv[++index]);
		else if (argv[index] === '--items') args.items = Number(argv[++index]);
		else throw new Error(`unknown option ${argv[index]}`);
	}
	return args;
}

async function main(): Promise<void> {
	const args = parseArgs(process.argv.slice(2));
	const speed = converterSpeed(32_768, 200);
	console.log(`converter: a 32,768-character model answer → ${speed.htmlLength} characters of HTML in ${fixed(speed.median, 2)} ms (median of 200; p95 ${fixed(speed.p95, 2)} ms)`);

	const emulator = await spawnEmulator();
	try {
		const answer = answerOf(600);
		const itemsFor = (chats: string[]): BenchItem[] => Array.from({ length: args.items }, (_, index) => ({ chat: chats[index % chats.length], text: answer }));
		const nodeType = new ServiceBot();
		const variants = {
			'plain text (Parse Mode None)': serviceBotParameters(),
			'Markdown From AI': { ...serviceBotParameters(), additionalFields: { parseMode: 'markdownFromAi' } },
		};
		const results = new Map<string, { rate: number[]; cpu: number[] }>(Object.keys(variants).map((name) => [name, { rate: [], cpu: [] }]));
		for (let run = 0; run <= args.runs; run++) {
			for (const [name, parameters] of Object.entries(variants)) {
				const items = itemsFor(await emulator.resetWithChats(50));
				const cpuBefore = process.cpuUsage();
				const start = performance.now();
				const result = await executeNode({ nodeType, parameters, items, credentials: { accessToken: emulator.token, baseUrl: emulator.baseUrl } });
				const seconds = (performance.now() - start) / 1000;
				const cpu = process.cpuUsage(cpuBefore);
				if (result.error || result.output.length !== args.items) throw new Error(`${name}: ${result.error?.message ?? `${result.output.length} of ${args.items} sent`}`);
				// Run 0 warms up.
				if (run === 0) continue;
				results.get(name)?.rate.push(args.items / seconds);
				results.get(name)?.cpu.push((cpu.user + cpu.system) / 1000 / args.items);
			}
		}
		console.log(`\n${args.items} items of a ${answer.length}-character answer over 50 chats (loopback), Concurrency 8; median (min–max) of ${args.runs} runs:\n`);
		console.log(
			table(
				['Service Bot, Send Message', 'items/s', 'n8n-side CPU / item (ms)'],
				[...results].map(([name, { rate, cpu }]) => [name, spread(summarize(rate)), spread(summarize(cpu), 3)]),
			),
		);
	} finally {
		await emulator.close();
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
