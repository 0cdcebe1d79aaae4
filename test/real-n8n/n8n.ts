/**
 * A real n8n (the provisioned 2.41.1 on Node 24) in one user folder: its CLI, its server, and a
 * logged-in REST client.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { N8nInstall } from './install';
import type { Proc } from './processes';
import { freePorts, killProc, run, spawnProc, stopProc, waitFor } from './processes';

export interface Owner {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

export const DEMO_OWNER: Owner = {
	email: 'demo@service-bot.local',
	password: 'ServiceBot-demo-1',
	firstName: 'Demo',
	lastName: 'Owner',
};

/** `n8n start` (main), or the queue-mode `n8n worker` / `n8n webhook` processes. */
export type N8nCommand = 'start' | 'worker' | 'webhook';

export interface N8nOptions {
	install: N8nInstall;
	/** What `start()` runs (default `start`). A worker serves its health check on `port`. */
	command?: N8nCommand;
	/** Extra arguments of that command, e.g. `--concurrency=5`. */
	args?: string[];
	/** Name of the process in logs (default `n8n`). */
	name?: string;
	/** N8N_USER_FOLDER: n8n keeps its data in `<userFolder>/.n8n`. */
	userFolder: string;
	port: number;
	brokerPort: number;
	/** Where n8n's output goes (one file per command / server run). */
	logDir: string;
	/** Echo the server's output to our stderr. */
	echo?: boolean;
	/** Extra environment. */
	env?: NodeJS.ProcessEnv;
	/** The user folder is a copy of a prepared one (ScenarioContext): its database is migrated and the demo owner set up. */
	ownerReady?: boolean;
}

