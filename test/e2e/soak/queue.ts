/**
 * The soak in queue mode: the queue e2e suite's cluster (../queue/cluster.ts: Postgres and Redis on free
 * ports, a main, two workers, one webhook process, the load balancer), restarted one process at a time,
 * in turn the main, a worker, the webhook process; with --kill-once a worker and the webhook process are
 * SIGKILLed once each. "Twice within one process" is counted against the process that received the update
 * and holds the duplicate window (the webhook process, or the main for the polling trigger), not the worker
 * that ran it: a push sent again to a restarted webhook process may well run on the same worker again.
 */
import { join } from 'node:path';

import type { N8nInstall } from '../../real-n8n/install';
import type { N8n } from '../../real-n8n/n8n';
import { ScenarioContext } from '../lib/context';
import { QueueCluster } from '../queue/cluster';
import type { ProcessWindow, Reply } from './figures';
import type { RestartRecord, SoakTarget } from './target';
import { restartProcess } from './target';

const WORKERS = 2;

/**
 * Restart `k` (from 1): which process and which signal. With --kill-once the first five are SIGTERM to the
 * main, worker-1 and the webhook process, then SIGKILL to worker-2 and to the webhook process; afterwards
 * (and without --kill-once from the start) SIGTERM in turn to the main, a worker (alternating), the webhook process.
 */
export function queueRestart(k: number, killOnce: boolean): { role: 'main' | 'worker' | 'webhook'; worker: number; by: 'SIGTERM' | 'SIGKILL' } {
	if (killOnce && k === 4) return { role: 'worker', worker: 1, by: 'SIGKILL' };
	if (killOnce && k === 5) return { role: 'webhook', worker: 0, by: 'SIGKILL' };
	const j = killOnce && k > 5 ? k - 2 : k;
	const role = (['main', 'worker', 'webhook'] as const)[(j - 1) % 3];
	return { role, worker: Math.floor((j - 1) / 3) % WORKERS, by: 'SIGTERM' };
}

export class QueueTarget implements SoakTarget {
	readonly mode = 'queue';
	readonly processes: ProcessWindow[] = [];
	private readonly ctx: ScenarioContext;
	private cluster?: QueueCluster;

	/** `receiver`: the process that takes the bot's updates (`webhook-1` for pushes, `main` for the polling trigger). */
	constructor(
		dir: string,
		install: N8nInstall,
		tarball: string,
		private readonly receiver: 'webhook-1' | 'main',
	) {
		this.ctx = new ScenarioContext(install, tarball, dir, join(dir, 'screenshots'));
	}

	async start(serviceUrl: string): Promise<void> {
		const startedAt = Date.now();
		this.cluster = await QueueCluster.start(this.ctx, { workers: WORKERS, webhooks: 1, recordCallsTo: serviceUrl });
		const readyAt = Date.now();
		for (const n8n of this.cluster.all()) this.processes.push({ role: QueueCluster.nameOf(n8n), startedAt, readyAt });
		await this.cluster.main.setupOwner();
	}

	private started(): QueueCluster {
		if (!this.cluster) throw new Error('the cluster was not started');
		return this.cluster;
	}

	api(): N8n {
		return this.started().main;
	}

	serviceBaseUrl(): string {
		const calls = this.started().serviceCalls;
		if (!calls) throw new Error('the cluster records no calls');
		return calls.baseUrlThroughProxy;
	}

	minimumRestarts(killOnce: boolean): number {
		return killOnce ? 5 : 3;
	}

	killsMidBurst(k: number, killOnce: boolean): boolean {
		return queueRestart(k, killOnce).by === 'SIGKILL';
	}

	/**
	 * A worker's jobs it never finished end in the main up to about 120 s after it stopped (n8n 2.41.1: its
	 * Bull lock lasts 60 s from the last renewal, the stall check runs every 30 s, then the main rechecks
	 * the execution for 30 s; workflow-runner.js `processError`), and the Polling Trigger runs their
	 * updates again then: 150 s leaves the run again time to reply (a seed-3 run with only the 60 s quiet
	 * wait stopped the main 6-8 s before three such runs ended, counting 3 replies lost).
	 */
	lateRunsWithinMs(restart: RestartRecord): number {
		return restart.role.startsWith('worker') ? 150_000 : 0;
	}

	async restart(k: number, killOnce: boolean, runStartedAt: number): Promise<RestartRecord> {
		const cluster = this.started();
		const { role, worker, by } = queueRestart(k, killOnce);
		const n8n = role === 'main' ? cluster.main : role === 'worker' ? cluster.workers[worker] : cluster.webhooks[0];
		const name = QueueCluster.nameOf(n8n);
		const current = [...this.processes].reverse().find((p) => p.role === name);
		if (!current) throw new Error(`no process ${name}`);
		const record = await restartProcess(n8n, by, current, this.processes, runStartedAt);
		// The REST session does not survive the main's restart.
		if (role === 'main') await cluster.main.login();
		return record;
	}

	/**
	 * The lifetime of the receiving process that ran when the reply's execution was created (it created it;
	 * a worker ran it), or, without that time, the one that started last before the reply arrived. Which
	 * worker made each call is in the records (`serviceCalls`, from each process's proxy).
	 */
	receiverOf(reply: Reply): number | undefined {
		const at = reply.createdAt ?? reply.at;
		let index = -1;
		for (const [i, p] of this.processes.entries()) if (p.role === this.receiver && p.startedAt <= at) index = i;
		return index;
	}

	/** The lifetime of the process whose proxy carried the sendMessage with this whole text (the worker that ran the execution). */
	runnerOf(sent: string): number | undefined {
		const call = (this.started().serviceCalls?.calls ?? []).find((made) => made.method === 'sendMessage' && made.body.text === sent);
		if (!call) return undefined;
		let index: number | undefined;
		for (const [i, p] of this.processes.entries()) if (p.role === call.process && p.startedAt <= call.at) index = i;
		return index;
	}

	logDirs(): string[] {
		return this.started()
			.all()
			.map((n8n) => n8n.options.logDir);
	}

	/**
	 * Every execution as Postgres holds it, the run data of those that did not succeed (to find why a reply
	 * is missing), and which process made which call to the service.
	 */
	async records(): Promise<Record<string, unknown>> {
		const cluster = this.started();
		const rows = await cluster.postgres.query(
			cluster.database,
			`SELECT e.id, w.name, e.status, e.mode, e."createdAt", e."startedAt", e."stoppedAt" FROM execution_entity e JOIN workflow_entity w ON w.id = e."workflowId" ORDER BY e.id`,
		);
		const list = rows.map(([id, workflow, status, mode, createdAt, startedAt, stoppedAt]) => ({ id, workflow, status, mode, createdAt, startedAt, stoppedAt }));
		const failed = [];
		for (const execution of list.filter((e) => e.status !== 'success').slice(0, 50)) {
			failed.push({ ...execution, data: (await cluster.executionData(execution.id)).slice(0, 4000) });
		}
		const serviceCalls = (cluster.serviceCalls?.calls ?? []).map(({ process, method, at, status, body }) => ({ process, method, at, status, text: body.text }));
		return { executions: list, notSucceeded: failed, serviceCalls };
	}

	async stop(): Promise<void> {
		const now = Date.now();
		for (const p of this.processes) if (p.exitedAt === undefined && p.signalAt === undefined) p.exitedAt = now;
		await this.ctx.cleanUp();
	}
}
