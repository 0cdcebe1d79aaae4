/**
 * `npm run bench:download`: how much memory getting the files users send takes. Peak RSS growth of
 * the n8n process (each run in a fresh process, download-child.ts) while Get File downloads one 18 MB
 * file and 50 files of 1 MB at once, for Service Bot (A) and for the floor, n8n's own HTTP Request
 * node downloading the same files from the same address as files (H). The goal: growth well under the
 * file size (the download is streamed into n8n's binary data store, not read whole). Median of 3 runs
 * each; the emulator runs in its own process, the files sent to it by its demo user.
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
	received: number;
	error?: string;
	ms: number;
	baselineRssMB: number;
	peakRssGrowthMB: number;
}

/** A file the demo user sent: its file_id, and the address its bytes are at (getFile's file_path). */
interface SentFile {
	fileId: string;
	url: string;
}

/** Fresh demo state; the demo user sends `count` documents of `bytes` each (distinct content). */
async function userFiles(emulator: EmulatorProcess, count: number, bytes: number): Promise<SentFile[]> {
	await emulator.control('POST', '/reset');
	const { privateChatId: chatId, userId } = emulator.demo;
	const files: SentFile[] = [];
	for (let index = 0; index < count; index++) {
		const content = Buffer.alloc(bytes, index % 251).toString('base64');
		const update = await emulator.control<{ message: { document: { file_id: string } } }>('POST', '/messages', {
			chatId,
			userId,
			media: { kind: 'document', contentBase64: content, fileName: `report-${index}.bin`, mimeType: 'application/octet-stream' },
		});
		const fileId = update.message.document.file_id;
		const answer = await fetch(`${emulator.baseUrl}/bot${emulator.token}/getFile`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ file_id: fileId }),
		});
		const { result } = (await answer.json()) as { result: { file_path: string } };
		files.push({ fileId, url: `${emulator.baseUrl}/file/bot${emulator.token}/${result.file_path}` });
	}
	return files;
}

async function once(emulator: EmulatorProcess, cache: string, contender: 'A' | 'H', count: number, bytes: number): Promise<ChildResult> {
	const files = await userFiles(emulator, count + 1, bytes);
	const input = { contender, bytes, cache, baseUrl: emulator.baseUrl, token: emulator.token, warm: files[0], files: files.slice(1) };
	const child = spawn(process.execPath, ['--expose-gc', '-r', 'ts-node/register', join(__dirname, 'download-child.ts')], {
		cwd: ROOT,
		env: { ...tsNodeEnv(), BENCH_DOWNLOAD_INPUT: JSON.stringify(input) },
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	let stdout = '';
	child.stdout.on('data', (chunk: Buffer) => {
		stdout += chunk.toString('utf8');
	});
	const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
	if (code !== 0) throw new Error(`download child (${contender}) exited with ${code}`);
	const result = JSON.parse(stdout.trim().split('\n').pop() ?? '') as ChildResult;
	if (result.error || result.received !== count * bytes) {
		throw new Error(`download child (${contender}): ${result.error ?? `${result.received} of ${count * bytes} bytes stored`}`);
	}
	return result;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
	const cache = n8nCache();
	const emulator = await spawnEmulator();
	const rows: Array<{ workload: string; contender: string; peakRssGrowthMB: number; runsMB: number[]; ms: number }> = [];
	try {
		for (const [workload, count, bytes] of [
			['1 file of 18 MB', 1, 18 * MB],
			['50 files of 1 MB at once', 50, MB],
		] as const) {
			for (const contender of ['A', 'H'] as const) {
				const runs: ChildResult[] = [];
				for (let index = 0; index < REPEATS; index++) {
					const result = await once(emulator, cache, contender, count, bytes);
					process.stderr.write(`${workload}, ${contender} ${index + 1}/${REPEATS}: peak RSS +${result.peakRssGrowthMB.toFixed(1)} MB in ${result.ms.toFixed(0)} ms\n`);
					runs.push(result);
				}
				rows.push({
					workload,
					contender: contender === 'A' ? 'Service Bot (Get File)' : "n8n's HTTP Request (file)",
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
	writeFileSync(join(out, 'download.json'), `${JSON.stringify(rows, null, '\t')}\n`);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		process.stderr.write(`bench:download: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
		process.exit(1);
	},
);
