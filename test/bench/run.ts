/**
 * `npm run bench`: our Service Bot node (A) vs n8n's Telegram node (B) vs a raw undici client (C) vs
 * the floor inside n8n (F: a minimal node reading two parameters and making one HTTP call per item),
 * all sending sendMessage to the emulator, which runs in its own process. A, B and F run through
 * n8n-core's WorkflowExecute in this process. Shapes: 2000 items over 50 chats, 2000 items to one chat,
 * and 2000 items over 50 chats with 50 ms of service latency (the emulator's `delay` fault on every
 * call), closer to a real Bot API across the internet. Then: peak RSS growth of 10,000 items through A
 * (at the default concurrency and at 1) and B (child processes), the trigger's webhook() cost per
 * update, CPU and allocation profiles of A, B and the trigger. Prints a table; writes
 * test/output/bench/result.json. No assertions: numbers only.
 *
 * Options: --runs N (measured runs per contender and shape, default 5), --items N (default 2000),
 *          --memory-items N (default 10000), --no-profile, --no-experiments (no C0 and A@16 rows),
 *          --quick (runs 3, items 500, memory 2000).
 */
import { spawn } from 'node:child_process';
import diagnosticsChannel from 'node:diagnostics_channel';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

import {
	contenderA,
	contenderB,
	contenderC,
	contenderNewConnection,
	type BenchItem,
	type Contender,
	type MemoryContender,
} from './contenders';
import { contenderF } from './floor';
import { ROOT, spawnEmulator, tsNodeEnv, type EmulatorProcess } from './emulator-process';
import { allocationProfile, CATEGORIES, profile, type AllocationSummary, type ProfileSummary } from './profile';
import { fixed, percent, spread, summarize, table, type Summary } from './stats';
import { loadTelegram, n8nCache } from './telegram';
import { measureTrigger, type TriggerResult } from './trigger';

const OUTPUT = join(ROOT, 'test', 'output', 'bench');
const DEFAULT_CONCURRENCY = 8;

interface Args {
	runs: number;
	items: number;
	memoryItems: number;
	profile: boolean;
	experiments: boolean;
}

function parseArgs(argv: string[]): Args {
	const args: Args = { runs: 5, items: 2000, memoryItems: 10_000, profile: true, experiments: true };
	for (let index = 0; index < argv.length; index++) {
		const flag = argv[index];
		const number = (): number => {
			const value = Number(argv[++index]);
			if (!Number.isInteger(value) || value < 1) throw new Error(`${flag} needs a positive integer`);
			return value;
		};
		if (flag === '--runs') args.runs = number();
		else if (flag === '--items') args.items = number();
		else if (flag === '--memory-items') args.memoryItems = number();
		else if (flag === '--no-profile') args.profile = false;
		else if (flag === '--no-experiments') args.experiments = false;
		else if (flag === '--quick') Object.assign(args, { runs: 3, items: 500, memoryItems: 2000 });
		else throw new Error(`unknown argument ${flag}`);
	}
	return args;
}

function log(text: string): void {
	process.stderr.write(`bench: ${text}\n`);
}

function collectGarbage(): void {
	(globalThis as { gc?: () => void }).gc?.();
}

/** New TCP client sockets opened by this process (net.client.socket). */
let socketsOpened = 0;
diagnosticsChannel.subscribe('net.client.socket', () => {
	socketsOpened++;
});

interface RunRecord {
	ms: number;
	itemsPerSecond: number;
	/** CPU of the emulator process during the run, in cores (1 = one core busy all the time). */
	emulatorCores: number;
	/** CPU of this process (the contender, the engine, the HTTP client) during the run, in cores. */
	benchCores: number;
	/** CPU of this process per item, µs: the cost that bounds throughput when the client is CPU-bound. */
	benchCpuUsPerItem: number;
	/** CPU of the emulator per item, µs. */
	emulatorCpuUsPerItem: number;
	tcpConnections: number;
	/** Every chat shows its messages in input order. */
	orderKept: boolean;
	load1: number;
}

