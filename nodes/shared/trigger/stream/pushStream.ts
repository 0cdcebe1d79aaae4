/**
 * Stream AI Answers, on one push of the service: n8n hands the chunks of a streaming execution to the
 * HTTP response of the request that started it (responseMode 'streaming'): `write(JSON line)`, then
 * `flush()`, and `end()` once the execution was finalized (n8n `workflow-runner.js` sendChunk,
 * `active-executions.js` sendChunk and finalizeExecution, in 2.41.1 and 1.123.81; a queue-mode
 * worker's chunks are written by the process that holds the request, on the same object). n8n gives
 * a node no other way to the chunks, so the trigger answers the service at once and puts its own
 * `write`, `flush` and `end` on that response object: nothing of the chunks goes to the service.
 *
 * Each streaming node's answer per item (`metadata` nodeId, runIndex, itemIndex) is posted in the
 * update's chat at its first `item` chunk and edited as it grows (answerStream.ts), at the chat's
 * pace (`STREAM_TIMING`), shared by every answer streamed into that chat in this process. An `end`
 * or `error` chunk closes it with the text so far; the response's `end` closes every answer of the
 * execution and is the execution's end (Show Typing's renewal stops there).
 */
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { postedToChat } from '../../chatPosts';
import { apiRequest, pause } from '../../transport/client';
import { failureOf, messageOf } from '../../transport/failure';
import { tokenOf } from '../../transport/token';
import type { ReceivedUpdate } from '../update';
import type { Outcome, StreamIo, StreamRequest } from './answerStream';
import { AnswerStream, Bell, ChatPace, runStream } from './answerStream';

/** The streamer's pace; tests shorten it (`jest.replaceProperty`), n8n never changes it. */
export const STREAM_TIMING = {
	/** About one request a second per chat: the service limits how often one message may be edited. */
	intervalMs: 1_000,
	/** An answer that gets no news for this long stops being streamed (an execution n8n never ends). */
	idleCapMs: 600_000,
};

/** What n8n writes on the response of a streaming execution, as far as the streamer reads it. */
interface Chunk {
	readonly type?: unknown;
	readonly content?: unknown;
	readonly metadata?: { readonly nodeId?: unknown; readonly runIndex?: unknown; readonly itemIndex?: unknown };
}

/** The response's methods n8n calls for a streaming execution (looked up on the object at each call). */
interface ChunkSink {
	write: (...args: unknown[]) => boolean;
	flush: () => void;
	end: (...args: unknown[]) => unknown;
}

/** The pace of each chat answers stream into now, in this process; an entry lives while an answer uses it. */
const paces = new Map<string, { pace: ChatPace; users: number }>();

function paceOf(key: string): { pace: ChatPace; release: () => void } {
	const entry = paces.get(key) ?? { pace: new ChatPace(), users: 0 };
	paces.set(key, entry);
	entry.users++;
	return {
		pace: entry.pace,
		release: () => {
			entry.users--;
			if (entry.users === 0 && paces.get(key) === entry) paces.delete(key);
		},
	};
}

const REFUSED_FORMATTING = /can't parse entities/i;
const NOT_MODIFIED = /message is not modified/i;

function bodyOf(chatId: string, request: StreamRequest): IDataObject {
	if (request.method === 'deleteMessage') return { chat_id: chatId, message_id: request.messageId };
	const shown: IDataObject = { chat_id: chatId, text: request.shows.text, ...(request.shows.parseMode && { parse_mode: request.shows.parseMode }) };
	return request.method === 'editMessageText' ? { ...shown, message_id: request.messageId } : shown;
}

