import { createServer, STATUS_CODES } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GET_METHODS } from '../spec';
import { Chaos } from './chaos';
import type { ChaosOptions } from './chaos';
import { chatActionText, chatPage } from './chat-page';
import { USER_FILE_LIMIT_BYTES, oversizedBody } from './files';
import { Described, buildHandlers } from './methods';
import { UPLOAD_LIMIT_BYTES, UploadedFile, parseMultipart } from './multipart';
import { Params } from './params';
import type { ParamSource } from './params';
import { World } from './state';
import type { BotRecord, DemoData, UserMedia, UserMessage } from './state';
import type { CallbackAnswer, ChatActionRecord, ChatState, ChatType, MediaKind, MemberStatus, StoredMessage, Update } from './types';
import { ApiError, ControlError, clone, isRecord, sleep } from './util';
import { WebhookPusher } from './webhook';

export interface EmulatorOptions {
	/** default 0 = any free port */
	port?: number;
	/** default false; when true setWebhook also accepts http(s)://127.0.0.1:<any port>/... and http(s)://localhost:<any port>/... */
	allowLocalWebhooks?: boolean;
	/**
	 * the first wait before a failed push is retried, default 500; it doubles after every failed attempt
	 * (base, 2·base, 4·base, …) up to `webhookRetryMaxMs`
	 */
	webhookRetryBaseMs?: number;
	/** the longest wait between two attempts of a push, default 60000 (1 minute) */
	webhookRetryMaxMs?: number;
	/**
	 * how long an undelivered update is kept (and retried) while a webhook is set, counted from when it
	 * was queued; older ones are dropped. Default 86400000 (24 hours, Telegram's convention)
	 */
	webhookRetentionMs?: number;
	/** optional extra limit: push attempts per update before it is dropped; default none (only the retention drops updates) */
	webhookMaxAttempts?: number;
	/** timeout of one webhook push (headers and body), default 10000 */
	webhookTimeoutMs?: number;
	/** optional cap (ms) for getUpdates long-poll waits, for tests */
	longPollMaxMs?: number;
	/** host to bind, default 127.0.0.1 */
	host?: string;
	/**
	 * default false; when true every click carries only {message_id, date: 0, chat: {id, type}}, as
	 * Telegram gives a click on a message older than 48 hours (per click: `userClicks({ oldMessage: true })`)
	 */
	oldMessages?: boolean;
	/** default false; when true pushes carry the secret under Telegram's header name too (n8n's Telegram Trigger reads that one) */
	telegramSecretHeader?: boolean;
	/** default none; a share of the Bot API's answers fail at random (chaos.ts; also `POST /_emulator/chaos`) */
	chaos?: ChaosOptions;
}

export interface RecordedCall {
	seq: number;
	/** the token the call used; '' for a download (method 'file'), whose record never holds the token */
	token: string;
	/** a download (method 'file'): the bot whose token it used, when the token is one */
	botId?: string;
	/** a Bot API method, or 'file' for a download at `/file/bot<token>/<file_path>` (body `{file_path}`) */
	method: string;
	httpMethod: string;
	body: Record<string, unknown>;
	/** HTTP status answered; 0 while still pending (long poll) or when the socket was dropped without an answer */
	status: number;
	/**
	 * parsed JSON answered, or the raw text for 'malformed'/'html'/'reset' faults, null for 'drop';
	 * a download answered with the file: `{file_size, mime_type}` (the bytes sent: half of them for 'reset'/'malformed')
	 */
	response: unknown;
	at: number;
}

export type FaultKind = 'status' | 'delay' | 'hang' | 'drop' | 'reset' | 'malformed' | 'html' | 'result' | 'oversize';

export interface FaultSpec {
	kind: FaultKind;
	/** number of matching calls to affect, default 1 */
	count?: number;
	/** only calls of this method (case-insensitive); 'file' for downloads at `/file/bot<token>/<file_path>` */
	method?: string;
	/** 'status': HTTP status / error_code, default 500 */
	status?: number;
	/** 'status': parameters.retry_after; defaults to 1 for 429 */
	retryAfter?: number;
	/** 'status': description, default a Telegram-like text for the status */
	description?: string;
	/** 'delay': wait before answering normally, default 1000 */
	delayMs?: number;
	/** 'result': answer `{ok: true, result}` with this result instead (a service sending what it should not) */
	result?: unknown;
	/**
	 * 'oversize' (downloads only): the length of the body sent, the file's bytes followed by filler,
	 * chunked without a Content-Length; default twice the file's length
	 */
	bodyBytes?: number;
	/**
	 * Extension: for 'status', 'drop', 'reset', 'malformed' and 'html', also execute the method (side effects
	 * happen, e.g. the message is sent) before the broken answer. Default false: the method is not executed.
	 */
	execute?: boolean;
	/**
	 * Extension, in-process only (not through the control API): the fault applies only to calls for which
	 * this returns true; it is asked once per call that reaches this fault, in arrival order (a download
	 * is asked with its token, which its record does not keep, and `body: {file_path}`).
	 */
	when?: (call: Pick<RecordedCall, 'token' | 'method' | 'body'>) => boolean;
}

