/**
 * Which n8n process made which call to the service. Every process of the cluster gets its own
 * forward proxy (`HTTP_PROXY`, a port per process), and the credential addresses the emulator as
 * `localhost` while everything else n8n talks to is `127.0.0.1` (`NO_PROXY=127.0.0.1`): so each of
 * the package's Bot API calls reaches the emulator through the proxy of the process that made it,
 * and nothing else goes through a proxy. n8n's HTTP helper honours these variables
 * (@n8n/backend-network: `proxy-from-env`, an `HttpProxyAgent` for http targets).
 *
 * Why not the emulator's own record alone: all processes share one credential and call the same
 * URL from 127.0.0.1, so the emulator cannot tell them apart. The proxy sees the call on the
 * connection of the process that opened it — no sampling, no log parsing. A call that bypassed the
 * proxies would show as a difference between the emulator's count and the proxies' count.
 */
import { Agent, createServer, request } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

import { readAll } from './proxy';

/** One Bot API call as the proxy of the calling process saw it. */
export interface ServiceCall {
	/** The cluster's name of the process that made the call (`main`, `worker-1`, `webhook-2`, …). */
	process: string;
	/** The Bot API method (last segment of `/bot<token>/<method>`). */
	method: string;
	/** The JSON body, when it was one. */
	body: Record<string, unknown>;
	/** When the request reached the proxy, and when it ended (answered or abandoned). */
	at: number;
	endedAt?: number;
	/** The service's HTTP status; 0 when the call ended without an answer (aborted long poll). */
	status?: number;
	/** The service answered, but the answer never reached the process (`dropAnswer`). */
	answerDropped?: boolean;
}

/** The host name the processes use for the service, so that their calls to it take their proxy. */
export const SERVICE_HOST_THROUGH_PROXY = 'localhost';

function jsonBody(body: Buffer): Record<string, unknown> {
	try {
		const parsed: unknown = JSON.parse(body.toString('utf8'));
		return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
	} catch {
		return {};
	}
}

export class ServiceCallRecorder {
	/** Every call, in the order the proxies received them. */
	readonly calls: ServiceCall[] = [];
	private readonly servers: Server[] = [];
	private readonly agent = new Agent({ keepAlive: false });

	/**
	 * `serviceUrl`: the service's real address (`http://127.0.0.1:<port>`). `dropAnswer`: calls whose
	 * answer is lost on the way back (the caller's connection is closed without it), as on a flaky network.
	 */
	constructor(
		private readonly serviceUrl: string,
		private readonly dropAnswer?: (call: ServiceCall, answer: Record<string, unknown>) => boolean,
	) {}

	/** The base URL the credential should hold: the service's, with the host that goes through the proxies. */
	get baseUrlThroughProxy(): string {
		const url = new URL(this.serviceUrl);
		url.hostname = SERVICE_HOST_THROUGH_PROXY;
		return url.origin;
	}

	/** Starts the proxy of process `name`; returns the environment that makes the process use it. */
	async proxyFor(name: string): Promise<NodeJS.ProcessEnv> {
		const server = createServer((req, res) => {
			this.forward(name, req, res).catch((error: unknown) => {
				if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
				res.end(`service proxy: ${error instanceof Error ? error.message : String(error)}`);
			});
		});
		await new Promise<void>((resolve, reject) => {
			server.once('error', reject);
			server.listen(0, '127.0.0.1', resolve);
		});
		this.servers.push(server);
		const address = server.address();
		const port = typeof address === 'object' && address ? address.port : 0;
		const proxy = `http://127.0.0.1:${port}`;
		// Both spellings, and npm's (proxy-from-env reads npm_config_* first; `npm run` may set them).
		return { HTTP_PROXY: proxy, http_proxy: proxy, NO_PROXY: '127.0.0.1', no_proxy: '127.0.0.1', npm_config_http_proxy: proxy, npm_config_no_proxy: '127.0.0.1' };
	}

	/** Calls of `method`, optionally only those made by processes whose name starts with `processPrefix`. */
	of(method: string, processPrefix = ''): ServiceCall[] {
		return this.calls.filter((call) => call.method === method && call.process.startsWith(processPrefix));
	}

	/** How many calls of `method` each process made. */
	countsBy(method: string): Map<string, number> {
		const counts = new Map<string, number>();
		for (const call of this.of(method)) counts.set(call.process, (counts.get(call.process) ?? 0) + 1);
		return counts;
	}

	async close(): Promise<void> {
		await Promise.all(
			this.servers.map(
				(server) =>
					new Promise<void>((resolve) => {
						server.close(() => resolve());
						server.closeAllConnections();
					}),
			),
		);
		this.agent.destroy();
	}

	private async forward(name: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
		// A forward proxy gets the absolute URL (http://localhost:<port>/bot<token>/<method>).
		const asked = new URL(req.url ?? '/', 'http://invalid');
		if (asked.hostname !== SERVICE_HOST_THROUGH_PROXY) {
			res.writeHead(502, { 'content-type': 'text/plain' });
			res.end(`service proxy: only the service (${SERVICE_HOST_THROUGH_PROXY}) is reachable through this proxy, not ${asked.host}`);
			return;
		}
		const body = await readAll(req);
		const target = new URL(`${asked.pathname}${asked.search}`, this.serviceUrl);
		const call: ServiceCall = { process: name, method: asked.pathname.split('/').pop() ?? '', body: jsonBody(body), at: Date.now() };
		this.calls.push(call);
		await new Promise<void>((resolve) => {
			const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: target.host, 'content-length': String(body.length) };
			delete headers['proxy-connection'];
			const upstream = request(target, { method: req.method, headers, agent: this.agent }, (answer) => {
				readAll(answer).then(
					(payload) => {
						call.status = answer.statusCode ?? 502;
						call.endedAt = Date.now();
						if (this.dropAnswer?.(call, jsonBody(payload))) {
							call.answerDropped = true;
							res.destroy();
						} else if (!res.destroyed) {
							const out = { ...answer.headers };
							delete out['transfer-encoding'];
							res.writeHead(call.status, { ...out, 'content-length': String(payload.length) });
							res.end(payload);
						}
						resolve();
					},
					() => resolve(),
				);
			});
			// The caller gave up (n8n aborted its long poll, or stopped): so does the call to the service,
			// or the service would hand updates to a request nobody reads any more.
			res.on('close', () => {
				if (!res.writableFinished) {
					upstream.destroy();
					call.status ??= 0;
					call.endedAt ??= Date.now();
					resolve();
				}
			});
			upstream.on('error', () => {
				call.status ??= 0;
				call.endedAt ??= Date.now();
				if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
				res.end();
				resolve();
			});
			upstream.end(body);
		});
	}
}