interface ContenderSpec {
	key: string;
	label: string;
	/** Concurrency in this shape (what the contender may have in flight). */
	concurrency: number;
	run: Contender;
	/** Measured in the main rotation (goals) or only as an experiment. */
	experiment?: boolean;
}

interface ContenderResult {
	key: string;
	label: string;
	concurrency: number;
	experiment: boolean;
	runs: RunRecord[];
	itemsPerSecond: Summary;
	ms: Summary;
	emulatorCores: Summary;
	benchCores: Summary;
	benchCpuUsPerItem: Summary;
	emulatorCpuUsPerItem: Summary;
	tcpConnections: Summary;
	orderKeptInAllRuns: boolean;
}

interface Goal {
	name: string;
	target: string;
	value: string;
	met: boolean;
}

interface ShapeSpec {
	name: string;
	chats: number;
	items: number;
	/** Service latency added by the emulator to every Bot API call (its `delay` fault), ms. */
	latencyMs: number;
	runs: number;
	/** Whether the goals are about this shape. */
	goals: boolean;
	contenders: ContenderSpec[];
}

interface ShapeResult {
	name: string;
	chats: number;
	items: number;
	latencyMs: number;
	goals: boolean;
	contenders: ContenderResult[];
	ratios: { aOverB: number; aOverC: number; aOverF: number };
}

function itemsFor(chats: string[], count: number): BenchItem[] {
	return Array.from({ length: count }, (_, index) => ({ chat: chats[index % chats.length], text: `bench ${index}` }));
}

async function checkOrder(emulator: EmulatorProcess, items: BenchItem[]): Promise<boolean> {
	const expected = new Map<string, string[]>();
	for (const item of items) {
		const texts = expected.get(item.chat) ?? [];
		texts.push(item.text);
		expected.set(item.chat, texts);
	}
	for (const [chat, texts] of expected) {
		const shown = await emulator.texts(chat);
		if (shown.length !== texts.length || shown.some((text, index) => text !== texts[index])) return false;
	}
	return true;
}

async function measureOnce(emulator: EmulatorProcess, spec: ContenderSpec, shape: ShapeSpec): Promise<RunRecord> {
	const itemCount = shape.items;
	const chats = await emulator.resetWithChats(shape.chats);
	const items = itemsFor(chats, itemCount);
	if (shape.latencyMs > 0) {
		await emulator.control('POST', '/faults', { kind: 'delay', delayMs: shape.latencyMs, count: itemCount });
	}
	collectGarbage();
	const target = { baseUrl: emulator.baseUrl, token: emulator.token };
	const load1 = os.loadavg()[0];
	const sockets = socketsOpened;
	const emulatorCpu = emulator.cpuSeconds();
	const benchCpu = process.cpuUsage();
	const started = performance.now();
	const outcome = await spec.run(items, target);
	const ms = performance.now() - started;
	const benchUsed = process.cpuUsage(benchCpu);
	const emulatorUsed = emulator.cpuSeconds() - emulatorCpu;
	const tcpConnections = socketsOpened - sockets;
	if (outcome.error || outcome.sent !== itemCount) {
		throw new Error(`${spec.key}: sent ${outcome.sent} of ${itemCount}${outcome.error ? `: ${outcome.error}` : ''}`);
	}
	const orderKept = await checkOrder(emulator, items);
	return {
		ms,
		itemsPerSecond: (itemCount / ms) * 1000,
		emulatorCores: emulatorUsed / (ms / 1000),
		benchCores: (benchUsed.user + benchUsed.system) / 1000 / ms,
		benchCpuUsPerItem: (benchUsed.user + benchUsed.system) / itemCount,
		emulatorCpuUsPerItem: (emulatorUsed * 1e6) / itemCount,
		tcpConnections,
		orderKept,
		load1,
	};
}