export interface WebhookView {
	url: string;
	secretToken?: string;
	maxConnections: number;
	allowedUpdates?: string[];
	pendingUpdateCount: number;
	lastError: null | { date: number; message: string };
}

export interface Emulator {
	readonly baseUrl: string;
	readonly demo: DemoData;
	/** every Bot API call received, in arrival order (not control-API calls) */
	readonly calls: RecordedCall[];
	callsTo(method: string): RecordedCall[];
	addBot(opts: { token: string; name?: string; username?: string }): { botId: string };
	addChat(opts: {
		type: ChatType;
		title?: string;
		username?: string;
		description?: string;
		members: Array<{ userId: string; status: MemberStatus }>;
	}): { chatId: string };
	addUser(opts: { firstName: string; username?: string; isBot?: boolean }): { userId: string };
	/** extension: registers a media file (with `bytes`, its content, which the chat page can open); returns its UUID */
	addMedia(opts: { kind: MediaKind; fileName?: string; mimeType?: string; bytes?: Buffer }): { mediaId: string };
	/** extension: sets (or adds) a member's status */
	setMember(opts: { chatId: string; userId: string; status: MemberStatus }): void;
	/** a user's message: `text`, or `media` (a file, kept as sent; a photo also gets smaller sizes) with an optional `caption` */
	userSends(opts: UserMessage): Promise<Update>;
	userClicks(opts: { chatId: string; userId: string; messageId: number; data: string; botToken?: string; oldMessage?: boolean }): Promise<Update>;
	/** extension: the bot gets a new token (as after a leak); the old one is refused from now on, webhook and chats stay */
	changeToken(token: string, newToken: string): void;
	history(chatId: string): StoredMessage[];
	/** extension: what the chat page shows of a chat: its messages and the bots' chat actions showing now */
	chatState(chatId: string): ChatState;
	webhookOf(token?: string): WebhookView | null;
	/** extension: undelivered updates of a bot (default demo bot) */
	pendingUpdates(token?: string): Update[];
	/** extension: answerCallbackQuery answers received, in order */
	callbackAnswers(): CallbackAnswer[];
	/** extension: sendChatAction calls that succeeded */
	chatActions(): ChatActionRecord[];
	injectFault(f: FaultSpec): void;
	clearFaults(): void;
	/**
	 * resolves when no webhook push is running or due (rejects after timeoutMs, default 15000); an update
	 * whose push keeps failing stays due until it is delivered or dropped (webhookRetentionMs, webhookMaxAttempts)
	 */
	idle(timeoutMs?: number): Promise<void>;
	reset(): void;
	close(): Promise<void>;
}

interface ActiveFault extends FaultSpec {
	remaining: number;
}

const HTML_502 =
	'<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

const MAX_BODY = 20 * 1024 * 1024;

/** A control-API body: a file users send, base64-encoded (4 characters per 3 bytes), and the other fields. */
const MAX_CONTROL_BODY = Math.ceil(USER_FILE_LIMIT_BYTES / 3) * 4 + 1024 * 1024;

/** Bot API methods that also answer GET: the spec's, and getFile (Telegram answers GET for every method; clients call getFile so). */
const GET_ALSO: readonly string[] = [...GET_METHODS, 'getFile'];

const NOT_FOUND = { ok: false, error_code: 404, description: 'Not Found' };

function defaultDescription(status: number, retryAfter?: number): string {
	if (status === 429) return `Too Many Requests: retry after ${retryAfter ?? 1}`;
	if (status === 400) return 'Bad Request';
	if (status === 401) return 'Unauthorized';
	if (status === 403) return 'Forbidden';
	if (status === 404) return 'Not Found';
	if (status === 409) return 'Conflict';
	return STATUS_CODES[status] ?? 'Error';
}

/**
 * The whole body; over `limit` it is read to its end and refused with 413, as the service's front
 * server does, so that the client reads the refusal instead of a broken connection.
 */
function readBody(req: IncomingMessage, limit = MAX_BODY): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		req.on('data', (c: Buffer) => {
			size += c.length;
			if (size <= limit) chunks.push(c);
		});
		req.on('end', () => (size > limit ? reject(new ApiError(413, 'Request Entity Too Large')) : resolve(Buffer.concat(chunks))));
		req.on('error', reject);
	});
}

/** An upload's body: the file within the limit, and its other fields. */
const MAX_MULTIPART_BODY = UPLOAD_LIMIT_BYTES + 1024 * 1024;

