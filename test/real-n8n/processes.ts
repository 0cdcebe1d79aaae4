/**
 * Child processes that never outlive us. Every process is started in its own process group
 * (`detached`), so stopping it also stops what it started (n8n's task runner, ts-node's node).
 * `stopAll()` runs on SIGINT / SIGTERM / SIGHUP and, as a last resort, synchronously on exit.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { createServer } from 'node:net';

export interface Proc {
	readonly name: string;
	readonly child: ChildProcess;
	readonly pid: number;
	/** Resolves with the exit code (null after a signal) once the process has exited and its output is closed. */
	readonly exited: Promise<number | null>;
	/** Resolves when the process itself has exited (something it started may still hold its output open). */
	readonly leaderExited: Promise<number | null>;
	/** Whether the process has exited. */
	hasExited(): boolean;
	/** The last lines it wrote (stdout and stderr), for error messages. */
	tail(lines?: number): string;
	/** Everything it wrote to stdout. */
	stdout(): string;
	/** Everything it wrote (stdout and stderr interleaved). */
	output(): string;
	/** Calls `listener` with each complete stdout line. */
	onLine(listener: (line: string) => void): void;
}

export interface SpawnOptions {
	env?: NodeJS.ProcessEnv;
	cwd?: string;
	/** Also write everything the process prints into this file. */
	logFile?: string;
	/** Also echo its stderr / stdout to ours, each line prefixed with `[name] `. */
	echo?: boolean;
}

const running = new Set<Proc>();

/**
 * The processes started within one `withOwnProcesses` call (and what it awaits), so that scenarios
 * running side by side each stop only their own (`stopOwn`).
 */
const owners = new AsyncLocalStorage<Set<Proc>>();

/** Runs `work`; every process it starts is its own, for `stopOwn`. */
export function withOwnProcesses<T>(work: () => Promise<T>): Promise<T> {
	return owners.run(new Set<Proc>(), work);
}

/** Stops the processes started within the current `withOwnProcesses` (every process outside one). */
export async function stopOwn(graceMs?: number): Promise<void> {
	const own = owners.getStore();
	if (!own) return stopAll(graceMs);
	const procs = [...own].reverse();
	await Promise.all(procs.map((proc) => stopProc(proc, graceMs)));
}

/** The `withOwnProcesses` set each process was started in. */
const ownerOf = new WeakMap<Proc, Set<Proc>>();

function forget(proc: Proc): void {
	running.delete(proc);
	ownerOf.get(proc)?.delete(proc);
}

function groupAlive(pid: number): boolean {
	try {
		process.kill(-pid, 0);
		return true;
	} catch {
		return false;
	}
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
	try {
		process.kill(-pid, signal);
	} catch {
		// the group is already gone
	}
}

