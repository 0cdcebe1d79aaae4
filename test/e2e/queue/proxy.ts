/**
 * The load balancer of n8n's queue-mode set-up, as n8n's docs describe it: `/webhook/*` and
 * `/webhook-waiting/*` go to the webhook processes round-robin, everything else to the main.
 * It counts what each upstream got and remembers every copy of every update it forwarded, so the
 * scenarios can prove that both webhook processes took calls and where a re-sent update went.
 * A policy may steer a webhook call to a chosen upstream and drop n8n's answer (close the caller's
 * connection once n8n has answered), so the service never gets its 2xx and sends the update again.
 */
import { Agent, createServer, request } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

const WEBHOOK_PREFIXES = ['/webhook/', '/webhook-waiting/'];

/** One copy of an update forwarded to a webhook process. */
export interface Delivery {
	/** Index of the webhook upstream it went to. */
	upstream: number;
	/** When it was forwarded (ms since epoch): tells a process from the same upstream restarted later. */
	at: number;
	/** The upstream's HTTP status, once it answered. */
	status?: number;
	/** When the upstream answered (ms since epoch). */
	answeredAt?: number;
	/** Whether n8n's answer was dropped instead of passed to the caller. */
	answerDropped: boolean;
}

export interface WebhookCall {
	path: string;
	/** `update_id` of the JSON body, when it has one. */
	updateId?: number;
	/** Earlier copies of the same update (same path and update_id). */
	earlier: readonly Delivery[];
	/** Indexes of the webhook upstreams currently in rotation. */
	upstreams: readonly number[];
}

/** Decides about one webhook call: an upstream index (default round-robin), and whether to drop n8n's answer. */
export type WebhookPolicy = (call: WebhookCall) => { upstream?: number; dropAnswer?: boolean };

/** A call of a waiting execution's resume URL (`/webhook-waiting/…`) and where it went. */
export interface WaitingCall {
	method: string;
	path: string;
	/** Index of the webhook upstream it went to. */
	upstream: number;
	/** The upstream's HTTP status, once it answered. */
	status?: number;
}

export interface UpstreamCount {
	url: string;
	requests: number;
}

/** The whole body of a request or an answer. */
export function readAll(stream: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		stream.on('data', (chunk: Buffer) => chunks.push(chunk));
		stream.on('end', () => resolve(Buffer.concat(chunks)));
		stream.on('error', reject);
	});
}

function updateIdOf(body: Buffer): number | undefined {
	try {
		const parsed: unknown = JSON.parse(body.toString('utf8'));
		if (typeof parsed === 'object' && parsed !== null && 'update_id' in parsed && typeof parsed.update_id === 'number') return parsed.update_id;
	} catch {
		// not JSON: not an update
	}
	return undefined;
}

function deliveryKey(path: string, updateId: number): string {
	return `${path.split('?')[0]} ${updateId}`;
}

export class LoadBalancer {
	/** Requests forwarded to the main. */
	readonly main: UpstreamCount = { url: '', requests: 0 };
	/** Requests forwarded to each webhook process (same order as the URLs given to `route`). */
	readonly webhooks: UpstreamCount[] = [];
	/** Every copy of every update forwarded, by `<path> <update_id>` (see `copies`). */
	readonly deliveries = new Map<string, Delivery[]>();
	/** Every call of a resume URL (`/webhook-waiting/…`), in arrival order. */
	readonly waitingCalls: WaitingCall[] = [];
	private rotation: number[] = [];
	private nextInRotation = 0;
	private readonly agent = new Agent({ keepAlive: true, maxSockets: 256 });
	private readonly server: Server;

	private constructor(private readonly policy?: WebhookPolicy) {
		this.server = createServer((req, res) => {
			this.handle(req, res).catch((error: unknown) => {
				if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
				res.end(`proxy: ${error instanceof Error ? error.message : String(error)}`);
			});
		});
	}

	/** Listens on a free 127.0.0.1 port; the upstreams are set with `route` before traffic flows. */
	static async start(policy?: WebhookPolicy): Promise<LoadBalancer> {
		const balancer = new LoadBalancer(policy);
		await new Promise<void>((resolve, reject) => {
			balancer.server.once('error', reject);
			balancer.server.listen(0, '127.0.0.1', resolve);
		});
		return balancer;
	}

	get url(): string {
		const address = this.server.address();
		return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
	}

