/**
 * What the soak runs against: n8n in regular mode (one process, restarted again and again) or a queue-mode
 * cluster (./queue.ts). The soak itself (./soak.ts) only publishes workflows through `api`, asks for
 * restarts, and asks which process sent each reply; the targets know their processes.
 */
import { join } from 'node:path';

import type { N8nInstall } from '../../real-n8n/install';
import { installPackage } from '../../real-n8n/install';
import { N8n } from '../../real-n8n/n8n';
import { waitFor } from '../../real-n8n/processes';
import type { ProcessWindow, Reply } from './figures';

export type SoakMode = 'regular' | 'queue';

/** One restart: which process (its role), by which signal, when, how long it took to exit and to be ready again. */
export interface RestartRecord {
	role: string;
	by: 'SIGTERM' | 'SIGKILL';
	atSecond: number;
	exitSeconds: number;
	downSeconds: number;
}

export interface SoakTarget {
	readonly mode: SoakMode;
	/** Every process, each lifetime apart, in the order they were started (figures.ts). */
	readonly processes: ProcessWindow[];
	/** Starts n8n (or the cluster) with an owner set up; `serviceUrl` is the emulator's address. */
	start(serviceUrl: string): Promise<void>;
	/** The process whose REST API publishes workflows (the main). */
	api(): N8n;
	/** The base URL the credential gives for the service (queue mode: through the calling process's proxy). */
	serviceBaseUrl(serviceUrl: string): string;
	/** Restarts at the least in a run: every kind of restart once. */
	minimumRestarts(killOnce: boolean): number;
	/** Whether restart `k` is a kill that comes right after a burst of updates (its part sent at once) rather than in the steady flow. */
	killsMidBurst(k: number, killOnce: boolean): boolean;
	/**
	 * How long after `restart` n8n may still hand back runs that restart lost, to be run again (queue mode: a
	 * worker's stalled jobs); the soak waits for replies at least that long after it. 0: nothing comes later.
	 */
	lateRunsWithinMs(restart: RestartRecord): number;
	/** Restart number `k` (from 1): signals one process, waits until it is gone and until its next one is ready. */
	restart(k: number, killOnce: boolean, runStartedAt: number): Promise<RestartRecord>;
	/** The index of the process that received a reply's update, when the target places it itself (figures.ts places it by time otherwise). */
	receiverOf(reply: Reply): number | undefined;
	/** The index of the process that sent the reply whose whole text is `sent` (queue mode, from each process's calls); undefined when not known. */
	runnerOf(sent: string): number | undefined;
	/** The folders holding n8n's logs. */
	logDirs(): string[];
	/** More raw records of the run for records.json (queue mode: the executions in Postgres, each process's calls). */
	records(): Promise<Record<string, unknown>>;
	stop(): Promise<void>;
}

/** SIGTERM to the n8n process itself, as `docker stop` does (its graceful shutdown gets its 30 s and more), then whatever it started. */
export async function terminate(n8n: N8n): Promise<void> {
	const pid = n8n.serverPid();
	if (pid !== undefined) {
		process.kill(pid, 'SIGTERM');
		await waitFor(
			'n8n to exit after SIGTERM',
			() => {
				try {
					process.kill(pid, 0);
					return false;
				} catch {
					return true;
				}
			},
			{ limitMs: 90_000, intervalMs: 100 },
		);
	}
	await n8n.stop(); // what it started (its task runner), if anything is left
}

/** Signals a process (the kill: its whole process group), starts it again, and records both lifetimes. */
export async function restartProcess(n8n: N8n, by: 'SIGTERM' | 'SIGKILL', current: ProcessWindow, processes: ProcessWindow[], runStartedAt: number): Promise<RestartRecord> {
	current.stoppedBy = by;
	current.signalAt = Date.now();
	if (by === 'SIGKILL') await n8n.kill();
	else await terminate(n8n);
	current.exitedAt = Date.now();
	const next: ProcessWindow = { ...(current.role === undefined ? {} : { role: current.role }), startedAt: Date.now(), readyAt: 0 };
	processes.push(next);
	await n8n.start();
	next.readyAt = Date.now();
	return {
		role: current.role ?? 'n8n',
		by,
		atSecond: Math.round((current.signalAt - runStartedAt) / 1000),
		exitSeconds: (current.exitedAt - current.signalAt) / 1000,
		downSeconds: (next.readyAt - current.signalAt) / 1000,
	};
}

/** n8n 2.41.1 in regular mode: one process on SQLite, restarted in the same user folder; the second restart is the kill. */
export class RegularTarget implements SoakTarget {
	readonly mode = 'regular';
	readonly processes: ProcessWindow[] = [];
	private n8n?: N8n;

	constructor(
		private readonly dir: string,
		private readonly install: N8nInstall,
		private readonly tarball: string,
	) {}

	async start(): Promise<void> {
		const userFolder = join(this.dir, 'user');
		await installPackage(this.tarball, userFolder, this.install);
		this.n8n = new N8n({ install: this.install, userFolder, logDir: join(this.dir, 'logs'), ...(await N8n.ports()) });
		const window: ProcessWindow = { startedAt: Date.now(), readyAt: 0 };
		this.processes.push(window);
		await this.n8n.start();
		window.readyAt = Date.now();
		await this.n8n.setupOwner();
	}

	api(): N8n {
		if (!this.n8n) throw new Error('n8n was not started');
		return this.n8n;
	}

	serviceBaseUrl(serviceUrl: string): string {
		return serviceUrl;
	}

	minimumRestarts(killOnce: boolean): number {
		return killOnce ? 2 : 1;
	}

	/** The regular-mode soak (measured since issue 39) kills in the steady flow. */
	killsMidBurst(): boolean {
		return false;
	}

	/** One process: what it lost is fetched again by the next one, which the quiet wait covers. */
	lateRunsWithinMs(): number {
		return 0;
	}

	async restart(k: number, killOnce: boolean, runStartedAt: number): Promise<RestartRecord> {
		return await restartProcess(this.api(), killOnce && k === 2 ? 'SIGKILL' : 'SIGTERM', this.processes[this.processes.length - 1], this.processes, runStartedAt);
	}

	/** One process at a time: the reply belongs to the process that ran when its execution was created (figures.ts). */
	receiverOf(): number | undefined {
		return undefined;
	}

	runnerOf(): number | undefined {
		return undefined;
	}

	logDirs(): string[] {
		return [join(this.dir, 'logs')];
	}

	async records(): Promise<Record<string, unknown>> {
		return {};
	}

	async stop(): Promise<void> {
		await this.n8n?.stop();
		const last = this.processes[this.processes.length - 1];
		if (last && last.exitedAt === undefined) last.exitedAt = Date.now();
	}
}
