/**
 * A stand-in for the express Response that n8n hands to `webhook()`: records what the node sent. As
 * express does, an object is serialized (its `toJSON` called) when it is sent, not later: `body` holds
 * what the client receives (text and buffers as they are, anything else as its JSON read back).
 */
export class FakeResponse {
	statusCode = 200;
	headersSent = false;
	body: unknown = undefined;
	readonly headers: Record<string, string> = {};
	/** Called once the node has sent its answer: express sends it to the client then, before webhook() returns. */
	onSent?: (status: number, body: unknown) => void;
	/** Listeners of Node's `finish` event (the answer handed to the connection), each called once. */
	private readonly finishListeners: Array<() => void> = [];

	once(event: string, listener: () => void): this {
		if (event === 'finish') this.finishListeners.push(listener);
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
		this.onSent?.(this.statusCode, this.body);
		for (const listener of this.finishListeners.splice(0)) listener();
		return this;
	}

	end(body?: unknown): this {
		if (!this.headersSent) this.send(body);
		return this;
	}
}