/** The service, as one answer's streamer sees it: a 429 is the streamer's to wait out (it sends the newest text after). */
function serviceIo(ctx: IWebhookFunctions, chatId: string): StreamIo {
	const node = ctx.getNode().name;
	return {
		now: () => Date.now(),
		pause,
		async call(request): Promise<Outcome> {
			try {
				const result = await apiRequest<IDataObject | true>(ctx, request.method, bodyOf(chatId, request), {
					retry: { rateLimitRetries: 0 },
					// An edit or a deletion repeated does the same; a post repeated would show the answer twice.
					idempotent: request.method !== 'sendMessage',
				});
				if (request.method !== 'sendMessage') return { kind: 'done' };
				postedToChat(await tokenOf(ctx), chatId);
				const messageId = typeof result === 'object' && typeof result.message_id === 'number' ? result.message_id : undefined;
				return { kind: 'done', messageId };
			} catch (error) {
				const failure = failureOf(error);
				if (failure?.kind === 'refused' && failure.status === 429) return { kind: 'wait', seconds: failure.retryAfterSeconds ?? 1 };
				if (failure?.kind === 'refused' && REFUSED_FORMATTING.test(failure.description)) return { kind: 'formatting' };
				if (failure?.kind === 'refused' && NOT_MODIFIED.test(failure.description)) return { kind: 'done' };
				// A message the answer no longer needs and that is gone already, or cannot go: nothing to do.
				if (request.method === 'deleteMessage') return { kind: 'done' };
				ctx.logger.warn(`Service Bot Trigger "${node}": stopped streaming an answer into chat ${chatId}: ${messageOf(error)}`);
				return { kind: 'stop' };
			}
		},
	};
}

function keyOf(chunk: Chunk): string {
	const { nodeId, runIndex, itemIndex } = chunk.metadata ?? {};
	return JSON.stringify([nodeId ?? null, runIndex ?? 0, itemIndex ?? 0]);
}

/**
 * Takes the chunks n8n writes on this push's response and streams each answer into the update's chat.
 * Answers the service first (n8n does not, in the streaming mode). Returns what settles once the
 * execution has ended (n8n ended the response).
 */
export function streamAnswers(ctx: IWebhookFunctions, update: ReceivedUpdate): Promise<void> {
	const res = ctx.getResponseObject();
	if (!res.headersSent) res.status(200).json({ message: 'Workflow was started' });
	let executionEnded = (): void => {};
	const ended = new Promise<void>((resolve) => (executionEnded = resolve));
	const chatId = update.chatId;
	const answers = new Map<string, { stream: AnswerStream; bell: Bell }>();
	let open = true;

	const start = (key: string): { stream: AnswerStream; bell: Bell } | undefined => {
		if (chatId === undefined) return undefined;
		const answer = { stream: new AnswerStream(), bell: new Bell() };
		answers.set(key, answer);
		void (async () => {
			const { pace, release } = paceOf(JSON.stringify([await tokenOf(ctx), chatId]));
			try {
				await runStream(answer.stream, pace, serviceIo(ctx, chatId), answer.bell, STREAM_TIMING);
			} finally {
				release();
			}
		})().catch((error: unknown) => ctx.logger.warn(`Service Bot Trigger "${ctx.getNode().name}": streaming an answer failed: ${messageOf(error)}`));
		return answer;
	};

	const take = (chunk: Chunk): void => {
		const key = keyOf(chunk);
		if (chunk.type === 'item' && typeof chunk.content === 'string') {
			const answer = answers.get(key) ?? start(key);
			answer?.stream.append(chunk.content);
			answer?.bell.ring();
		} else if (chunk.type === 'end' || chunk.type === 'error') {
			const answer = answers.get(key);
			answer?.stream.close();
			answer?.bell.ring();
		}
	};

	const decoder = new TextDecoder();
	let buffered = '';
	const read = (data: unknown): void => {
		buffered += typeof data === 'string' ? data : data instanceof Uint8Array ? decoder.decode(data, { stream: true }) : '';
		let newline = buffered.indexOf('\n');
		while (newline >= 0) {
			const line = buffered.slice(0, newline).trim();
			buffered = buffered.slice(newline + 1);
			newline = buffered.indexOf('\n');
			if (line === '') continue;
			try {
				const chunk: unknown = JSON.parse(line);
				if (chunk !== null && typeof chunk === 'object') take(chunk as Chunk);
			} catch {
				// Not a chunk of n8n's: nothing to show.
			}
		}
	};
	/** Node's stream methods take a callback last: called, as the real ones would. */
	const callBack = (args: unknown[]): void => {
		const last = args[args.length - 1];
		if (typeof last === 'function') (last as () => void)();
	};

	const sink = res as unknown as ChunkSink;
	sink.write = (...args: unknown[]): boolean => {
		if (open) read(args[0]);
		callBack(args);
		return true;
	};
	sink.flush = (): void => {};
	sink.end = (...args: unknown[]): unknown => {
		if (open) {
			open = false;
			if (typeof args[0] !== 'function') read(args[0]);
			read('\n');
			for (const { stream, bell } of answers.values()) {
				stream.close();
				bell.ring();
			}
			executionEnded();
		}
		callBack(args);
		return res;
	};
	return ended;
}
