/**
 * Token secrecy helpers for the hardening tests (not a test file itself):
 * - `tokenForms`: every spelling a bot token can take in a text (raw, URL-encoded, as a URL path
 *   segment, each encoded once more, JSON-escaped, and the secret part after the bot id in each of those forms);
 * - `startCapture`: records everything a run can print or log: `console.*`, direct writes to
 *   `process.stdout` / `process.stderr`, the n8n logger every node context uses (`this.logger`) and
 *   n8n-workflow's `LoggerProxy` (what `WorkflowExecute` logs through), metadata included;
 * - `textsOf`: every text that can be read off a value (an error, its cause chain, run data…);
 * - `findLeak`: the first text that holds a form of the token.
 */
import { ExecuteContext, HookContext, TriggerContext, WebhookContext } from 'n8n-core';
import type { Logger } from 'n8n-workflow';
import { LoggerProxy } from 'n8n-workflow';
import { inspect } from 'node:util';

/**
 * A token full of characters that are special in regular expressions, in `String.replace`
 * replacement patterns (`$&`) and in URLs (`?`, `#`, `%`, `&`, `=`): redaction and URL building must
 * treat it literally. Register it with `emulator.addBot({ token: HOSTILE_TOKEN })`.
 */
export const HOSTILE_TOKEN = '8675309:Zx.y*z+q?w(e)[r]{t}|u^i$o\\p%a&b=c#d~e$&';

function jsonEscaped(text: string): string {
	return JSON.stringify(text).slice(1, -1);
}

/**
 * The spellings of a text as a URL path segment (RFC 3986 `pchar`): percent-encoded except `:`, and
 * the least encoding a segment allows (unreserved characters, sub-delims, `:` and `@` left as they are).
 */
