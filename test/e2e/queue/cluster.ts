/**
 * n8n 2.41.1 in queue mode, as its docs describe a distributed set-up: Postgres, Redis, one main
 * (`n8n start`), workers (`n8n worker`), webhook processes (`n8n webhook`) sharing one encryption
 * key, and a load balancer in front. Each process has its own user folder with the package
 * installed, as separate machines would. Everything listens on 127.0.0.1 on free ports and is
 * stopped by process id when the scenario ends (ScenarioContext.defer).
 */
import { randomBytes } from 'node:crypto';

import type { ScenarioContext } from '../lib/context';
import type { N8n } from '../../real-n8n/n8n';
import type { ServiceCall } from './outbound';
import { ServiceCallRecorder } from './outbound';
import { LoadBalancer } from './proxy';
import type { WebhookPolicy } from './proxy';
import { Postgres, Redis } from './services';

/** Jobs a worker runs at once (`n8n worker --concurrency`). */
export const WORKER_CONCURRENCY = 5;

export interface ClusterOptions {
	workers?: number;
	webhooks?: number;
	/** Steers webhook calls / drops answers at the load balancer. */
	policy?: WebhookPolicy;
	/**
	 * The service's URL: record which process makes which call to it (./outbound.ts). The credential
	 * must then use `cluster.serviceCalls.baseUrlThroughProxy` as its base URL.
	 */
	recordCallsTo?: string;
	/** With `recordCallsTo`: calls to the service whose answer the process never gets. */
	dropServiceAnswer?: (call: ServiceCall, answer: Record<string, unknown>) => boolean;
	/** Extra environment of the webhook processes (the bench's CPU profiles, a database pool). */
	webhookEnv?: NodeJS.ProcessEnv;
	/** Extra environment of the workers (a database pool). */
	workerEnv?: NodeJS.ProcessEnv;
}

/** One line of n8n's JSON log output (N8N_LOG_FORMAT=json). */
interface LogLine {
	message?: string;
	metadata?: { executionId?: string; workerId?: string };
	[key: string]: unknown;
}

function parseLogLine(line: string): LogLine | undefined {
	if (!line.startsWith('{')) return undefined;
	try {
		return JSON.parse(line) as LogLine;
	} catch {
		return undefined;
	}
}

export class QueueCluster {
	/**
	 * Execution id → the worker processes (names) that logged "Worker started execution <id>", in order
	 * (an execution that waited and resumed is started again).
	 */
	readonly startedBy = new Map<string, string[]>();
	/**
	 * Execution id → the host id of the worker that finished it, as the main recorded it. In a container,
	 * n8n makes the host id `worker-<hostname>`, the same for every worker on one machine: this proves
	 * that a worker ran it, `startedBy` which one.
	 */
	readonly finishedOn = new Map<string, string>();

	private constructor(
		readonly postgres: Postgres,
		readonly redis: Redis,
		readonly database: string,
		readonly proxy: LoadBalancer,
		readonly main: N8n,
		readonly workers: N8n[],
		readonly webhooks: N8n[],
		/** Which process made which call to the service, when `recordCallsTo` was given. */
		readonly serviceCalls?: ServiceCallRecorder,
	) {}

