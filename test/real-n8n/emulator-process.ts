/**
 * The service emulator as its own process (as `npm run emulator` starts it), and a small client
 * for its control API (`/_emulator/…`).
 */
import { join } from 'node:path';

import { ROOT } from './install';
import type { Proc } from './processes';
import { spawnProc, stopProc, waitFor } from './processes';

export interface DemoData {
	token: string;
	botId: string;
	botUsername: string;
	userId: string;
	otherUserId: string;
	privateChatId: string;
	groupChatId: string;
	[key: string]: unknown;
}

export interface InlineButton {
	text: string;
	callback_data?: string;
	url?: string;
}

export interface StoredMessage {
	message_id: number;
	text?: string;
	from?: { id: string; is_bot?: boolean; first_name?: string };
	reply_markup?: { inline_keyboard?: InlineButton[][] };
	edit_date?: number;
	[key: string]: unknown;
}

export interface RecordedCall {
	method: string;
	body: Record<string, unknown>;
	status: number;
	[key: string]: unknown;
}

export interface WebhookView {
	url: string;
	secretToken?: string;
	allowedUpdates?: string[];
	/** The last failed push, or null. */
	lastError?: { date: number; message: string } | null;
	[key: string]: unknown;
}

export interface EmulatorStartOptions {
	port?: number;
	logFile?: string;
	echo?: boolean;
	/** First retry delay of a failed webhook push (doubles each attempt). */
	retryBaseMs?: number;
	/** How long a webhook push waits for an answer before it counts as failed and is sent again. */
	timeoutMs?: number;
	/** Pushes carry the secret under Telegram's header name too (for n8n's Telegram Trigger, the queue bench). */
	telegramSecretHeader?: boolean;
	/** Further arguments of test/emulator/cli.ts, e.g. `['--webhook-retry-max-ms', '4000']`. */
	args?: string[];
}

/** Random failures the emulator injects into a share of its answers (test/emulator/chaos.ts), and its pushes so far. */
export interface ChaosView {
	rate: number;
	counts: { calls: number; tooManyRequests: number; slow: number; badGateway: number; dropped: number } | null;
	pushes: { attempts: number; delivered: number; failed: Record<string, number> };
}

export class EmulatorProcess {
	private constructor(
		readonly proc: Proc,
		readonly baseUrl: string,
		readonly demo: DemoData,
	) {}