function pathSegmentForms(text: string): string[] {
	const minimal = [...text]
		.map((char) => (/[A-Za-z0-9\-._~!$&'()*+,;=:@]/.test(char) ? char : encodeURIComponent(char)))
		.join('');
	return [encodeURIComponent(text).replace(/%3A/gi, ':'), minimal];
}

/** Every form a token can take in a text; the short, generic ones are left out. */
export function tokenForms(token: string): string[] {
	const secret = token.slice(token.indexOf(':') + 1);
	const forms = new Set<string>();
	for (const part of [token, secret]) {
		for (const form of [part, encodeURIComponent(part), encodeURI(part), ...pathSegmentForms(part)]) {
			// Encoded once more: a URL holding the path, itself a query parameter (a redirect's, a log's).
			for (const spelling of [form, encodeURIComponent(form)]) {
				forms.add(spelling);
				forms.add(jsonEscaped(spelling));
			}
		}
	}
	return [...forms].filter((form) => form.length >= 8);
}

export function safeJson(value: unknown): string {
	const seen = new WeakSet<object>();
	try {
		const text = JSON.stringify(value, (_key, inner: unknown) => {
			if (inner && typeof inner === 'object') {
				if (seen.has(inner)) return '[circular]';
				seen.add(inner);
			}
			return typeof inner === 'bigint' ? String(inner) : inner;
		}) as string | undefined;
		return text ?? String(value);
	} catch (error) {
		return `[unserialisable: ${String(error)}]`;
	}
}

/** Every text that can be read off a value: fields, stack, JSON, context, inspect, and its cause chain. */
export function textsOf(value: unknown, depth = 0): string[] {
	if (value === null || value === undefined || depth > 6) return [];
	if (typeof value !== 'object') return [String(value)];
	const record = value as Record<string, unknown>;
	const texts = [
		String(record.message ?? ''),
		String(record.description ?? ''),
		String(record.stack ?? ''),
		safeJson(value),
		safeJson(record.context),
		inspect(value, { depth: 8, showHidden: true }),
	];
	for (const next of [record.cause, record.errorResponse]) texts.push(...textsOf(next, depth + 1));
	return texts;
}

/** The first text holding a form of the token, as "form in: text", or undefined. */
export function findLeak(token: string, texts: readonly string[]): string | undefined {
	const forms = tokenForms(token);
	for (const text of texts) {
		for (const form of forms) {
			const at = text.indexOf(form);
			if (at >= 0) return `"${form}" in: …${text.slice(Math.max(0, at - 200), at + form.length + 200)}…`;
		}
	}
	return undefined;
}

export interface Capture {
	/** Every captured line: console calls, stdout/stderr writes, logger calls with their metadata. */
	readonly lines: string[];
	/** Lines logged through the n8n logger or LoggerProxy, by level. */
	logged(level: keyof Logger): string[];
	stop(): void;
}

/**
 * Captures (and silences) everything printed or logged until `stop()`. The n8n logger is the one
 * every node context returns from `this.logger`; n8n-core resolves it from its DI container, so
 * the getter of the context classes the nodes run in is replaced here.
 */
export function startCapture(): Capture {
	const lines: string[] = [];
	const byLevel: Record<keyof Logger, string[]> = { error: [], warn: [], info: [], debug: [] };
	const render = (args: unknown[]): string => args.map((arg) => (typeof arg === 'string' ? arg : safeJson(arg))).join(' ');

	const record =
		(level: keyof Logger) =>
		(message: string, metadata?: unknown): void => {
			const line = `[${level}] ${String(message)}${metadata === undefined ? '' : ` ${safeJson(metadata)}`}`;
			lines.push(line);
			byLevel[level].push(line);
		};
	const logger: Logger = { error: record('error'), warn: record('warn'), info: record('info'), debug: record('debug') };
	// Some n8n code calls `logger.scoped(...)`; the stand-in is its own scope.
	const standIn = Object.assign(logger, { scoped: () => standIn }) as unknown as ExecuteContext['logger'];

	const spies: Array<{ mockRestore(): void }> = [
		jest.spyOn(ExecuteContext.prototype, 'logger', 'get').mockReturnValue(standIn),
		jest.spyOn(HookContext.prototype, 'logger', 'get').mockReturnValue(standIn),
		jest.spyOn(WebhookContext.prototype, 'logger', 'get').mockReturnValue(standIn),
		jest.spyOn(TriggerContext.prototype, 'logger', 'get').mockReturnValue(standIn),
	];
	for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
		spies.push(
			jest.spyOn(console, method).mockImplementation((...args: unknown[]) => {
				lines.push(`[console.${method}] ${render(args)}`);
			}),
		);
	}
	for (const stream of [process.stdout, process.stderr]) {
		spies.push(
			jest.spyOn(stream, 'write').mockImplementation((chunk: unknown) => {
				lines.push(`[${stream === process.stdout ? 'stdout' : 'stderr'}] ${Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk)}`);
				return true;
			}),
		);
	}
	LoggerProxy.init(logger);
	// n8n's own Logger calls LoggerProxy.init(itself) when it is first created; keep ours.
	spies.push(jest.spyOn(LoggerProxy, 'init').mockImplementation(() => {}));

	return {
		lines,
		logged: (level) => [...byLevel[level]],
		stop: () => {
			for (const spy of spies) spy.mockRestore();
			const silent = (): void => {};
			LoggerProxy.init({ error: silent, warn: silent, info: silent, debug: silent });
		},
	};
}

export const sleep = async (ms: number): Promise<void> => await new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Ways a service (or a proxy before it) can quote the request's path back, the token in it: in a
 * refusal's description, in a redirect's page and `Location`, in a JSON answer that is not the
 * envelope (whose excerpt the error shows, JSON-escaped).
 */
export type PathEcho = 'redirectPage' | 'redirectJson' | 'none';

export interface PathEchoServer {
	readonly baseUrl: string;
	/** What the next requests get; `'none'` passes them on to `target` unchanged. */
	echo: PathEcho;
	/** Only requests whose path starts with this are echoed (e.g. `/file/` for downloads); default all. */
	only?: string;
	close(): Promise<void>;
}

/**
 * A stand-in in front of the service at `target`: it answers with the request's path quoted back
 * (`echo`), or passes the request on. Written for the secrecy scans, so it knows nothing of the node.
 */
export async function startPathEcho(target: string): Promise<PathEchoServer> {
	const { createServer } = await import('node:http');
	const state: { echo: PathEcho; only?: string } = { echo: 'none' };
	const server = createServer((req, res) => {
		const path = req.url ?? '/';
		const location = `${target}${path}`;
		const echoed = state.echo !== 'none' && (state.only === undefined || path.startsWith(state.only));
		if (echoed && state.echo === 'redirectPage') {
			res.writeHead(302, { location, 'content-type': 'text/html' });
			res.end(`<html><body>Moved to <a href="${location}">${decodeURIComponent(path)}</a> (${path})</body></html>`);
			return;
		}
		if (echoed && state.echo === 'redirectJson') {
			res.writeHead(307, { location, 'content-type': 'application/json' });
			res.end(JSON.stringify(['moved', decodeURIComponent(path), location]));
			return;
		}
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== 'host' && name !== 'content-length')) as Record<string, string>;
			fetch(location, { method: req.method, headers, body: chunks.length > 0 ? Buffer.concat(chunks) : undefined, redirect: 'manual' }).then(
				async (answer) => {
					res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/octet-stream' });
					res.end(Buffer.from(await answer.arrayBuffer()));
				},
				() => res.destroy(),
			);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const address = server.address();
	if (address === null || typeof address === 'string') throw new Error('the stand-in has no port');
	return {
		baseUrl: `http://127.0.0.1:${address.port}`,
		get echo() {
			return state.echo;
		},
		set echo(value: PathEcho) {
			state.echo = value;
		},
		get only() {
			return state.only;
		},
		set only(value: string | undefined) {
			state.only = value;
		},
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

/**
 * The request path of `method` with `token` in every spelling a service could quote it: as written,
 * percent-encoded as a path segment, and the whole URL percent-encoded (a redirect parameter).
 */
export function quotedPaths(token: string, baseUrl: string, method: string): string[] {
	const segment = encodeURIComponent(token).replace(/%3A/gi, ':');
	return [`/bot${token}/${method}`, `/bot${segment}/${method}`, encodeURIComponent(`${baseUrl}/bot${segment}/${method}`), `/file/bot${token}/documents/file_0.pdf`];
}
