/** A stand-in for the express Response that n8n hands to `webhook()`: records what the node sent. */
export class FakeResponse {
	statusCode = 200;
	headersSent = false;
	body: unknown = undefined;
	readonly headers: Record<string, string> = {};

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
		this.body = body;
		this.headersSent = true;
		return this;
	}

	end(body?: unknown): this {
		if (!this.headersSent) this.send(body);
		return this;
	}
}