function resultOf(spec: ContenderSpec, runs: RunRecord[]): ContenderResult {
	return {
		key: spec.key,
		label: spec.label,
		concurrency: spec.concurrency,
		experiment: spec.experiment === true,
		runs,
		itemsPerSecond: summarize(runs.map((run) => run.itemsPerSecond)),
		ms: summarize(runs.map((run) => run.ms)),
		emulatorCores: summarize(runs.map((run) => run.emulatorCores)),
		benchCores: summarize(runs.map((run) => run.benchCores)),
		benchCpuUsPerItem: summarize(runs.map((run) => run.benchCpuUsPerItem)),
		emulatorCpuUsPerItem: summarize(runs.map((run) => run.emulatorCpuUsPerItem)),
		tcpConnections: summarize(runs.map((run) => run.tcpConnections)),
		orderKeptInAllRuns: runs.every((run) => run.orderKept),
	};
}

async function measureShape(emulator: EmulatorProcess, shape: ShapeSpec): Promise<ShapeResult> {
	const specs = shape.contenders;
	log(`${shape.name}: warming up ${specs.map((spec) => spec.key).join(', ')}`);
	for (const spec of specs) await measureOnce(emulator, spec, shape);
	const runs = new Map<string, RunRecord[]>(specs.map((spec) => [spec.key, []]));
	for (let round = 0; round < shape.runs; round++) {
		// Rotate the order each round so that no contender always runs right after another.
		const order = specs.map((_, index) => specs[(index + round) % specs.length]);
		for (const spec of order) {
			const record = await measureOnce(emulator, spec, shape);
			runs.get(spec.key)!.push(record);
			log(
				`${shape.name}: round ${round + 1}/${shape.runs} ${spec.key.padEnd(5)} ${fixed(record.itemsPerSecond).padStart(6)} items/s, CPU/item ${fixed(record.benchCpuUsPerItem)} µs here + ${fixed(record.emulatorCpuUsPerItem)} µs emulator, load ${record.load1.toFixed(2)}`,
			);
		}
	}
	const contenders = specs.map((spec) => resultOf(spec, runs.get(spec.key)!));
	const median = (key: string): number => contenders.find((result) => result.key === key)?.itemsPerSecond.median ?? NaN;
	return {
		name: shape.name,
		chats: shape.chats,
		items: shape.items,
		latencyMs: shape.latencyMs,
		goals: shape.goals,
		contenders,
		ratios: { aOverB: median('A') / median('B'), aOverC: median('A') / median('C'), aOverF: median('A') / median('F') },
	};
}

interface MemoryResult {
	contender: MemoryContender;
	concurrency: number;
	items: number;
	sent: number;
	ms: number;
	baselineRssMB: number;
	peakRssMB: number;
	peakRssGrowthMB: number;
	peakHeapGrowthMB: number;
	liveHeapWithOutputMB: number;
	retainedAfterGcMB: number;
	error?: string;
}

interface MemorySummary {
	contender: MemoryContender;
	concurrency: number;
	items: number;
	runs: MemoryResult[];
	peakRssGrowthMB: Summary;
	peakHeapGrowthMB: Summary;
	liveHeapWithOutputMB: Summary;
}