/** `contentBase64` of `POST /_emulator/media` and of a message's `media`: the file's content, or undefined when not given. */
function base64Content(value: unknown): Buffer | undefined {
	if (value === undefined) return undefined;
	if (typeof value !== 'string' || value === '' || !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) throw new ControlError('contentBase64 must be a non-empty base64 string');
	return Buffer.from(value, 'base64');
}

/** `POST /_emulator/messages`: the body as `userSends` takes it (a file's content base64-encoded in `media.contentBase64`). */
function userMessageOf(body: Record<string, unknown>): UserMessage {
	const { media, ...rest } = body;
	const message = rest as unknown as UserMessage;
	if (media === undefined) return message;
	if (!isRecord(media)) throw new ControlError('media must be an object {kind, contentBase64, fileName?, mimeType?, width?, height?, duration?}');
	const { contentBase64, ...stated } = media;
	const bytes = base64Content(contentBase64);
	if (bytes === undefined) throw new ControlError('media.contentBase64 is required: the file\'s content, base64-encoded');
	return { ...message, media: { ...(stated as unknown as Omit<UserMedia, 'bytes'>), bytes } };
}

function formToObject(s: string): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const [k, v] of new URLSearchParams(s)) out[k] = v;
	return out;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
	if (res.headersSent || res.destroyed) return;
	const text = JSON.stringify(body);
	res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
	res.end(text);
}

/**
 * `inline` (the browser shows what it can, downloads the rest) with the file name: a plain ASCII
 * fallback, and the exact name in `filename*` (RFC 6266) when it differs.
 */
function contentDisposition(fileName: string): string {
	const fallback = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
	if (fallback === fileName) return `inline; filename="${fileName}"`;
	const exact = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
	return `inline; filename="${fallback}"; filename*=UTF-8''${exact}`;
}

/**
 * The one byte range of a `Range` header (browsers ask for ranges to seek in audio and video);
 * undefined for none or for several ranges (answered with the whole file, as HTTP allows).
 */
function byteRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
	const match = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? '');
	if (!match || (match[1] === '' && match[2] === '')) return undefined;
	let start: number;
	let end: number;
	if (match[1] === '') {
		const suffix = Number(match[2]);
		if (suffix === 0) return 'unsatisfiable';
		start = Math.max(0, size - suffix);
		end = size - 1;
	} else {
		start = Number(match[1]);
		end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
	}
	return start >= size || start > end ? 'unsatisfiable' : { start, end };
}

function decodeSegment(s: string): string {
	try {
		return decodeURIComponent(s);
	} catch {
		return s;
	}
}

class EmulatorImpl implements Emulator {
	readonly world = new World();
	readonly calls: RecordedCall[] = [];
	private faults: ActiveFault[] = [];
	/** random failures of a share of the calls, after the injected faults (chaos.ts) */
	private chaos?: Chaos;
	private seq = 0;
	private readonly handlers = buildHandlers();
	private readonly methodNames = new Map<string, string>();
	readonly pusher: WebhookPusher;
	private server!: Server;
	baseUrl = '';

	constructor(private readonly options: EmulatorOptions) {
		for (const name of Object.keys(this.handlers)) this.methodNames.set(name.toLowerCase(), name);
		this.pusher = new WebhookPusher(this.world, {
			retryBaseMs: options.webhookRetryBaseMs,
			retryMaxMs: options.webhookRetryMaxMs,
			retentionMs: options.webhookRetentionMs,
			maxAttempts: options.webhookMaxAttempts,
			timeoutMs: options.webhookTimeoutMs,
			telegramSecretHeader: options.telegramSecretHeader === true,
		});
		this.world.oldMessages = options.oldMessages === true;
		if (options.chaos && options.chaos.rate > 0) this.chaos = new Chaos(options.chaos);
		this.world.onQueued = (bot) => {
			if (bot.webhook) this.pusher.kick(bot);
			else bot.poller?.wake('update');
		};
	}

	get demo(): DemoData {
		return clone(this.world.demo);
	}

