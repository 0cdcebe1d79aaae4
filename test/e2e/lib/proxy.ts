/**
 * A reverse proxy in front of n8n, as deployments put nginx or Caddy there: n8n's webhook base URL
 * (N8N_WEBHOOK_URL, WEBHOOK_URL in n8n 1.x) points at it, so the service's pushes and the copies a
 * Service Bot Trigger forwards to the other workflows of its bot (on n8n's own webhook origin) pass
 * through it. One path can be made slow: its requests wait before they reach n8n, as a listener
 * whose webhook takes that long would. Every request is recorded (path, update id, when it arrived,
 * reached n8n, was answered, or whether the caller gave up first).
 */
import { createServer, request as httpRequest } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export interface ProxiedRequest {
	path: string;
	/** The body's `update_id`, when it is an update. */
	updateId?: number;
	arrivedAt: number;
	/** When it was passed on to n8n (after its path's delay and gate). */
	passedAt?: number;
	/** When n8n's answer was sent back to the caller. */
	answeredAt?: number;
	status?: number;
	/** The caller closed the connection before n8n's answer (e.g. its timeout). */
	callerGone: boolean;
}

interface Slowness {
	delayMs: number;
	gate: Promise<void>;
}

export class SlowProxy {
	/** Where requests go on to (n8n's own address); set before the first request. */
	upstream = '';
	readonly requests: ProxiedRequest[] = [];
	private readonly slow = new Map<string, Slowness>();

	private constructor(
		private readonly server: Server,
		readonly baseUrl: string,
	) {}

	static async start(): Promise<SlowProxy> {
		const server = createServer();
		await new Promise<void>((resolve, reject) => {
			server.once('error', reject);
			server.listen(0, '127.0.0.1', () => resolve());
		});
		const address = server.address();
		const port = typeof address === 'object' && address ? address.port : 0;
		const proxy = new SlowProxy(server, `http://127.0.0.1:${port}`);
		server.on('request', (req: IncomingMessage, res: ServerResponse) => void proxy.handle(req, res));
		return proxy;
	}

	/**
	 * Requests to `path` wait `delayMs` after they arrive, and not before `gate` resolved, before they
	 * reach n8n; they reach it also when the caller gave up meanwhile (n8n would have them by then).
	 * `delayMs` 0 and no gate: fast again (requests already waiting keep their wait).
	 */
	slowDown(path: string, delayMs: number, gate: Promise<void> = Promise.resolve()): void {
		if (delayMs <= 0) this.slow.delete(path);
		else this.slow.set(path, { delayMs, gate });
	}

	/** The recorded requests to `path`. */
	to(path: string): ProxiedRequest[] {
		return this.requests.filter((entry) => entry.path === path);
	}

	async stop(): Promise<void> {
		this.server.closeAllConnections();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}

	private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		const body = Buffer.concat(chunks);
		const url = new URL(req.url ?? '/', 'http://proxy');
		const entry: ProxiedRequest = { path: url.pathname, arrivedAt: Date.now(), callerGone: false };
		try {
			const id = (JSON.parse(body.toString('utf8')) as { update_id?: unknown }).update_id;
			if (typeof id === 'number') entry.updateId = id;
		} catch {
			// not JSON: no update id
		}
		this.requests.push(entry);
		res.on('close', () => {
			if (!res.writableFinished) entry.callerGone = true;
		});

		const slowness = this.slow.get(entry.path);
		if (slowness) {
			await Promise.all([slowness.gate, new Promise((resolve) => setTimeout(resolve, slowness.delayMs))]);
		}
		entry.passedAt = Date.now();
		const headers = { ...req.headers };
		delete headers.host;
		delete headers.connection;
		headers['content-length'] = String(body.length);
		const target = new URL(req.url ?? '/', this.upstream);
		const upstream = httpRequest(target, { method: req.method, headers }, (answer) => {
			const parts: Buffer[] = [];
			answer.on('data', (chunk: Buffer) => parts.push(chunk));
			answer.on('end', () => {
				entry.status = answer.statusCode;
				if (res.destroyed) return;
				const answerHeaders = { ...answer.headers };
				delete answerHeaders.connection;
				delete answerHeaders['transfer-encoding'];
				res.writeHead(answer.statusCode ?? 502, answerHeaders);
				res.end(Buffer.concat(parts), () => {
					entry.answeredAt = Date.now();
				});
			});
		});
		upstream.on('error', (error) => {
			entry.status = 502;
			if (!res.destroyed) res.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: ${error.message}`);
		});
		upstream.end(body);
	}
}
