/**
 * A stand-in for the express Response that n8n hands to `webhook()`: records what the node sent. As in
 * express, `json` and `send` serialize and end the response through `end` (so a node that puts its
 * own `end` on the object sees every answer, as on n8n's), and a header set after the answer went
 * out throws as Node's does. `body` holds what the client receives (text and buffers as they are,
 * a JSON answer read back).
 */
export class FakeResponse {
	statusCode = 200;
	headersSent = false;
	body: unknown = undefined;
	readonly headers: Record<string, string> = {};
	/** Called once the node has sent its answer: express sends it to the client then, before webhook() returns. */
	onSent?: (status: number, body: unknown) => void;
	/** Settles when the answer was handed to the connection (Node's `finish`). */
	readonly finished: Promise<void>;
	private markFinished: () => void = () => {};
	/** Listeners of Node's `finish` and `close` events, each called once. */
	private readonly listeners: { finish: Array<() => void>; close: Array<() => void> } = { finish: [], close: [] };

	constructor() {
		this.finished = new Promise<void>((resolve) => (this.markFinished = resolve));
	}

	once(event: string, listener: () => void): this {
		if (event === 'finish' || event === 'close') this.listeners[event].push(listener);
		return this;
	}

	status(code: number): this {
		this.statusCode = code;
		return this;
	}

	sendStatus(code: number): this {
		return this.status(code).send(String(code));
	}

	setHeader(name: string, value: string): this {
		if (this.headersSent) throw new Error('Cannot set headers after they are sent to the client');
		this.headers[name.toLowerCase()] = String(value);
		return this;
	}

	removeHeader(name: string): void {
		if (this.headersSent) throw new Error('Cannot remove headers after they are sent to the client');
		delete this.headers[name.toLowerCase()];
	}

	header(name: string, value: string): this {
		return this.setHeader(name, value);
	}

	set(name: string, value: string): this {
		return this.setHeader(name, value);
	}

	getHeader(name: string): string | undefined {
		return this.headers[name.toLowerCase()];
	}

	type(contentType: string): this {
		return this.setHeader('content-type', contentType.includes('/') ? contentType : `text/${contentType}; charset=utf-8`);
	}

	json(body: unknown): this {
		if (!this.getHeader('content-type')) this.setHeader('content-type', 'application/json; charset=utf-8');
		return this.send(JSON.stringify(body) ?? '');
	}

	send(body?: unknown): this {
		if (body !== undefined && body !== null && typeof body === 'object' && !Buffer.isBuffer(body)) return this.json(body);
		const chunk = body === undefined || body === null ? '' : typeof body === 'string' || Buffer.isBuffer(body) ? body : String(body);
		if (typeof chunk === 'string' && !this.getHeader('content-type')) this.setHeader('content-type', 'text/html; charset=utf-8');
		this.setHeader('content-length', String(Buffer.byteLength(chunk)));
		this.end(chunk);
		return this;
	}

	write(..._args: unknown[]): boolean {
		return true;
	}

	writeHead(code: number): this {
		return this.status(code);
	}

	end(chunk?: unknown): this {
		if (this.headersSent) return this;
		const json = (this.getHeader('content-type') ?? '').includes('json');
		this.body = typeof chunk === 'function' ? undefined : json && typeof chunk === 'string' && chunk !== '' ? (JSON.parse(chunk) as unknown) : chunk === '' ? undefined : chunk;
		this.headersSent = true;
		this.onSent?.(this.statusCode, this.body);
		for (const listener of this.listeners.finish.splice(0)) listener();
		for (const listener of this.listeners.close.splice(0)) listener();
		this.markFinished();
		return this;
	}
}