async function measureMemoryOnce(
	emulator: EmulatorProcess,
	contender: MemoryContender,
	concurrency: number,
	cache: string,
	itemCount: number,
): Promise<MemoryResult> {
	const chats = await emulator.resetWithChats(50);
	const input = { contender, concurrency, cache, baseUrl: emulator.baseUrl, token: emulator.token, chats, items: itemCount };
	const child = spawn(process.execPath, ['--expose-gc', '-r', 'ts-node/register', join(__dirname, 'memory-child.ts')], {
		cwd: ROOT,
		env: { ...tsNodeEnv(), BENCH_MEMORY_INPUT: JSON.stringify(input) },
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	let stdout = '';
	child.stdout.on('data', (chunk: Buffer) => {
		stdout += chunk.toString('utf8');
	});
	const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
	if (code !== 0) throw new Error(`memory child (${contender}) exited with ${code}`);
	const result = JSON.parse(stdout.trim().split('\n').pop() ?? '') as MemoryResult;
	if (result.error || result.sent !== itemCount) throw new Error(`memory child (${contender}): ${result.error ?? result.sent}`);
	return result;
}

/** Peak RSS depends on when V8 collects, so it is measured several times, each in a fresh process. */
async function measureMemory(
	emulator: EmulatorProcess,
	contender: MemoryContender,
	concurrency: number,
	cache: string,
	itemCount: number,
	repeats: number,
): Promise<MemorySummary> {
	const runs: MemoryResult[] = [];
	for (let index = 0; index < repeats; index++) {
		const result = await measureMemoryOnce(emulator, contender, concurrency, cache, itemCount);
		log(
			`memory ${contender}@${concurrency} ${index + 1}/${repeats}: peak RSS +${fixed(result.peakRssGrowthMB)} MB, live heap with output +${fixed(result.liveHeapWithOutputMB, 1)} MB`,
		);
		runs.push(result);
	}
	return {
		contender,
		concurrency,
		items: itemCount,
		runs,
		peakRssGrowthMB: summarize(runs.map((run) => run.peakRssGrowthMB)),
		peakHeapGrowthMB: summarize(runs.map((run) => run.peakHeapGrowthMB)),
		liveHeapWithOutputMB: summarize(runs.map((run) => run.liveHeapWithOutputMB)),
	};
}

interface ProfileRecord {
	name: string;
	/** Items (or updates) the profiled run handled: the table shows µs per item. */
	units: number;
	summary: ProfileSummary;
}

async function profiles(
	emulator: EmulatorProcess,
	specs: { a: ContenderSpec; b: ContenderSpec },
	itemCount: number,
): Promise<ProfileRecord[]> {
	const records: ProfileRecord[] = [];
	const plan: Array<[string, ContenderSpec, number]> = [
		['A-50-chats', specs.a, 50],
		['A-1-chat', specs.a, 1],
		['B-1-chat', specs.b, 1],
	];
	for (const [name, spec, chatCount] of plan) {
		const chats = await emulator.resetWithChats(chatCount);
		const items = itemsFor(chats, itemCount);
		collectGarbage();
		const target = { baseUrl: emulator.baseUrl, token: emulator.token };
		log(`profiling ${name}`);
		const summary = await profile(join(OUTPUT, `${name}.cpuprofile`), async () => {
			const outcome = await spec.run(items, target);
			if (outcome.error) throw new Error(outcome.error);
		});
		records.push({ name, units: itemCount, summary });
	}
	log('profiling trigger');
	const updates = 2000;
	const summary = await profile(join(OUTPUT, 'trigger.cpuprofile'), async () => {
		await measureTrigger(emulator, updates, 0);
	});
	records.push({ name: 'trigger', units: updates, summary });
	return records;
}

interface AllocationRecord {
	name: string;
	units: number;
	summary: AllocationSummary;
}

async function allocations(
	emulator: EmulatorProcess,
	specs: { a: ContenderSpec; b: ContenderSpec },
	itemCount: number,
): Promise<AllocationRecord[]> {
	const records: AllocationRecord[] = [];
	for (const [name, spec, chatCount] of [
		['A-50-chats', specs.a, 50],
		['B-1-chat', specs.b, 1],
	] as const) {
		const chats = await emulator.resetWithChats(chatCount);
		const items = itemsFor(chats, itemCount);
		collectGarbage();
		log(`allocation profile ${name}`);
		const target = { baseUrl: emulator.baseUrl, token: emulator.token };
		const summary = await allocationProfile(join(OUTPUT, `${name}.heapprofile`), async () => {
			const outcome = await spec.run(items, target);
			if (outcome.error) throw new Error(outcome.error);
		});
		records.push({ name, units: itemCount, summary });
	}
	return records;
}

function allocationTable(records: AllocationRecord[]): string {
	const header = ['allocated, KB per item (garbage included)', ...records.map((record) => record.name)];
	const rows: string[][] = CATEGORIES.filter((category) =>
		records.some((record) => (record.summary.categoriesMB[category] ?? 0) * 1024 >= record.units * 0.05),
	).map((category) => [
		category,
		...records.map((record) => {
			const mb = record.summary.categoriesMB[category] ?? 0;
			return `${fixed((mb * 1024) / record.units, 1)} (${percent(mb / record.summary.totalMB)})`;
		}),
	]);
	rows.push(['total', ...records.map((record) => fixed((record.summary.totalMB * 1024) / record.units, 1))]);
	return table(header, rows);
}

function machine(): Record<string, string | number> {
	const cpus = os.cpus();
	return {
		cpus: cpus.length,
		cpuModel: cpus[0]?.model ?? 'unknown',
		memoryGiB: Math.round(os.totalmem() / 1024 ** 3),
		node: process.version,
		platform: `${os.platform()} ${os.release()}`,
	};
}

function shapeTable(shape: ShapeResult): string {
	const rows = shape.contenders.map((result) => [
		`${result.key} ${result.label}`,
		String(result.concurrency),
		spread(result.itemsPerSecond),
		fixed(result.ms.median),
		`${fixed(result.benchCpuUsPerItem.median)} µs`,
		`${percent(result.emulatorCores.median)} (${fixed(result.emulatorCpuUsPerItem.median)} µs)`,
		fixed(result.tcpConnections.median),
		result.orderKeptInAllRuns ? 'yes' : 'no',
	]);
	return table(
		[
			'contender',
			'in flight',
			'items/s median (min–max)',
			'ms',
			'n8n-side CPU/item',
			'emulator CPU (per item)',
			'TCP conns',
			'order kept',
		],
		rows,
	);
}

function profileTable(records: ProfileRecord[]): string {
	const header = ['self time, µs per item (share of wall time)', ...records.map((record) => record.name)];
	const rows: string[][] = CATEGORIES.map((category) => [
		category,
		...records.map((record) => {
			const ms = record.summary.categories[category] ?? 0;
			return `${fixed((ms * 1000) / record.units)} (${percent(ms / record.summary.wallMs)})`;
		}),
	]);
	rows.push(['wall time per item', ...records.map((record) => `${fixed((record.summary.wallMs * 1000) / record.units)}`)]);
	return table(header, rows);
}

async function main(): Promise<void> {
	const args = parseArgs(process.argv.slice(2));
	mkdirSync(OUTPUT, { recursive: true });
	const startedAt = new Date();
	const loadBefore = os.loadavg();
	const cache = n8nCache();
	const telegram = loadTelegram(cache);
	log(`n8n's Telegram node from n8n-nodes-base ${telegram.version} (${cache})`);

	const emulator = await spawnEmulator();
	const stop = (): void => {
		void emulator.close();
	};
	process.once('SIGINT', stop);
	process.once('SIGTERM', stop);
	log(`emulator pid ${emulator.pid} at ${emulator.baseUrl}`);

	try {
		const a: ContenderSpec = { key: 'A', label: 'Service Bot node (ours)', concurrency: DEFAULT_CONCURRENCY, run: contenderA() };
		const b: ContenderSpec = { key: 'B', label: `n8n Telegram node ${telegram.version}`, concurrency: 1, run: contenderB(telegram) };
		const c: ContenderSpec = {
			key: 'C',
			label: 'raw undici Pool, keep-alive',
			concurrency: DEFAULT_CONCURRENCY,
			run: contenderC(DEFAULT_CONCURRENCY),
		};
		const c0: ContenderSpec = {
			key: 'C0',
			label: 'raw node:http, new TCP connection per request',
			concurrency: DEFAULT_CONCURRENCY,
			run: contenderNewConnection(DEFAULT_CONCURRENCY),
			experiment: true,
		};
		const f: ContenderSpec = {
			key: 'F',
			label: 'floor inside n8n (2 parameters + 1 HTTP call per item)',
			concurrency: DEFAULT_CONCURRENCY,
			run: contenderF(DEFAULT_CONCURRENCY),
		};
		const sequential = (spec: ContenderSpec, run: Contender): ContenderSpec => ({ ...spec, concurrency: 1, run });
		const shapeSpecs: ShapeSpec[] = [
			{
				name: `${args.items} items over 50 chats`,
				chats: 50,
				items: args.items,
				latencyMs: 0,
				runs: args.runs,
				goals: true,
				contenders: args.experiments ? [a, b, c, f, c0] : [a, b, c, f],
			},
			{
				name: `${args.items} items to one chat`,
				chats: 1,
				items: args.items,
				latencyMs: 0,
				runs: args.runs,
				goals: true,
				// One chat: A keeps the order by sending one at a time, so C, C0 and F do the same.
				contenders: [
					{ ...a, concurrency: 1 },
					b,
					sequential(c, contenderC(1)),
					sequential(f, contenderF(1)),
					...(args.experiments ? [sequential(c0, contenderNewConnection(1))] : []),
				],
			},
			{
				// Closer to a real Bot API across the internet: every call answered after 50 ms.
				name: `${args.items} items over 50 chats, 50 ms service latency`,
				chats: 50,
				items: args.items,
				latencyMs: 50,
				runs: Math.min(3, args.runs),
				goals: true,
				contenders: [
					a,
					b,
					c,
					f,
					...(args.experiments
						? [{ key: 'A@16', label: 'Service Bot node, Concurrency 16', concurrency: 16, run: contenderA(16), experiment: true }]
						: []),
				],
			},
		];
		const shapes: ShapeResult[] = [];
		for (const shape of shapeSpecs) shapes.push(await measureShape(emulator, shape));

		log(`memory: ${args.memoryItems} items through A and F (concurrency 8 and 1) and B, 3 times each, each in a fresh child process`);
		const memory = {
			A: await measureMemory(emulator, 'A', DEFAULT_CONCURRENCY, cache, args.memoryItems, 3),
			A1: await measureMemory(emulator, 'A', 1, cache, args.memoryItems, 3),
			B: await measureMemory(emulator, 'B', 1, cache, args.memoryItems, 3),
			// The floor: what n8n's engine and HTTP helper leave for V8 to collect, whatever the node.
			F: await measureMemory(emulator, 'F', DEFAULT_CONCURRENCY, cache, args.memoryItems, 3),
			F1: await measureMemory(emulator, 'F', 1, cache, args.memoryItems, 3),
		};
		log('trigger: webhook() per update');
		const trigger: TriggerResult = await measureTrigger(emulator);
		const profileRecords = args.profile ? await profiles(emulator, { a, b }, args.items) : [];
		const allocationRecords = args.profile ? await allocations(emulator, { a, b }, args.items) : [];
		const loadAfter = os.loadavg();

		const [spreadShape, oneShape, latencyShape] = shapes;
		const goals: Goal[] = [
			...shapes.map(
				(shape): Goal => ({
					name: `${shape.name}: A/F`,
					target: '≥ 0.95',
					value: fixed(shape.ratios.aOverF, 2),
					met: shape.ratios.aOverF >= 0.95,
				}),
			),
			{
				name: '50 ms latency: A/B at the default concurrency',
				target: '≥ 7',
				value: fixed(latencyShape.ratios.aOverB, 2),
				met: latencyShape.ratios.aOverB >= 7,
			},
			{ name: '50 chats: A/B', target: '≥ 5', value: fixed(spreadShape.ratios.aOverB, 2), met: spreadShape.ratios.aOverB >= 5 },
			{ name: '50 chats: A/C', target: '≥ 0.7', value: fixed(spreadShape.ratios.aOverC, 2), met: spreadShape.ratios.aOverC >= 0.7 },
			{ name: 'one chat: A/B', target: '≥ 1.0', value: fixed(oneShape.ratios.aOverB, 2), met: oneShape.ratios.aOverB >= 1 },
			{ name: 'one chat: A/C', target: '≥ 0.5', value: fixed(oneShape.ratios.aOverC, 2), met: oneShape.ratios.aOverC >= 0.5 },
			{
				name: `${memory.A.items} items: A's peak RSS growth at the default concurrency (median of 3)`,
				target: '≤ 100 MB',
				value: `${fixed(memory.A.peakRssGrowthMB.median, 1)} MB`,
				met: memory.A.peakRssGrowthMB.median <= 100,
			},
			{
				name: `${memory.A.items} items: A's peak RSS growth at B's concurrency (1) vs B's (medians of 3)`,
				target: '≤ B',
				value: `${fixed(memory.A1.peakRssGrowthMB.median, 1)} vs ${fixed(memory.B.peakRssGrowthMB.median, 1)} MB`,
				met: memory.A1.peakRssGrowthMB.median <= memory.B.peakRssGrowthMB.median,
			},
			{
				// The median: the mean on a shared machine is dominated by preemption (see p99 and CPU time).
				name: 'trigger webhook() per update (median)',
				target: '< 200 µs',
				value: `${fixed(trigger.webhookUs.median, 1)} µs`,
				met: trigger.webhookUs.median < 200,
			},
		];

		const result = {
			startedAt: startedAt.toISOString(),
			finishedAt: new Date().toISOString(),
			machine: machine(),
			load: { before: loadBefore, after: loadAfter },
			settings: { ...args, defaultConcurrency: DEFAULT_CONCURRENCY, telegram: telegram.version, n8nCache: cache },
			shapes,
			memory,
			trigger,
			profiles: profileRecords,
			allocations: allocationRecords,
			goals,
		};
		writeFileSync(join(OUTPUT, 'result.json'), `${JSON.stringify(result, null, '\t')}\n`);

		const out: string[] = [];
		const m = machine();
		out.push(
			`Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, Node ${m.node}; load average ${loadBefore.map((v) => v.toFixed(2)).join(' ')} before, ${loadAfter.map((v) => v.toFixed(2)).join(' ')} after`,
		);
		for (const [index, shape] of shapes.entries()) {
			out.push('', `${shape.name}: ${shapeSpecs[index].runs} runs each after a warm-up; median (min–max)`, shapeTable(shape));
			out.push(`A/F = ${fixed(shape.ratios.aOverF, 2)}   A/B = ${fixed(shape.ratios.aOverB, 2)}   A/C = ${fixed(shape.ratios.aOverC, 2)}`);
		}
		out.push(
			'',
			`Memory, ${memory.A.items} items over 50 chats, each run in a fresh process (baseline ≈ ${fixed(memory.A.runs[0].baselineRssMB)} MB RSS):`,
			table(
				['contender', 'peak RSS growth, MB', 'peak heap growth, MB', 'live heap with the output, MB'],
				[memory.A, memory.F, memory.A1, memory.B, memory.F1].map((entry) => [
					`${entry.contender} at concurrency ${entry.concurrency} (${entry.runs.length} runs)`,
					spread(entry.peakRssGrowthMB),
					spread(entry.peakHeapGrowthMB),
					spread(entry.liveHeapWithOutputMB, 1),
				]),
			),
			`Trigger, ${trigger.updates} updates: webhook() median ${fixed(trigger.webhookUs.median, 1)} µs/update (mean ${fixed(trigger.webhookUs.mean, 1)}, p99 ${fixed(trigger.webhookUs.p99, 1)}; CPU mean ${fixed(trigger.webhookCpuUs.mean, 1)} µs); whole in-process delivery (fresh Workflow + WebhookContext + webhook()) median ${fixed(trigger.deliveryUs.median, 1)} µs, mean ${fixed(trigger.deliveryUs.mean, 1)} µs`,
			'',
			table(
				['goal', 'target', 'this run', 'met'],
				goals.map((goal) => [goal.name, goal.target, goal.value, goal.met ? 'yes' : 'NO']),
			),
		);
		if (profileRecords.length > 0) {
			out.push('', `CPU profiles (${args.items} items each, trigger 2000 updates; .cpuprofile files in test/output/bench/)`, profileTable(profileRecords));
			out.push('', `Allocation profiles (${args.items} items each; .heapprofile files in test/output/bench/)`, allocationTable(allocationRecords));
		}
		out.push('', `Result: ${join('test', 'output', 'bench', 'result.json')}`);
		process.stdout.write(`${out.join('\n')}\n`);
	} finally {
		await emulator.close();
	}
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
		process.exit(1);
	},
);