	/** Sets the upstreams (the main's URL and the webhook processes' URLs). */
	route(mainUrl: string, webhookUrls: string[]): void {
		this.main.url = mainUrl;
		this.webhooks.splice(0, this.webhooks.length, ...webhookUrls.map((url) => ({ url, requests: 0 })));
		this.rotation = webhookUrls.map((_, index) => index);
	}

	/** Takes only these webhook processes (indexes) into the round-robin from now on. */
	useWebhooks(indexes: number[]): void {
		this.rotation = [...indexes];
	}

	/** The copies of update `updateId` forwarded for webhook `path` (e.g. `/webhook/<id>/webhook`), in arrival order. */
	copies(path: string, updateId: number): readonly Delivery[] {
		return this.deliveries.get(deliveryKey(path, updateId)) ?? [];
	}

	/** Updates pushed more than once (the service sends an update again after a failed push), with the statuses of each copy. */
	resent(): Array<{ key: string; statuses: Array<number | undefined> }> {
		return [...this.deliveries.entries()]
			.filter(([, copies]) => copies.length > 1)
			.map(([key, copies]) => ({ key, statuses: copies.map((copy) => copy.status) }));
	}

	async close(): Promise<void> {
		await new Promise<void>((resolve) => {
			this.server.close(() => resolve());
			this.server.closeAllConnections();
		});
		this.agent.destroy();
	}

	private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const path = req.url ?? '/';
		const body = await readAll(req);
		if (!WEBHOOK_PREFIXES.some((prefix) => path.startsWith(prefix))) {
			this.main.requests += 1;
			await this.forward(this.main.url, req, body, res, false);
			return;
		}
		if (this.rotation.length === 0) throw new Error('no webhook process in rotation');
		const updateId = updateIdOf(body);
		const key = updateId === undefined ? undefined : deliveryKey(path, updateId);
		const earlier = key === undefined ? [] : (this.deliveries.get(key) ?? []);
		const decision = this.policy?.({ path, updateId, earlier, upstreams: this.rotation }) ?? {};
		let upstream = decision.upstream;
		if (upstream === undefined) {
			upstream = this.rotation[this.nextInRotation % this.rotation.length];
			this.nextInRotation += 1;
		}
		const target = this.webhooks[upstream];
		if (!target) throw new Error(`no webhook upstream ${upstream}`);
		target.requests += 1;
		const delivery: Delivery = { upstream, at: Date.now(), answerDropped: decision.dropAnswer === true };
		if (key !== undefined) this.deliveries.set(key, [...earlier, delivery]);
		const waiting: WaitingCall | undefined = path.startsWith('/webhook-waiting/') ? { method: req.method ?? 'GET', path, upstream } : undefined;
		if (waiting) this.waitingCalls.push(waiting);
		delivery.status = await this.forward(target.url, req, body, res, delivery.answerDropped);
		delivery.answeredAt = Date.now();
		if (waiting) waiting.status = delivery.status;
	}

	/** Sends the request upstream and its answer back (or drops it); resolves with the upstream's status. */
	private forward(base: string, req: IncomingMessage, body: Buffer, res: ServerResponse, dropAnswer: boolean, retryOnReset = true): Promise<number> {
		const target = new URL(req.url ?? '/', base);
		return new Promise<number>((resolve, reject) => {
			const upstreamRequest = request(
				target,
				{
					method: req.method,
					headers: { ...req.headers, 'content-length': String(body.length), 'x-forwarded-for': req.socket.remoteAddress ?? '' },
					agent: this.agent,
				},
				(upstreamResponse) => {
					readAll(upstreamResponse).then((answer) => {
						const status = upstreamResponse.statusCode ?? 502;
						// A dropped answer: the caller sees its connection closed without a response.
						if (dropAnswer) {
							res.socket?.destroy();
						} else {
							const headers = { ...upstreamResponse.headers };
							delete headers['transfer-encoding'];
							res.writeHead(status, { ...headers, 'content-length': String(answer.length) });
							res.end(answer);
						}
						resolve(status);
					}, reject);
				},
			);
			upstreamRequest.on('error', (error: NodeJS.ErrnoException) => {
				// A kept-alive socket the webhook process closed as idle just as this request went out: the
				// request never reached it. Sent again on a new socket, as Node's documentation advises and
				// as a load balancer does; otherwise the service would see a 502 and push the update again.
				if (retryOnReset && upstreamRequest.reusedSocket && error.code === 'ECONNRESET') {
					this.forward(base, req, body, res, dropAnswer, false).then(resolve, reject);
					return;
				}
				reject(error);
			});
			upstreamRequest.end(body);
		});
	}
}
