/** Test helpers for the emulator's own contract tests (not a test file itself). */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startEmulator } from './index';
import type { Emulator } from './index';

export interface Envelope<T = unknown> {
	ok: boolean;
	result: T;
	description?: string;
	error_code?: number;
	parameters?: { retry_after?: number };
}

export interface CallOptions {
	token?: string;
	httpMethod?: string;
	/** raw body text; when set, `body` is ignored */
	raw?: string;
	contentType?: string;
	query?: string;
	signal?: AbortSignal;
}

/**
 * One emulator for the test file, reset before each test; `onReset` receives it after every reset
 * (the demo data is new each time).
 */
export function useEmulator(onReset: (emu: Emulator) => void): void {
	let emu: Emulator | undefined;
	beforeAll(async () => {
		emu = await startEmulator();
	});
	afterAll(async () => {
		await emu?.close();
	});
	beforeEach(() => {
		if (!emu) throw new Error('the emulator did not start');
		emu.reset();
		onReset(emu);
	});
}

export function methodUrl(emu: Emulator, method: string, token: string = emu.demo.token, query = ''): string {
	return `${emu.baseUrl}/bot${encodeURIComponent(token)}/${method}${query ? `?${query}` : ''}`;
}

/** Calls a Bot API method; returns the HTTP status and the parsed envelope. */
export async function call<T = unknown>(
	emu: Emulator,
	method: string,
	body?: Record<string, unknown>,
	opts: CallOptions = {},
): Promise<{ status: number; body: Envelope<T> }> {
	const httpMethod = opts.httpMethod ?? 'POST';
	const init: RequestInit = { method: httpMethod, signal: opts.signal };
	if (httpMethod !== 'GET' && httpMethod !== 'HEAD') {
		if (opts.raw !== undefined) {
			init.body = opts.raw;
			init.headers = { 'content-type': opts.contentType ?? 'application/json' };
		} else if (body !== undefined) {
			init.body = JSON.stringify(body);
			init.headers = { 'content-type': 'application/json' };
		}
	}
	const res = await fetch(methodUrl(emu, method, opts.token ?? emu.demo.token, opts.query), init);
	const text = await res.text();
	return { status: res.status, body: JSON.parse(text) as Envelope<T> };
}

/** Calls a method and expects success; returns `result`. */
export async function ok<T = unknown>(emu: Emulator, method: string, body?: Record<string, unknown>, opts?: CallOptions): Promise<T> {
	const r = await call<T>(emu, method, body, opts);
	if (r.status !== 200 || r.body.ok !== true) {
		throw new Error(`${method} failed: ${r.status} ${JSON.stringify(r.body)}`);
	}
	return r.body.result;
}

/** Calls a method and expects an error with this code (and description matching `desc`). */
export async function fails(
	emu: Emulator,
	method: string,
	body: Record<string, unknown> | undefined,
	code: number,
	desc?: RegExp,
	opts?: CallOptions,
): Promise<Envelope> {
	const r = await call(emu, method, body, opts);
	if (r.status !== code || r.body.ok !== false || r.body.error_code !== code || (desc && !desc.test(r.body.description ?? ''))) {
		throw new Error(`${method}: expected ${code}${desc ? ` ${String(desc)}` : ''}, got ${r.status} ${JSON.stringify(r.body)}`);
	}
	return r.body;
}

export interface ReceivedPush {
	headers: IncomingHttpHeaders;
	body: Record<string, unknown>;
	at: number;
	status: number;
}

/** A tiny local webhook receiver. `respond` decides the status per request (default 200). */
export interface Receiver {
	url: string;
	/** pushes answered with 2xx */
	received: ReceivedPush[];
	/** every push request, whatever the answer */
	all: ReceivedPush[];
	/** concurrent requests right now / maximum seen */
	concurrent: number;
	maxConcurrent: number;
	respond: (req: IncomingMessage, n: number) => number | Promise<number>;
	close(): Promise<void>;
}

export async function startReceiver(path = '/hook'): Promise<Receiver> {
	let n = 0;
	const r: Receiver = {
		url: '',
		received: [],
		all: [],
		concurrent: 0,
		maxConcurrent: 0,
		respond: () => 200,
		close: async () => undefined,
	};
	const server: Server = createServer((req, res) => {
		r.concurrent += 1;
		r.maxConcurrent = Math.max(r.maxConcurrent, r.concurrent);
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			n += 1;
			const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
			void Promise.resolve(r.respond(req, n)).then((status) => {
				const push = { headers: req.headers, body, at: Date.now(), status };
				r.all.push(push);
				if (status >= 200 && status < 300) r.received.push(push);
				r.concurrent -= 1;
				res.writeHead(status, { 'content-type': 'text/plain' });
				res.end('ok');
			});
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
	r.close = () =>
		new Promise<void>((resolve) => {
			server.close(() => resolve());
			server.closeAllConnections();
		});
	return r;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function inlineKeyboard(rows: number, perRow: number, make?: (r: number, c: number) => Record<string, unknown>): Record<string, unknown> {
	return {
		inline_keyboard: Array.from({ length: rows }, (_, r) => Array.from({ length: perRow }, (_, c) => (make ? make(r, c) : { text: `b${r}.${c}`, callback_data: `d${r}.${c}` }))),
	};
}