	static async start(ctx: ScenarioContext, options: ClusterOptions = {}): Promise<QueueCluster> {
		const { workers = 2, webhooks = 2 } = options;
		const postgres = await Postgres.start(ctx.dir);
		ctx.defer(() => postgres.stop());
		const redis = await Redis.start(ctx.dir);
		ctx.defer(() => redis.stop());
		const database = await postgres.createDatabase();
		ctx.log(`Postgres on port ${postgres.port} (database ${database}), Redis on port ${redis.port}`);
		const proxy = await LoadBalancer.start(options.policy);
		ctx.defer(() => proxy.close());

		const shared: NodeJS.ProcessEnv = {
			...postgres.env(database),
			...redis.env(),
			EXECUTIONS_MODE: 'queue',
			N8N_ENCRYPTION_KEY: randomBytes(24).toString('hex'),
			// Users and the service reach n8n through the load balancer only.
			N8N_WEBHOOK_URL: `${proxy.url}/`,
			N8N_EDITOR_BASE_URL: `${proxy.url}/`,
			// The main's line "Execution <id> (job <n>) finished" carries the worker's id in JSON logs.
			N8N_LOG_FORMAT: 'json',
			OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
		};
		let serviceCalls: ServiceCallRecorder | undefined;
		if (options.recordCallsTo) {
			const recorder = new ServiceCallRecorder(options.recordCallsTo, options.dropServiceAnswer);
			ctx.defer(() => recorder.close());
			serviceCalls = recorder;
		}
		const envOf = async (name: string): Promise<NodeJS.ProcessEnv> => ({ ...shared, ...(await serviceCalls?.proxyFor(name)) });

		// The main takes no production webhook calls: that is the webhook processes' job.
		const main = await ctx.n8n({ name: 'main', env: { ...(await envOf('main')), N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true' } });
		const workerProcs: N8n[] = [];
		for (let i = 1; i <= workers; i += 1) {
			const name = `worker-${i}`;
			workerProcs.push(await ctx.n8n({ name, command: 'worker', args: [`--concurrency=${WORKER_CONCURRENCY}`], env: { ...(await envOf(name)), ...options.workerEnv } }));
		}
		const webhookProcs: N8n[] = [];
		for (let i = 1; i <= webhooks; i += 1) {
			const name = `webhook-${i}`;
			webhookProcs.push(await ctx.n8n({ name, command: 'webhook', env: { ...(await envOf(name)), ...options.webhookEnv } }));
		}
		proxy.route(
			main.baseUrl,
			webhookProcs.map((webhook) => webhook.baseUrl),
		);
		const cluster = new QueueCluster(postgres, redis, database, proxy, main, workerProcs, webhookProcs, serviceCalls);
		// At the scenario's end, all side by side (this runs before each process's own clean-up, a no-op
		// then): a webhook process of 2.41.1 can wait out stopProc's 20 s grace for executions it still
		// counts as active though their jobs finished ("Waiting for 3 active executions to finish...", queue
		// scenario 1), and one after the other two such stops cost 40 s.
		ctx.defer(async () => {
			await Promise.all(cluster.all().map(async (n8n) => await n8n.stop()));
		});
		for (const n8n of [main, ...workerProcs, ...webhookProcs]) cluster.watchLog(n8n);

		// The main migrates the fresh database: the others start once it is ready.
		await main.start();
		ctx.log(`main ready at ${main.baseUrl}`);
		await Promise.all([...workerProcs, ...webhookProcs].map((n8n) => n8n.start()));
		ctx.log(`${workers} worker(s) and ${webhooks} webhook process(es) ready; load balancer at ${proxy.url}`);
		return cluster;
	}

	/** Every n8n process of the cluster, the main first. */
	all(): N8n[] {
		return [this.main, ...this.workers, ...this.webhooks];
	}

	/** The name a process was given (`main`, `worker-1`, …). */
	static nameOf(n8n: N8n): string {
		return n8n.options.name ?? 'n8n';
	}

	/** Stops a process and starts it again (same user folder, ports and environment). */
	async restart(n8n: N8n): Promise<void> {
		await n8n.stop();
		await n8n.start();
	}

	private watchLog(n8n: N8n): void {
		const name = QueueCluster.nameOf(n8n);
		n8n.onServerLine((text) => {
			const line = parseLogLine(text);
			const message = line?.message ?? '';
			const started = /^Worker started execution (\d+)/.exec(message);
			if (started) this.startedBy.set(started[1], [...(this.startedBy.get(started[1]) ?? []), name]);
			const finished = /^Execution (\d+) \(job \S+\) finished/.exec(message);
			const workerId = line?.metadata?.workerId;
			if (finished && typeof workerId === 'string' && n8n === this.main) this.finishedOn.set(finished[1], workerId);
		});
	}

	/** Executions of a workflow as stored in Postgres: id, status, mode. */
	async executions(workflowId: string): Promise<Array<{ id: string; status: string; mode: string }>> {
		const rows = await this.postgres.query(
			this.database,
			`SELECT id, status, mode FROM execution_entity WHERE "workflowId" = '${workflowId.replace(/'/g, "''")}' ORDER BY id`,
		);
		return rows.map(([id, status, mode]) => ({ id, status, mode }));
	}

	/**
	 * A workflow's executions with when n8n created each (ms since epoch) and their stored data (as
	 * `executionData` gives it; '' when none), in one query.
	 */
	async executionsWithData(workflowId: string): Promise<Array<{ id: string; status: string; createdAt: number; data: string }>> {
		const rows = await this.postgres.query(
			this.database,
			`SELECT e.id, e.status, (EXTRACT(EPOCH FROM e."createdAt") * 1000)::bigint, COALESCE(d.data, '') FROM execution_entity e LEFT JOIN execution_data d ON d."executionId" = e.id WHERE e."workflowId" = '${workflowId.replace(/'/g, "''")}' ORDER BY e.id`,
		);
		return rows.map(([id, status, createdAt, ...data]) => ({ id, status, createdAt: Number(createdAt), data: data.join('\t') }));
	}

	/** The stored data of one execution (n8n's serialized run data, with the trigger's item, as psql prints it), '' when none. */
	async executionData(id: string): Promise<string> {
		const rows = await this.postgres.query(this.database, `SELECT data FROM execution_data WHERE "executionId" = '${id.replace(/'/g, "''")}'`);
		return rows.map((cells) => cells.join('\t')).join('\n');
	}

	/** One execution as stored in Postgres: status, whether it finished, and until when it waits ('' when it does not). */
	async execution(id: string): Promise<{ status: string; finished: boolean; waitTill: string } | undefined> {
		const rows = await this.postgres.query(
			this.database,
			`SELECT status, finished, COALESCE("waitTill"::text, '') FROM execution_entity WHERE id = '${id.replace(/'/g, "''")}'`,
		);
		if (rows.length === 0) return undefined;
		const [[status, finished, waitTill]] = rows;
		return { status, finished: finished === 't', waitTill };
	}
}
