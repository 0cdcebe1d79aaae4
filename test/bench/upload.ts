/**
 * `npm run bench:upload`: how much memory sending files from the workflow takes. Peak RSS growth of
 * the n8n process (each run in a fresh process, upload-child.ts) while sending one 40 MB file and
 * while sending 100 files of 1 MB (10 chats, Concurrency 8), for Service Bot (A) and for the floor,
 * n8n's own HTTP Request node uploading the same files as multipart/form-data (H). The goal: growth
 * well under the file size (the file is streamed, not read whole). Median of 3 runs each; the emulator
 * runs in its own process.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { ROOT, spawnEmulator, tsNodeEnv, type EmulatorProcess } from './emulator-process';
import { n8nCache } from './telegram';

const MB = 1024 * 1024;
const REPEATS = 3;

interface ChildResult {
	contender: 'A' | 'H';
	files: number;
	bytes: number;
	sent: number;
	error?: string;
	ms: number;
	baselineRssMB: number;
	peakRssGrowthMB: number;
}

async function once(emulator: EmulatorProcess, cache: string, contender: 'A' | 'H', files: number, bytes: number): Promise<ChildResult> {
	const chats = await emulator.resetWithChats(10);
	const input = { contender, files, bytes, cache, baseUrl: emulator.baseUrl, token: emulator.token, chats };
	const child = spawn(process.execPath, ['--expose-gc', '-r', 'ts-node/register', join(__dirname, 'upload-child.ts')], {
		cwd: ROOT,
		env: { ...tsNodeEnv(), BENCH_UPLOAD_INPUT: JSON.stringify(input) },
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	let stdout = '';
	child.stdout.on('data', (chunk: Buffer) => {
		stdout += chunk.toString('utf8');
	});
	const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
	if (code !== 0) throw new Error(`upload child (${contender}) exited with ${code}`);
	const result = JSON.parse(stdout.trim().split('\n').pop() ?? '') as ChildResult;
	if (result.error || result.sent !== files) throw new Error(`upload child (${contender}): ${result.error ?? `${result.sent} of ${files} sent`}`);
	const documents = await emulator.control<Array<{ method: string; status: number }>>('GET', '/calls?method=sendDocument');
	// The warm-up's file and the run's.
	if (documents.filter((call) => call.status === 200).length !== files + 1) throw new Error(`upload child (${contender}): the service did not get ${files} files`);
	return result;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
	const cache = n8nCache();
	const emulator = await spawnEmulator();
	const rows: Array<{ workload: string; contender: string; peakRssGrowthMB: number; runsMB: number[]; ms: number }> = [];
	try {
		for (const [workload, files, bytes] of [
			['1 file of 40 MB', 1, 40 * MB],
			['100 files of 1 MB', 100, MB],
		] as const) {
			for (const contender of ['A', 'H'] as const) {
				const runs: ChildResult[] = [];
				for (let index = 0; index < REPEATS; index++) {
					const result = await once(emulator, cache, contender, files, bytes);
					process.stderr.write(`${workload}, ${contender} ${index + 1}/${REPEATS}: peak RSS +${result.peakRssGrowthMB.toFixed(1)} MB in ${result.ms.toFixed(0)} ms\n`);
					runs.push(result);
				}
				rows.push({
					workload,
					contender: contender === 'A' ? 'Service Bot (Binary File)' : "n8n's HTTP Request (multipart)",
					peakRssGrowthMB: median(runs.map((run) => run.peakRssGrowthMB)),
					runsMB: runs.map((run) => Number(run.peakRssGrowthMB.toFixed(1))),
					ms: median(runs.map((run) => run.ms)),
				});
			}
		}
	} finally {
		await emulator.close();
	}
	process.stdout.write('| Workload | Contender | Peak RSS growth (median of 3) | Runs (MB) | Time (median) |\n|---|---|---|---|---|\n');
	for (const row of rows) {
		process.stdout.write(`| ${row.workload} | ${row.contender} | +${row.peakRssGrowthMB.toFixed(1)} MB | ${row.runsMB.join(', ')} | ${row.ms.toFixed(0)} ms |\n`);
	}
	const out = join(ROOT, 'test', 'output', 'bench');
	mkdirSync(out, { recursive: true });
	writeFileSync(join(out, 'upload.json'), `${JSON.stringify(rows, null, '\t')}\n`);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		process.stderr.write(`bench:upload: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
		process.exit(1);
	},
);
