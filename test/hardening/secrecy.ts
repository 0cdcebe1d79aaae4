/**
 * Token secrecy helpers for the hardening tests (not a test file itself):
 * - `tokenForms`: every spelling a bot token can take in a text (raw, URL-encoded, as a URL path
 *   segment, JSON-escaped, and the secret part after the bot id in each of those forms);
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
			forms.add(form);
			forms.add(jsonEscaped(form));
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