	async listen(): Promise<void> {
		this.server = createServer((req, res) => {
			this.handle(req, res).catch((err: unknown) => {
				process.stderr.write(`[emulator] internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
				sendJson(res, 500, { ok: false, error_code: 500, description: 'Internal Server Error' });
			});
		});
		// Idle connections stay open 75 s, as the service's front (nginx's default) keeps them: longer than
		// any client keeps one for reuse (undici about 4 s), so a client never sends on a connection the
		// server has just dropped (Node's default, 5 s, races a reuse under load: ECONNRESET).
		this.server.keepAliveTimeout = 75_000;
		const host = this.options.host ?? '127.0.0.1';
		await new Promise<void>((resolve, reject) => {
			this.server.once('error', reject);
			this.server.listen(this.options.port ?? 0, host, () => {
				this.server.off('error', reject);
				resolve();
			});
		});
		const addr = this.server.address() as AddressInfo;
		this.baseUrl = `http://${host}:${addr.port}`;
	}

	// ---------- HTTP ----------

	private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const rawUrl = req.url ?? '/';
		const q = rawUrl.indexOf('?');
		const path = q < 0 ? rawUrl : rawUrl.slice(0, q);
		const query = q < 0 ? '' : rawUrl.slice(q + 1);
		if (path === '/_emulator' || path.startsWith('/_emulator/')) {
			await this.handleControl(req, res, path.slice('/_emulator'.length), query);
			return;
		}
		if (path.startsWith('/file/bot')) {
			await this.handleDownload(req, res, path);
			return;
		}
		if (path === '/' && (req.method ?? 'GET').toUpperCase() === 'GET') {
			// For people: the demo chats, live (chat-page.ts).
			res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
			res.end(chatPage());
			return;
		}
		if (!path.startsWith('/bot')) {
			await readBody(req).catch(() => Buffer.alloc(0));
			sendJson(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
			return;
		}
		const rest = path.slice(4);
		const slash = rest.indexOf('/');
		const token = decodeSegment(slash < 0 ? rest : rest.slice(0, slash));
		const rawMethod = decodeSegment(slash < 0 ? '' : rest.slice(slash + 1)).replace(/\/+$/, '');
		const method = this.methodNames.get(rawMethod.toLowerCase()) ?? rawMethod;
		const httpMethod = (req.method ?? 'GET').toUpperCase();

		const contentType = (req.headers['content-type'] ?? '').toLowerCase();
		const multipart = contentType.startsWith('multipart/form-data');
		let raw: Buffer;
		try {
			raw = await readBody(req, multipart ? MAX_MULTIPART_BODY : MAX_BODY);
		} catch (err) {
			if (err instanceof ApiError) sendJson(res, err.code, { ok: false, error_code: err.code, description: err.description });
			return;
		}
		let body: Record<string, unknown> = {};
		let source: ParamSource = 'json';
		let bodyError: ApiError | null = null;
		if (httpMethod === 'GET' || raw.length === 0) {
			body = formToObject(query);
			source = 'form';
		} else {
			if (contentType.startsWith('application/x-www-form-urlencoded')) {
				body = formToObject(raw.toString('utf8'));
				source = 'form';
			} else if (multipart) {
				source = 'form';
				try {
					body = parseMultipart(raw, req.headers['content-type'] ?? '');
					// The recorded call keeps an upload's name, type, size and hash; its bytes only while the request runs.
					const uploads = Object.values(body).filter((value): value is UploadedFile => value instanceof UploadedFile);
					res.once('close', () => uploads.forEach((file) => file.release()));
				} catch (err) {
					if (!(err instanceof ApiError)) throw err;
					bodyError = err;
				}
			} else {
				try {
					const parsed: unknown = JSON.parse(raw.toString('utf8'));
					if (!isRecord(parsed)) bodyError = new ApiError(400, 'Bad Request: the request body must be a JSON object');
					else body = parsed;
				} catch {
					bodyError = new ApiError(400, "Bad Request: can't parse JSON request body");
				}
			}
		}

		this.seq += 1;
		const call: RecordedCall = { seq: this.seq, token, method, httpMethod, body, status: 0, response: null, at: Date.now() };
		this.calls.push(call);
		const answer = (status: number, payload: unknown): void => {
			if (res.destroyed) return; // the client went away: nobody got an answer (status stays 0)
			call.status = status;
			call.response = payload;
			sendJson(res, status, payload);
		};

		const fault = this.takeFault(call);
		if (fault?.kind === 'hang') {
			// Neither executed nor answered: held until the client gives up or the emulator closes.
			await new Promise<void>((resolve) => res.once('close', resolve));
			return;
		}
		if (fault && fault.kind === 'delay') await sleep(fault.delayMs ?? 1000);
		if (fault?.kind === 'result') {
			answer(200, { ok: true, result: fault.result });
			return;
		}
		const broken = fault && fault.kind !== 'delay' ? fault : undefined;

		let status: number;
		let payload: unknown;
		if (broken && !broken.execute) {
			status = 200;
			payload = { ok: true, result: true };
		} else {
			const ac = new AbortController();
			res.on('close', () => {
				if (!res.writableFinished) ac.abort();
			});
			[status, payload] = await this.execute(token, method, rawMethod, httpMethod, body, source, bodyError, ac.signal);
		}
		if (!broken) {
			answer(status, payload);
			return;
		}
		this.applyFault(broken, call, res, status, payload);
	}

	private async execute(
		token: string,
		method: string,
		rawMethod: string,
		httpMethod: string,
		body: Record<string, unknown>,
		source: ParamSource,
		bodyError: ApiError | null,
		signal: AbortSignal,
	): Promise<[number, unknown]> {
		const err = (e: ApiError): [number, unknown] => {
			const out: Record<string, unknown> = { ok: false, error_code: e.code, description: e.description };
			if (e.retryAfter !== undefined) out.parameters = { retry_after: e.retryAfter };
			return [e.code, out];
		};
		const bot = this.world.bots.get(token);
		if (!bot) return err(new ApiError(401, 'Unauthorized'));
		const handler = this.handlers[method];
		if (!handler || rawMethod === '') return err(new ApiError(404, 'Not Found: method not found'));
		if (httpMethod !== 'POST' && !(httpMethod === 'GET' && GET_ALSO.includes(method))) {
			return err(new ApiError(405, `Method Not Allowed: ${method} must be called with POST${GET_ALSO.includes(method) ? ' or GET' : ''}`));
		}
		if (bodyError) return err(bodyError);
		try {
			const result = await handler({
				world: this.world,
				pusher: this.pusher,
				bot,
				params: new Params(body, source),
				allowLocalWebhooks: this.options.allowLocalWebhooks === true,
				longPollMaxMs: this.options.longPollMaxMs,
				signal,
			});
			if (result instanceof Described) return [200, { ok: true, result: result.result, description: result.description }];
			return [200, { ok: true, result }];
		} catch (e) {
			if (e instanceof ApiError) return err(e);
			throw e;
		}
	}

	private takeFault(call: RecordedCall, token = call.token): ActiveFault | undefined {
		const { method } = call;
		const f = this.faults.find(
			(x) =>
				x.remaining > 0 &&
				(x.method === undefined || x.method.toLowerCase() === method.toLowerCase()) &&
				// A body larger than the file is a download's fault only.
				(x.kind !== 'oversize' || method === 'file') &&
				(x.when === undefined || x.when({ token, method, body: call.body })),
		);
		if (!f) {
			const random = this.chaos?.faultFor(method);
			return random ? { ...random, remaining: 0 } : undefined;
		}
		f.remaining -= 1;
		this.faults = this.faults.filter((x) => x.remaining > 0);
		return f;
	}

	private applyFault(f: ActiveFault, call: RecordedCall, res: ServerResponse, status: number, payload: unknown): void {
		const text = JSON.stringify(payload);
		switch (f.kind) {
			case 'status': {
				const code = f.status ?? 500;
				const retryAfter = f.retryAfter ?? (code === 429 ? 1 : undefined);
				const out: Record<string, unknown> = { ok: false, error_code: code, description: f.description ?? defaultDescription(code, retryAfter) };
				if (retryAfter !== undefined) out.parameters = { retry_after: retryAfter };
				call.status = code;
				call.response = out;
				sendJson(res, code, out);
				return;
			}
			case 'drop':
				call.status = 0;
				call.response = null;
				res.socket?.destroy();
				return;
			case 'reset': {
				const partial = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
				call.status = status;
				call.response = partial;
				res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
				res.write(partial, () => res.socket?.destroy());
				return;
			}
			case 'malformed': {
				const broken = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
				call.status = 200;
				call.response = broken;
				res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(broken) });
				res.end(broken);
				return;
			}
			case 'html':
				call.status = 502;
				call.response = HTML_502;
				res.writeHead(502, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(HTML_502) });
				res.end(HTML_502);
				return;
			default:
				sendJson(res, status, payload);
		}
	}

	// ---------- downloads ----------

	/**
	 * `GET /file/bot<token>/<file_path>` (Telegram's download path): the bytes of a file getFile gave
	 * this bot the path of, with its MIME type and length; 404 with Telegram's JSON for a wrong or old
	 * token and any other path. Recorded as a call of method 'file' without the token, and faults of
	 * method 'file' apply.
	 */
	private async handleDownload(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
		await readBody(req).catch(() => Buffer.alloc(0));
		const httpMethod = (req.method ?? 'GET').toUpperCase();
		const rest = path.slice('/file/bot'.length);
		const slash = rest.indexOf('/');
		const token = decodeSegment(slash < 0 ? rest : rest.slice(0, slash));
		const filePath = slash < 0 ? '' : decodeSegment(rest.slice(slash + 1));
		const bot = this.world.bots.get(token);
		this.seq += 1;
		const call: RecordedCall = { seq: this.seq, token: '', method: 'file', httpMethod, body: { file_path: filePath }, status: 0, response: null, at: Date.now() };
		if (bot) call.botId = bot.id;
		this.calls.push(call);

		const fault = this.takeFault(call, token);
		if (fault?.kind === 'hang') {
			await new Promise<void>((resolve) => res.once('close', resolve));
			return;
		}
		if (fault?.kind === 'delay') await sleep(fault.delayMs ?? 1000);
		if (fault?.kind === 'result') {
			call.status = 200;
			call.response = { ok: true, result: fault.result };
			sendJson(res, 200, call.response);
			return;
		}
		const mediaId = bot && (httpMethod === 'GET' || httpMethod === 'HEAD') ? bot.files.byPath.get(filePath) : undefined;
		const media = mediaId === undefined ? undefined : this.world.media.get(mediaId);
		const content = media ? this.world.fileContent(media) : undefined;
		const broken = fault && fault.kind !== 'delay' ? fault : undefined;
		if (content === undefined || content === 'dropped') {
			if (broken) this.applyFault(broken, call, res, 404, NOT_FOUND);
			else if (!res.destroyed) {
				call.status = 404;
				call.response = NOT_FOUND;
				sendJson(res, 404, NOT_FOUND);
			}
			return;
		}
		const { bytes, mimeType } = content;
		const headers = { 'content-type': mimeType, 'content-length': bytes.length, 'x-content-type-options': 'nosniff' };
		if (broken?.kind === 'reset' || broken?.kind === 'malformed') {
			// 'reset': the full length announced, half the bytes, then the connection cut; 'malformed': half the bytes as if whole.
			const half = bytes.subarray(0, Math.floor(bytes.length / 2));
			call.status = 200;
			call.response = { file_size: half.length, mime_type: mimeType };
			res.writeHead(200, { ...headers, 'content-length': broken.kind === 'reset' ? bytes.length : half.length });
			if (broken.kind === 'reset') res.write(half, () => res.socket?.destroy());
			else res.end(half);
			return;
		}
		if (broken?.kind === 'oversize') {
			await serveOversized(res, call, bytes, mimeType, broken.bodyBytes ?? bytes.length * 2);
			return;
		}
		if (broken) {
			this.applyFault(broken, call, res, 200, null);
			return;
		}
		if (res.destroyed) return;
		call.status = 200;
		call.response = { file_size: bytes.length, mime_type: mimeType };
		res.writeHead(200, headers);
		res.end(httpMethod === 'HEAD' ? undefined : bytes);
	}

	// ---------- control API ----------

	private async handleControl(req: IncomingMessage, res: ServerResponse, path: string, query: string): Promise<void> {
		const httpMethod = (req.method ?? 'GET').toUpperCase();
		const params = new URLSearchParams(query);
		let body: Record<string, unknown> = {};
		let raw: Buffer;
		try {
			raw = await readBody(req, MAX_CONTROL_BODY);
		} catch (error) {
			if (error instanceof ApiError && error.code === 413) sendJson(res, 413, { error: `the body is over ${MAX_CONTROL_BODY} bytes (a file users send: at most ${USER_FILE_LIMIT_BYTES} bytes)` });
			return;
		}
		if (raw.length > 0) {
			try {
				const parsed: unknown = JSON.parse(raw.toString('utf8'));
				if (!isRecord(parsed)) throw new Error('not an object');
				body = parsed;
			} catch {
				sendJson(res, 400, { error: 'the body must be a JSON object' });
				return;
			}
		}
		const parts = path.split('/').filter((s) => s !== '').map(decodeSegment);
		const route = `${httpMethod} /${parts.map((p, i) => ((parts[0] === 'chats' || parts[0] === 'media') && i === 1 ? ':id' : p)).join('/')}`;
		const str = (k: string): string | undefined => (typeof body[k] === 'string' ? (body[k] as string) : undefined);
		try {
			let out: unknown;
			switch (route) {
				case 'GET /demo':
					out = this.demo;
					break;
				case 'POST /bots':
					out = this.addBot({ token: str('token') ?? '', name: str('name'), username: str('username') });
					break;
				case 'POST /users':
					out = this.addUser({ firstName: str('firstName') ?? '', username: str('username'), isBot: body.isBot === true });
					break;
				case 'POST /chats':
					out = this.addChat(body as unknown as Parameters<Emulator['addChat']>[0]);
					break;
				case 'POST /chats/:id/members':
					this.setMember({ chatId: parts[1], userId: str('userId') ?? '', status: str('status') as MemberStatus });
					out = { ok: true };
					break;
				case 'GET /chats/:id/history':
					out = this.history(parts[1]);
					break;
				case 'GET /chats/:id/state':
					out = this.chatState(parts[1]);
					break;
				case 'POST /media':
					out = this.addMedia({ kind: str('kind') as MediaKind, fileName: str('fileName'), mimeType: str('mimeType'), bytes: base64Content(body.contentBase64) });
					break;
				case 'GET /media/:id':
					this.serveMedia(req, res, parts[1]);
					return;
				case 'POST /messages':
					out = await this.userSends(userMessageOf(body));
					break;
				case 'POST /bots/token':
					this.changeToken(str('token') ?? '', str('newToken') ?? '');
					out = { ok: true };
					break;
				case 'POST /clicks':
					out = await this.userClicks(body as unknown as Parameters<Emulator['userClicks']>[0]);
					break;
				case 'GET /calls': {
					const m = params.get('method');
					out = m ? this.callsTo(m) : this.calls;
					break;
				}
				case 'DELETE /calls':
					this.calls.length = 0;
					out = { ok: true };
					break;
				case 'GET /webhook':
					out = this.webhookOf(params.get('token') ?? undefined);
					break;
				case 'GET /updates':
					out = this.pendingUpdates(params.get('token') ?? undefined);
					break;
				case 'GET /callback-answers':
					out = this.callbackAnswers();
					break;
				case 'GET /chat-actions':
					out = this.chatActions();
					break;
				case 'POST /faults':
					this.injectFault(body as unknown as FaultSpec);
					out = { ok: true };
					break;
				case 'DELETE /faults':
					this.clearFaults();
					out = { ok: true };
					break;
				case 'POST /chaos': {
					const rate = Number(body.rate ?? 0);
					if (!(rate >= 0 && rate <= 1)) throw new ControlError('rate must be a number between 0 and 1');
					const seed = body.seed === undefined ? undefined : Number(body.seed);
					this.chaos = rate > 0 ? new Chaos({ rate, seed }) : undefined;
					out = { ok: true };
					break;
				}
				case 'GET /chaos':
					out = { rate: this.chaos?.options.rate ?? 0, counts: this.chaos?.counts ?? null, pushes: this.pusher.stats() };
					break;
				case 'GET /pushes':
					out = this.pusher.log;
					break;
				case 'GET /idle':
					await this.idle(Number(params.get('timeoutMs') ?? 15000));
					out = { idle: true };
					break;
				case 'POST /reset':
					this.reset();
					out = { ok: true };
					break;
				default:
					sendJson(res, 404, { error: `no control route ${route}` });
					return;
			}
			sendJson(res, 200, out ?? null);
		} catch (e) {
			if (e instanceof ControlError) sendJson(res, e.status, { error: e.message });
			else if (e instanceof Error) sendJson(res, 400, { error: e.message });
			else throw e;
		}
	}

	// ---------- in-process API ----------

	callsTo(method: string): RecordedCall[] {
		const m = method.toLowerCase();
		return this.calls.filter((c) => c.method.toLowerCase() === m);
	}

	addBot(opts: { token: string; name?: string; username?: string }): { botId: string } {
		return this.world.addBot(opts);
	}

	addChat(opts: Parameters<Emulator['addChat']>[0]): { chatId: string } {
		return this.world.addChat(opts);
	}

	addUser(opts: { firstName: string; username?: string; isBot?: boolean }): { userId: string } {
		return this.world.addUser(opts);
	}

	addMedia(opts: { kind: MediaKind; fileName?: string; mimeType?: string; bytes?: Buffer }): { mediaId: string } {
		return this.world.addMedia(opts);
	}

	/** A file's bytes for the chat page: its MIME type, its name in Content-Disposition, one byte range if asked. */
	private serveMedia(req: IncomingMessage, res: ServerResponse, mediaId: string): void {
		const media = this.world.media.get(mediaId.toLowerCase());
		if (!media) throw new ControlError(`no media ${mediaId}`, 404);
		const { bytes } = media;
		if (!bytes) throw new ControlError(`media ${mediaId} has no content here: registered without it, or dropped as the oldest over the emulator's limit`, 404);
		const headers: Record<string, string | number> = {
			'content-type': media.mimeType ?? 'application/octet-stream',
			'content-disposition': contentDisposition(media.fileName ?? `${media.kind}-${media.id}`),
			// The bot sends any file; one that is HTML or SVG must not run in the emulator's origin
			// (where the control API is): no type sniffing, and opened in a sandbox (not PDFs: browsers
			// refuse to show them sandboxed, and their viewer runs apart anyway).
			'x-content-type-options': 'nosniff',
			'accept-ranges': 'bytes',
			'cache-control': 'no-store',
		};
		if (media.mimeType !== 'application/pdf') headers['content-security-policy'] = 'sandbox';
		const range = byteRange(req.headers.range, bytes.length);
		if (range === 'unsatisfiable') {
			res.writeHead(416, { ...headers, 'content-range': `bytes */${bytes.length}`, 'content-length': 0 });
			res.end();
			return;
		}
		const part = range ? bytes.subarray(range.start, range.end + 1) : bytes;
		if (range) headers['content-range'] = `bytes ${range.start}-${range.end}/${bytes.length}`;
		res.writeHead(range ? 206 : 200, { ...headers, 'content-length': part.length });
		res.end(part);
	}

	chatState(chatId: string): ChatState {
		const chat = this.world.resolveChat(chatId);
		if (!chat) throw new ControlError(`unknown chat ${chatId}`, 404);
		const actions = this.world.currentActions(chat).map(({ botId, action, at, until }) => {
			const botName = this.world.users.get(botId)?.first_name ?? 'The bot';
			return { botId, botName, action, text: chatActionText(botName, action), at, until };
		});
		return { messages: this.world.history(chat.id), actions };
	}

	setMember(opts: { chatId: string; userId: string; status: MemberStatus }): void {
		const chat = this.world.resolveChat(opts.chatId);
		if (!chat) throw new ControlError(`unknown chat ${opts.chatId}`, 404);
		this.world.setMember(chat.id, opts.userId, opts.status);
	}

	async userSends(opts: Parameters<Emulator['userSends']>[0]): Promise<Update> {
		return this.world.userSends(opts);
	}

	changeToken(token: string, newToken: string): void {
		this.world.changeToken(token, newToken);
	}

	async userClicks(opts: Parameters<Emulator['userClicks']>[0]): Promise<Update> {
		return this.world.userClicks(opts);
	}

	history(chatId: string): StoredMessage[] {
		return this.world.history(chatId);
	}

	private botOf(token?: string): BotRecord {
		const bot = this.world.bots.get(token ?? this.world.demo.token);
		if (!bot) throw new ControlError('unknown bot token', 404);
		return bot;
	}

	webhookOf(token?: string): WebhookView | null {
		const bot = this.botOf(token);
		const hook = bot.webhook;
		if (!hook) return null;
		const out: WebhookView = {
			url: hook.url,
			maxConnections: hook.maxConnections,
			pendingUpdateCount: this.pusher.pendingCount(bot),
			lastError: hook.lastError ? { ...hook.lastError } : null,
		};
		if (hook.secretToken !== undefined) out.secretToken = hook.secretToken;
		if (hook.allowedUpdates !== undefined && hook.allowedUpdates.length > 0) out.allowedUpdates = [...hook.allowedUpdates];
		return out;
	}

	pendingUpdates(token?: string): Update[] {
		const bot = this.botOf(token);
		this.pusher.expire(bot);
		return clone(bot.pending);
	}

	callbackAnswers(): CallbackAnswer[] {
		const out: CallbackAnswer[] = [];
		for (const cb of this.world.callbacks.values()) if (cb.answer) out.push({ ...cb.answer });
		return out.sort((a, b) => a.at - b.at);
	}

	chatActions(): ChatActionRecord[] {
		return this.world.chatActions.map((a) => ({ ...a }));
	}

	injectFault(f: FaultSpec): void {
		const kinds: FaultKind[] = ['status', 'delay', 'hang', 'drop', 'reset', 'malformed', 'html', 'result', 'oversize'];
		if (!isRecord(f) || !kinds.includes(f.kind)) throw new ControlError(`fault kind must be one of ${kinds.join(', ')}`);
		const count = f.count ?? 1;
		if (!Number.isInteger(count) || count < 1) throw new ControlError('count must be a positive integer');
		if (f.kind === 'status' && f.status !== undefined && (!Number.isInteger(f.status) || f.status < 100 || f.status > 599)) {
			throw new ControlError('status must be an HTTP status code');
		}
		if (f.bodyBytes !== undefined && (!Number.isSafeInteger(f.bodyBytes) || f.bodyBytes < 0)) throw new ControlError('bodyBytes must be a non-negative integer');
		this.faults.push({ ...f, remaining: count });
	}

	clearFaults(): void {
		this.faults = [];
	}

	async idle(timeoutMs = 15_000): Promise<void> {
		const until = Date.now() + timeoutMs;
		while (!this.pusher.isIdle()) {
			if (Date.now() > until) throw new Error(`emulator: webhook pushes still busy after ${timeoutMs} ms`);
			await sleep(5);
		}
	}

	reset(): void {
		this.world.reset();
		this.calls.length = 0;
		this.faults = [];
		this.seq = 0;
		this.pusher.wakeSleepers();
	}

	async close(): Promise<void> {
		for (const bot of this.world.bots.values()) bot.poller?.wake('closed');
		await this.pusher.close();
		await new Promise<void>((resolve) => {
			this.server.close(() => resolve());
			this.server.closeAllConnections();
		});
	}
}

/**
 * An 'oversize' download fault: a body of `bodyBytes` (the file, then filler) where the file was
 * smaller, chunked without a Content-Length, written as the client reads it (never held whole) and
 * stopped when the client closes. The record's `file_size` counts the bytes written so far.
 */
async function serveOversized(res: ServerResponse, call: RecordedCall, bytes: Buffer, mimeType: string, bodyBytes: number): Promise<void> {
	if (res.destroyed) return;
	const sent = { file_size: 0, mime_type: mimeType };
	call.status = 200;
	call.response = sent;
	res.writeHead(200, { 'content-type': mimeType, 'x-content-type-options': 'nosniff' });
	for (const chunk of oversizedBody(bytes, bodyBytes)) {
		if (res.destroyed) return;
		sent.file_size += chunk.length;
		if (!res.write(chunk)) {
			await new Promise<void>((resolve) => {
				const done = (): void => {
					res.off('drain', done);
					res.off('close', done);
					resolve();
				};
				res.on('drain', done);
				res.on('close', done);
			});
		}
	}
	if (!res.destroyed) res.end();
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
	const emu = new EmulatorImpl(options);
	await emu.listen();
	return emu;
}
