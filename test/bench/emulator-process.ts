/**
 * The emulator in its own process (test/emulator/cli.ts), as the bench's HTTP peer: start it, call its
 * control API (/_emulator/…), and read its CPU time from /proc/<pid>/stat (utime + stime), so the bench
 * can show how much of a core the emulator itself used while a contender ran.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { request } from 'undici';

import type { DemoData } from '../emulator';

export const ROOT = join(__dirname, '..', '..');

/** Environment for a child that runs TypeScript through ts-node the way the bench itself does. */
export function tsNodeEnv(): NodeJS.ProcessEnv {
	return {
		...process.env,
		TS_NODE_PROJECT: join(ROOT, 'test', 'tsconfig.json'),
		TS_NODE_TRANSPILE_ONLY: 'true',
		// Without it `…/ServiceBot.node` resolves to ServiceBot.node.json before ServiceBot.node.ts.
		TS_NODE_PREFER_TS_EXTS: 'true',
	};
}

let clockTicks: number | undefined;

function ticksPerSecond(): number {
	if (clockTicks === undefined) {
		try {
			clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
		} catch {
			clockTicks = 100;
		}
	}
	return clockTicks;
}

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat. */
export function processCpuSeconds(pid: number): number {
	const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
	// Fields after "(comm)": state is field 3, utime field 14, stime field 15.
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond();
}

export interface ChatMember {
	userId: string;
	status: string;
}

export interface EmulatorProcess {
	readonly baseUrl: string;
	readonly token: string;
	readonly demo: DemoData;
	readonly pid: number;
	cpuSeconds(): number;
	control<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T>;
	/** Fresh demo state (and an empty call log), then `count` groups with the demo bot as a member. */
	resetWithChats(count: number): Promise<string[]>;
	/** The texts a chat shows, in order. */
	texts(chatId: string): Promise<string[]>;
	close(): Promise<void>;
}

export async function spawnEmulator(): Promise<EmulatorProcess> {
	const child: ChildProcess = spawn(
		process.execPath,
		['-r', 'ts-node/register', join(ROOT, 'test', 'emulator', 'cli.ts'), '--port', '0', '--allow-local-webhooks'],
		{ cwd: ROOT, env: tsNodeEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
	);
	let stderr = '';
	child.stderr?.on('data', (chunk: Buffer) => {
		stderr = (stderr + chunk.toString('utf8')).slice(-4000);
	});
	const firstLine = await new Promise<string>((resolve, reject) => {
		const lines = createInterface({ input: child.stdout! });
		lines.once('line', (line) => resolve(line));
		child.once('exit', (code) => reject(new Error(`emulator exited (${code}) before it started: ${stderr}`)));
	});
	const info = JSON.parse(firstLine) as { baseUrl: string; token: string; demo: DemoData };
	const pid = child.pid;
	if (pid === undefined) throw new Error('emulator: no pid');

	async function control<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
		const response = await request(`${info.baseUrl}/_emulator${path}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.body.text();
		if (response.statusCode >= 400) throw new Error(`emulator ${method} ${path}: ${response.statusCode} ${text}`);
		return (text ? JSON.parse(text) : undefined) as T;
	}

	return {
		baseUrl: info.baseUrl,
		token: info.token,
		demo: info.demo,
		pid,
		cpuSeconds: () => processCpuSeconds(pid),
		control,
		async resetWithChats(count) {
			await control('POST', '/reset');
			const chats: string[] = [];
			for (let index = 0; index < count; index++) {
				const members: ChatMember[] = [
					{ userId: info.demo.botId, status: 'member' },
					{ userId: info.demo.userId, status: 'member' },
				];
				const { chatId } = await control<{ chatId: string }>('POST', '/chats', {
					type: 'group',
					title: `Bench ${index}`,
					members,
				});
				chats.push(chatId);
			}
			return chats;
		},
		async texts(chatId) {
			const history = await control<Array<{ text?: string }>>('GET', `/chats/${encodeURIComponent(chatId)}/history`);
			return history.map((message) => message.text ?? '');
		},
		async close() {
			if (child.exitCode !== null) return;
			const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
			child.kill('SIGTERM');
			await exited;
		},
	};
}
