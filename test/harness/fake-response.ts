/**
 * A stand-in for the express Response that n8n hands to `webhook()`: records what the node sent. As
 * express does, an object is serialized (its `toJSON` called) when it is sent, not later: `body` holds
 * what the client receives (text and buffers as they are, anything else as its JSON read back).
 *
 * Like Node's, it emits 'finish' and 'close' once sent, and has a `socket` (the connection, shared
 * with the request): what is written on it directly (a complete HTTP answer) reaches the client too,
 * and after the connection is ended nothing sent through the response reaches it.
 */
import { EventEmitter } from 'node:events';

/** The connection of one request: the server it came to, and what was written on it directly. */
export class FakeConnection {
	/** `server.listening`: false once n8n has closed its server (it is shutting down). */
	server = { listening: true };
	destroyed = false;
	/** What was written on the connection directly, as the client reads it. */
	raw?: { status: number; body: unknown };
	constructor(private readonly response: FakeResponse) {}

	write(data: string): boolean {
		if (this.destroyed) return false;
		const [head, ...rest] = String(data).split('\r\n\r\n');
		const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
		const text = rest.join('\r\n\r\n');
		let body: unknown = text;
		try {
			body = text === '' ? undefined : (JSON.parse(text) as unknown);
		} catch {
			// Not JSON: kept as text.
		}
		this.raw = { status, body };
		this.response.onSent?.(status, body);
		return true;
	}

	destroySoon(): void {
		this.end();
	}

	end(): void {
		if (this.destroyed) return;
		this.destroyed = true;
		this.response.emit('close');
	}
}

export class FakeResponse extends EventEmitter {
	statusCode = 200;
	headersSent = false;
	writableEnded = false;
	body: unknown = undefined;
	readonly headers: Record<string, string> = {};
	readonly socket = new FakeConnection(this);
	/** Called once the node has sent its answer: express sends it to the client then, before webhook() returns. */
	onSent?: (status: number, body: unknown) => void;

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
		this.setHeader('content-type', 'application/json; charset=utf-8');
		return this.send(body);
	}

	send(body?: unknown): this {
		if (this.headersSent) throw new Error('Test harness: the response was already sent');
		this.body = body === undefined || body === null || typeof body === 'string' || Buffer.isBuffer(body) ? body : (JSON.parse(JSON.stringify(body)) as unknown);
		this.headersSent = true;
		this.writableEnded = true;
		// A connection already ended carries nothing more (the client has its answer, or is gone).
		if (!this.socket.destroyed) this.onSent?.(this.statusCode, this.body);
		this.emit('finish');
		this.emit('close');
		return this;
	}

	end(body?: unknown): this {
		if (!this.headersSent) this.send(body);
		return this;
	}
}