export function spawnProc(name: string, command: string, args: string[], options: SpawnOptions = {}): Proc {
	const child = spawn(command, args, {
		env: options.env ?? process.env,
		cwd: options.cwd,
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	if (child.pid === undefined) throw new Error(`could not start ${name} (${command})`);
	const pid = child.pid;
	let log: WriteStream | undefined;
	if (options.logFile) {
		mkdirSync(dirname(options.logFile), { recursive: true });
		log = createWriteStream(options.logFile, { flags: 'a' });
	}
	let all = '';
	let out = '';
	let pending = '';
	let done = false;
	const listeners: Array<(line: string) => void> = [];
	const keep = (text: string): void => {
		all += text;
		if (all.length > 2_000_000) all = all.slice(-1_000_000);
		log?.write(text);
		if (options.echo) {
			process.stderr.write(
				text
					.split('\n')
					.filter((line, index, lines) => line !== '' || index < lines.length - 1)
					.map((line) => `[${name}] ${line}\n`)
					.join(''),
			);
		}
	};
	child.stdout?.setEncoding('utf8').on('data', (text: string) => {
		out += text;
		keep(text);
		pending += text;
		const lines = pending.split('\n');
		pending = lines.pop() ?? '';
		for (const line of lines) for (const listener of listeners) listener(line);
	});
	child.stderr?.setEncoding('utf8').on('data', keep);
	const leaderExited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
	const exited = new Promise<number | null>((resolve) => {
		child.on('error', (error) => {
			keep(`\n[${name}] ${error.message}\n`);
		});
		child.on('close', (code) => {
			done = true;
			log?.end();
			resolve(code);
		});
	});
	const proc: Proc = {
		name,
		child,
		pid,
		exited,
		leaderExited,
		hasExited: () => done,
		tail: (lines = 40) => all.split('\n').slice(-lines).join('\n'),
		stdout: () => out,
		output: () => all,
		onLine: (listener) => listeners.push(listener),
	};
	running.add(proc);
	const own = owners.getStore();
	if (own) {
		own.add(proc);
		ownerOf.set(proc, own);
	}
	// Forget it only when its whole process group is gone (see stopProc).
	void exited.then(() => {
		if (!groupAlive(pid)) forget(proc);
	});
	return proc;
}

/** Waits until `condition` holds, checking every `intervalMs`; fails after `limitMs` (a safety net). */
export async function waitFor<T>(
	what: string,
	condition: () => Promise<T | undefined | false> | T | undefined | false,
	{ limitMs = 120_000, intervalMs = 200 }: { limitMs?: number; intervalMs?: number } = {},
): Promise<T> {
	const start = Date.now();
	for (;;) {
		const value = await condition();
		if (value !== undefined && value !== false) return value;
		if (Date.now() - start > limitMs) throw new Error(`gave up waiting for ${what} after ${Math.round(limitMs / 1000)} s`);
		await sleep(intervalMs);
	}
}

export function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Stops a process and everything in its process group: SIGTERM (n8n shuts down cleanly on it),
 * then SIGKILL for whatever is left after `graceMs`.
 */
export async function stopProc(proc: Proc, graceMs = 20_000): Promise<void> {
	if (groupAlive(proc.pid)) {
		signalGroup(proc.pid, 'SIGTERM');
		const start = Date.now();
		while (groupAlive(proc.pid) && Date.now() - start < graceMs) await sleep(100);
		if (groupAlive(proc.pid)) {
			signalGroup(proc.pid, 'SIGKILL');
			while (groupAlive(proc.pid) && Date.now() - start < graceMs + 5_000) await sleep(100);
		}
	}
	if (!proc.hasExited()) await proc.exited;
	forget(proc);
}

/** SIGKILL to the process group at once, as a crash or the kernel's OOM killer: nothing gets to shut down. */
export async function killProc(proc: Proc): Promise<void> {
	signalGroup(proc.pid, 'SIGKILL');
	while (groupAlive(proc.pid)) await sleep(50);
	if (!proc.hasExited()) await proc.exited;
	forget(proc);
}

/** Stops every process started through spawnProc that is still running, the newest first. */
export async function stopAll(graceMs?: number): Promise<void> {
	const procs = [...running].reverse();
	await Promise.all(procs.map((proc) => stopProc(proc, graceMs)));
}

/** Runs a command to its end. Rejects (with the output's tail) when it fails, unless `allowFailure`. */
export async function run(
	name: string,
	command: string,
	args: string[],
	options: SpawnOptions & { allowFailure?: boolean } = {},
): Promise<{ code: number | null; stdout: string; output: string }> {
	const proc = spawnProc(name, command, args, options);
	const code = await proc.leaderExited;
	// Anything it left behind in its group goes too (and with it, the last holder of its output).
	await stopProc(proc, 5_000);
	await proc.exited;
	if (code !== 0 && !options.allowFailure) {
		throw new Error(`${name} failed (exit ${code}):\n${proc.tail(30)}`);
	}
	return { code, stdout: proc.stdout(), output: proc.output() };
}

let handlersInstalled = false;

/**
 * Makes Ctrl-C / SIGTERM / SIGHUP stop every started process before we exit, and kills whatever is
 * still running if we exit any other way. `onSignal` runs first (e.g. to print a message).
 */
export function stopAllOnExit(onSignal?: (signal: NodeJS.Signals) => void): void {
	if (handlersInstalled) return;
	handlersInstalled = true;
	let stopping = false;
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		process.on(signal, () => {
			if (stopping) return;
			stopping = true;
			onSignal?.(signal);
			stopAll().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
		});
	}
	process.on('exit', () => {
		for (const proc of running) signalGroup(proc.pid, 'SIGKILL');
	});
}

/**
 * Ports handed out in this run: a port freed by its test probe could be handed out again before the
 * process it was meant for binds it, and scenarios running side by side ask at the same time.
 */
const handedOut = new Set<number>();

/** A TCP port that is free on 127.0.0.1 right now, never one handed out before in this run. */
export async function freePort(): Promise<number> {
	for (;;) {
		const port = await probeFreePort();
		if (handedOut.has(port)) continue;
		handedOut.add(port);
		return port;
	}
}

function probeFreePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			const port = typeof address === 'object' && address ? address.port : 0;
			server.close(() => resolve(port));
		});
	});
}

/** Several distinct free ports. */
export async function freePorts(count: number): Promise<number[]> {
	const ports = new Set<number>();
	while (ports.size < count) ports.add(await freePort());
	return [...ports];
}

/** Whether something accepts connections on 127.0.0.1:port. */
export function portInUse(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const server = createServer();
		server.once('error', () => resolve(true));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(false)));
	});
}