	/** Starts `test/emulator/cli.ts` with the demo data and local webhooks allowed. */
	static async start(options: EmulatorStartOptions = {}): Promise<EmulatorProcess> {
		const tsNode = join(ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js');
		const args = [tsNode, '--transpile-only', '--project', join(ROOT, 'test', 'tsconfig.json'), join(ROOT, 'test', 'emulator', 'cli.ts')];
		args.push('--port', String(options.port ?? 0), '--allow-local-webhooks');
		if (options.retryBaseMs !== undefined) args.push('--webhook-retry-base-ms', String(options.retryBaseMs));
		if (options.timeoutMs !== undefined) args.push('--webhook-timeout-ms', String(options.timeoutMs));
		if (options.telegramSecretHeader) args.push('--telegram-secret-header');
		args.push(...(options.args ?? []));
		const proc = spawnProc('emulator', process.execPath, args, { cwd: ROOT, logFile: options.logFile, echo: options.echo });
		let first: string | undefined;
		proc.onLine((line) => {
			if (first === undefined && line.trim().startsWith('{')) first = line;
		});
		try {
			await waitFor('the emulator to print its address', () => {
				if (proc.hasExited()) throw new Error(`the emulator exited:\n${proc.tail()}`);
				return first;
			});
		} catch (error) {
			await stopProc(proc);
			throw error;
		}
		const info = JSON.parse(first as string) as { baseUrl: string; demo: DemoData };
		return new EmulatorProcess(proc, info.baseUrl, info.demo);
	}

	async stop(): Promise<void> {
		await stopProc(this.proc);
	}

	private async control<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
		const response = await fetch(`${this.baseUrl}/_emulator/${path}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		if (!response.ok) throw new Error(`emulator ${method} /_emulator/${path}: ${response.status} ${text}`);
		return JSON.parse(text) as T;
	}

	/** The demo user sends `text` in a chat (default: the demo private chat). */
	userSends(text: string, chatId = this.demo.privateChatId, userId = this.demo.userId): Promise<Record<string, unknown>> {
		return this.control('POST', 'messages', { chatId, userId, text });
	}

	/**
	 * The demo user (or `userId`) sends a file in a chat (default: the demo private chat), with an
	 * optional caption; the update's message carries it as Telegram gives it (a photo as its sizes).
	 */
	userSendsFile(
		kind: 'photo' | 'video' | 'document' | 'voice',
		bytes: Buffer,
		{
			fileName,
			mimeType,
			caption,
			chatId = this.demo.privateChatId,
			userId = this.demo.userId,
		}: { fileName?: string; mimeType?: string; caption?: string; chatId?: string; userId?: string } = {},
	): Promise<Record<string, unknown>> {
		return this.control('POST', 'messages', { chatId, userId, caption, media: { kind, contentBase64: bytes.toString('base64'), fileName, mimeType } });
	}

	/**
	 * The demo user clicks the inline button with `data` under message `messageId`. `oldMessage`: the
	 * click carries only the message's id and chat, as Telegram sends it for messages older than 48 hours.
	 */
	userClicks(
		messageId: number,
		data: string,
		{ chatId = this.demo.privateChatId, userId = this.demo.userId, oldMessage = false }: { chatId?: string; userId?: string; oldMessage?: boolean } = {},
	): Promise<Record<string, unknown>> {
		return this.control('POST', 'clicks', { chatId, userId, messageId, data, oldMessage });
	}

	addUser(firstName: string): Promise<{ userId: string }> {
		return this.control('POST', 'users', { firstName });
	}

	/** A private chat between the demo bot and `userId`. */
	addPrivateChat(userId: string): Promise<{ chatId: string }> {
		return this.control('POST', 'chats', {
			type: 'private',
			members: [
				{ userId: this.demo.botId, status: 'member' },
				{ userId, status: 'member' },
			],
		});
	}

	/** Updates the service holds for the bot and has not delivered yet. */
	pendingUpdates(token = this.demo.token): Promise<Array<Record<string, unknown>>> {
		return this.control('GET', `updates?token=${encodeURIComponent(token)}`);
	}

	history(chatId = this.demo.privateChatId): Promise<StoredMessage[]> {
		return this.control('GET', `chats/${encodeURIComponent(chatId)}/history`);
	}

	calls(method?: string): Promise<RecordedCall[]> {
		return this.control('GET', `calls${method ? `?method=${encodeURIComponent(method)}` : ''}`);
	}

	/** Forgets the recorded calls (keeps later `calls()` answers small). */
	clearCalls(): Promise<{ ok: true }> {
		return this.control('DELETE', 'calls');
	}

	webhook(token = this.demo.token): Promise<WebhookView | null> {
		return this.control('GET', `webhook?token=${encodeURIComponent(token)}`);
	}

	callbackAnswers(): Promise<Array<Record<string, unknown>>> {
		return this.control('GET', 'callback-answers');
	}

	/**
	 * The next `count` calls of `method` answered with `status` and not executed (the control API's
	 * `POST /_emulator/faults`; the test/emulator README lists the kinds).
	 */
	failCalls(method: string, status: number, count: number): Promise<{ ok: true }> {
		return this.control('POST', 'faults', { kind: 'status', method, status, count });
	}

	/** Forgets the faults still armed. */
	clearFaults(): Promise<{ ok: true }> {
		return this.control('DELETE', 'faults');
	}

	/** A share `rate` (0–1; 0 = off) of the Bot API's answers fail from now on, at random from `seed` (test/emulator/chaos.ts). */
	setChaos(rate: number, seed?: number): Promise<{ ok: true }> {
		return this.control('POST', 'chaos', { rate, seed });
	}

	/** What chaos injected so far, and the webhook pushes: made, answered 2xx, failed by reason. */
	chaos(): Promise<ChaosView> {
		return this.control('GET', 'chaos');
	}

	/** Every webhook push attempt so far: the update, when it was sent and answered, what failed (null: delivered). */
	pushes(): Promise<Array<{ updateId: number; at: number; answeredAt: number; error: string | null }>> {
		return this.control('GET', 'pushes');
	}

	/** Resolves once no webhook push is running or due. */
	idle(timeoutMs = 60_000): Promise<{ idle: boolean }> {
		return this.control('GET', `idle?timeoutMs=${timeoutMs}`);
	}
}