/** Any JSON value n8n answers with. */
export type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Whether an execution (as n8n's REST API lists it) has ended, by its status: n8n 1.x sets `finished`
 * a moment before the status leaves 'running'.
 */
export function hasEnded(execution: Json): boolean {
	return ['success', 'error', 'crashed', 'canceled'].includes(String(execution?.status));
}

export class N8n {
	readonly baseUrl: string;
	private server?: Proc;
	private cookie = '';
	private readonly browserId = 'service-bot-e2e';
	private runs = 0;
	private readonly lineListeners: Array<(line: string) => void> = [];

	constructor(readonly options: N8nOptions) {
		this.baseUrl = `http://127.0.0.1:${options.port}`;
		mkdirSync(options.userFolder, { recursive: true });
		mkdirSync(options.logDir, { recursive: true });
	}

	/** Two free ports (n8n, task broker) for a new instance. */
	static async ports(): Promise<{ port: number; brokerPort: number }> {
		const [port, brokerPort] = await freePorts(2);
		return { port, brokerPort };
	}

	env(): NodeJS.ProcessEnv {
		const { install, userFolder, port, brokerPort } = this.options;
		return {
			...process.env,
			PATH: `${install.nodeBinDir}:${process.env.PATH ?? ''}`,
			// Node's on-disk cache of compiled modules, beside the n8n it serves: an n8n boot is mostly
			// loading its modules (measured on 2.41.1: 6.4 s → 5.3 s a boot, every CLI command included).
			NODE_COMPILE_CACHE: join(install.cache, 'compile-cache'),
			// n8n itself: local only, quiet, nothing phoned home.
			N8N_USER_FOLDER: userFolder,
			N8N_PORT: String(port),
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_HOST: '127.0.0.1',
			N8N_PROTOCOL: 'http',
			N8N_EDITOR_BASE_URL: `http://127.0.0.1:${port}/`,
			N8N_WEBHOOK_URL: `http://127.0.0.1:${port}/`,
			N8N_SECURE_COOKIE: 'false',
			N8N_DIAGNOSTICS_ENABLED: 'false',
			N8N_PERSONALIZATION_ENABLED: 'false',
			N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
			N8N_TEMPLATES_ENABLED: 'false',
			N8N_HIRING_BANNER_ENABLED: 'false',
			N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
			N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
			N8N_RUNNERS_MODE: 'internal',
			N8N_RUNNERS_BROKER_PORT: String(brokerPort),
			N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
			N8N_LOG_LEVEL: process.env.N8N_LOG_LEVEL ?? 'info',
			N8N_LOG_OUTPUT: 'console',
			DB_TYPE: 'sqlite',
			...(this.options.command === 'worker'
				? { QUEUE_HEALTH_CHECK_ACTIVE: 'true', QUEUE_HEALTH_CHECK_PORT: String(port), N8N_WORKER_SERVER_ADDRESS: '127.0.0.1' }
				: {}),
			// The machine's npm config points native builds at Node 20's headers.
			npm_config_nodedir: join(install.nodeBinDir, '..'),
			...this.options.env,
		};
	}

	private logFile(what: string): string {
		this.runs += 1;
		return join(this.options.logDir, `${String(this.runs).padStart(2, '0')}-${what.replace(/[^a-z0-9]+/gi, '-')}.log`);
	}

	/** Runs `n8n <args>` (a CLI command boots n8n: a few seconds each). */
	async cli(args: string[], { allowFailure = false } = {}): Promise<{ code: number | null; stdout: string; output: string }> {
		const { install } = this.options;
		return await run(`n8n ${args[0]}`, install.node, [install.n8nBin, ...args], {
			env: this.env(),
			logFile: this.logFile(args[0]),
			allowFailure,
		});
	}

	/** Imports credentials / workflows (the objects are written to a file in the log folder first). */
	async importCredentials(credentials: Json[]): Promise<void> {
		const file = join(this.options.logDir, 'credentials.json');
		writeFileSync(file, JSON.stringify(credentials, null, 2));
		await this.cli(['import:credentials', `--input=${file}`]);
	}

	async importWorkflows(workflows: Json[]): Promise<void> {
		const file = join(this.options.logDir, 'workflows.json');
		writeFileSync(file, JSON.stringify(workflows, null, 2));
		await this.cli(['import:workflow', `--input=${file}`]);
	}

	/** Publishes (activates) a workflow from the CLI, as a restart will find it (n8n 1.x has no `publish:workflow`). */
	async publish(workflowId: string): Promise<void> {
		if (this.options.install.major < 2) await this.cli(['update:workflow', `--id=${workflowId}`, '--active=true']);
		else await this.cli(['publish:workflow', `--id=${workflowId}`]);
	}

	/** Saves a new workflow as the editor does; answers n8n's workflow (with its `id`). n8n 1.x needs `active` in the body. */
	async createWorkflow(workflow: Json): Promise<Json> {
		const body = this.options.install.major < 2 ? { active: false, ...workflow } : workflow;
		return await this.request('POST', '/rest/workflows', body);
	}

	/** Runs a saved workflow as the editor's "Execute workflow" does; n8n 1.x takes the workflow itself in the body. */
	async runManually(workflowId: string, body: Json): Promise<Json> {
		const workflowData = this.options.install.major < 2 ? await this.request('GET', `/rest/workflows/${workflowId}`) : undefined;
		return await this.request('POST', `/rest/workflows/${workflowId}/run`, workflowData ? { workflowData, ...body } : body);
	}

	/** Publishes (activates) a workflow through the REST API, as the editor's toggle does; fails unless it became active. */
	async activate(workflowId: string): Promise<void> {
		const workflow = await this.request('GET', `/rest/workflows/${workflowId}`);
		const result = await this.request('POST', `/rest/workflows/${workflowId}/activate`, { versionId: workflow.versionId });
		if (result.active !== true) throw new Error(`workflow ${workflowId} did not become active: ${JSON.stringify(result).slice(0, 500)}`);
	}

	/** Unpublishes (deactivates) a workflow through the REST API; fails unless it became inactive. */
	async deactivate(workflowId: string): Promise<void> {
		const result = await this.request('POST', `/rest/workflows/${workflowId}/deactivate`, {});
		if (result.active !== false) throw new Error(`workflow ${workflowId} is still active`);
	}

	/** `n8n execute --id=<id> --rawOutput`: exit code and the run data it printed, when it printed some. */
	async execute(workflowId: string): Promise<{ code: number | null; data?: Json; output: string }> {
		const result = await this.cli(['execute', `--id=${workflowId}`, '--rawOutput'], { allowFailure: true });
		const lines = result.stdout.split('\n');
		const first = lines.findIndex((line) => line.startsWith('{'));
		let data: Json;
		if (first >= 0) {
			try {
				data = JSON.parse(lines.slice(first).join('\n'));
			} catch {
				data = undefined;
			}
		}
		return { code: result.code, data, output: result.output };
	}

	/** Starts `n8n start` (or the configured command) and waits until /healthz/readiness answers 200 (and, for the main, its REST API). */
	async start(): Promise<void> {
		if (this.server && !this.server.hasExited()) throw new Error('n8n is already running');
		const { install, echo, command = 'start', args = [], name = 'n8n' } = this.options;
		const server = spawnProc(name, install.node, [install.n8nBin, command, ...args], {
			env: this.env(),
			logFile: this.logFile(command),
			echo,
		});
		for (const listener of this.lineListeners) server.onLine(listener);
		this.server = server;
		try {
			await waitFor(
				'n8n to be ready',
				async () => {
					if (server.hasExited()) throw new Error(`n8n exited while starting:\n${server.tail()}`);
					try {
						const response = await fetch(`${this.baseUrl}/healthz/readiness`);
						if (!response.ok) return false;
						// n8n 1.x is "ready" before its REST API is registered (until then it answers the editor's page).
						if (command !== 'start') return true;
						const settings = await fetch(`${this.baseUrl}/rest/settings`);
						return settings.ok && (settings.headers.get('content-type') ?? '').includes('json');
					} catch {
						return false;
					}
				},
				{ limitMs: 300_000, intervalMs: 250 },
			);
		} catch (error) {
			await this.stop();
			throw error;
		}
	}

	/** SIGTERM (n8n shuts down cleanly; it does not deactivate workflows), then whatever is left. */
	async stop(): Promise<void> {
		if (this.server) await stopProc(this.server);
		this.server = undefined;
		this.cookie = '';
	}

	/** Kills the server (SIGKILL): n8n gets no chance to shut down, its triggers are not closed. */
	async kill(): Promise<void> {
		if (this.server) await killProc(this.server);
		this.server = undefined;
		this.cookie = '';
	}

	/** Resolves when the server process exits. */
	exited(): Promise<number | null> {
		if (!this.server) return Promise.resolve(null);
		return this.server.exited;
	}

	/** The running server's process id (its process group holds what it started), if running. */
	serverPid(): number | undefined {
		return this.server && !this.server.hasExited() ? this.server.pid : undefined;
	}

	/** Calls `listener` with each line the server prints from now on (also after a restart). */
	onServerLine(listener: (line: string) => void): void {
		this.lineListeners.push(listener);
		this.server?.onLine(listener);
	}

	/** What the running (or last) server printed. */
	serverOutput(): string {
		return this.server?.output() ?? '';
	}

	serverTail(lines = 40): string {
		return this.server?.tail(lines) ?? '';
	}

	/** A request to n8n with the session cookie; answers the parsed JSON (`data` unwrapped). */
	async request(method: string, path: string, body?: unknown, { raw = false } = {}): Promise<Json> {
		const response = await this.fetch(method, path, body);
		const text = await response.text();
		if (!response.ok) throw new Error(`n8n ${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
		const json: Json = text ? JSON.parse(text) : undefined;
		return !raw && json && typeof json === 'object' && 'data' in json ? json.data : json;
	}

	async fetch(method: string, path: string, body?: unknown): Promise<Response> {
		const headers: Record<string, string> = { 'browser-id': this.browserId };
		if (this.cookie) headers.cookie = this.cookie;
		if (body !== undefined) headers['content-type'] = 'application/json';
		const response = await fetch(`${this.baseUrl}${path}`, {
			method,
			headers,
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const setCookie = response.headers.getSetCookie().find((cookie) => cookie.startsWith('n8n-auth='));
		if (setCookie) this.cookie = setCookie.split(';')[0];
		return response;
	}

	/**
	 * Creates the owner account (first start of a fresh user folder) and logs in as it. In a copy of a
	 * prepared folder (`ownerReady`) the demo owner exists: it logs in.
	 */
	async setupOwner(owner: Owner = DEMO_OWNER): Promise<void> {
		if (this.options.ownerReady && owner === DEMO_OWNER) {
			await this.login(owner);
			if (!this.cookie) throw new Error('n8n did not set a session cookie on login');
			return;
		}
		await this.request('POST', '/rest/owner/setup', owner);
		if (!this.cookie) throw new Error('n8n did not set a session cookie on owner setup');
	}

	async login(owner: Owner = DEMO_OWNER): Promise<void> {
		await this.request('POST', '/rest/login', { emailOrLdapLoginId: owner.email, password: owner.password });
	}

	/**
	 * The executions with these ids (of any workflow): status and when each was created and started. Read
	 * from n8n's list (n8n 2.x pages it with a cursor; n8n 1.x lists its newest 100, in no promised order),
	 * and one by one for an id the list left out. An id n8n does not know is missing from the answer.
	 */
	async executionTimes(ids: Iterable<string>): Promise<Map<string, { status: string; createdAt: number; startedAt: number }>> {
		const wanted = new Set(ids);
		const found = new Map<string, { status: string; createdAt: number; startedAt: number }>();
		const keep = (execution: Json): void => {
			const id = String(execution?.id);
			if (wanted.has(id)) found.set(id, { status: String(execution.status), createdAt: Date.parse(String(execution.createdAt)), startedAt: Date.parse(String(execution.startedAt)) });
		};
		for (let cursor: string | undefined; ; ) {
			const page = await this.request('GET', `/rest/executions?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
			const results = (page?.results ?? page ?? []) as Json[];
			results.forEach(keep);
			cursor = typeof page?.nextCursor === 'string' ? page.nextCursor : undefined;
			if (!cursor || results.length === 0) break;
		}
		// request() unwraps n8n's own `data` envelope; the execution's `data` is its run data.
		for (const id of wanted) if (!found.has(id)) keep(await this.request('GET', `/rest/executions/${id}`));
		return found;
	}

	/** Executions of a workflow, newest first (one page: n8n's default size, or `limit`, at most 100). */
	async executions(workflowId: string, limit?: number): Promise<Json[]> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const data = await this.request('GET', `/rest/executions?filter=${filter}${limit === undefined ? '' : `&limit=${limit}`}`);
		return (data?.results ?? data ?? []) as Json[];
	}

	/**
	 * Executions of a workflow, newest first, once there are `count` of them (at least one when not given)
	 * and every one has ended: n8n saves a run's end after its last reply reached the service, so a read
	 * right after the reply may find it still running.
	 */
	async endedExecutions(workflowId: string, count?: number): Promise<Json[]> {
		return await waitFor(
			`${count ?? 'the'} execution(s) of workflow ${workflowId} to end`,
			async () => {
				const list = await this.executions(workflowId);
				const enough = count === undefined ? list.length > 0 : list.length === count;
				return enough && list.every(hasEnded) ? list : undefined;
			},
			{ limitMs: 60_000 },
		);
	}
}
