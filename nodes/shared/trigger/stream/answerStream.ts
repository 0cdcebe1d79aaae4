/**
 * One streamed answer in a chat, without I/O: the text so far, the messages that show it, and the
 * next request that brings the chat closer to the newest text (`next`). Each request carries the
 * newest text when it is made, so a request that failed or waited loses nothing: the next one shows
 * everything. And the pace of a chat (`ChatPace`): one request at a time, at most one per interval,
 * none before a 429's retry_after has passed. `runStream` drives both with the I/O it is handed, so
 * tests drive it with a fake clock and a fake service.
 */
import type { AnswerPart } from './answerText';
import { answerParts, plainPart, shownSoFar } from './answerText';

/** A request that shows the newest text: a new message for a part not posted yet, an edit, or a message no longer needed. */
export type StreamRequest =
	| { readonly method: 'sendMessage'; readonly part: number; readonly shows: AnswerPart }
	| { readonly method: 'editMessageText'; readonly part: number; readonly messageId: number; readonly shows: AnswerPart }
	| { readonly method: 'deleteMessage'; readonly part: number; readonly messageId: number };

interface Shown {
	readonly messageId: number;
	readonly shows: AnswerPart;
}

const same = (a: AnswerPart, b: AnswerPart): boolean => a.text === b.text && a.parseMode === b.parseMode;

export class AnswerStream {
	private markdown = '';
	private closed = false;
	private readonly shown: Shown[] = [];
	/** Parts whose HTML the service refused: shown as their visible text, as Send Message falls back. */
	private readonly plain = new Set<number>();
	/** The parts of the text as written (`markdown`) when it was last converted, complete or not (`closed`). */
	private target: { readonly markdown: string; readonly closed: boolean; readonly parts: AnswerPart[] } = { markdown: '', closed: false, parts: [] };

	constructor(private readonly limit?: number) {}

	/** A piece of the answer as the model wrote it. */
	append(delta: string): void {
		if (!this.closed) this.markdown += delta;
	}

	/** No more text comes (the answer is complete, or the model failed: its text so far stays). */
	close(): void {
		this.closed = true;
	}

	get text(): string {
		return this.markdown;
	}

	/** Whether the text is complete and the chat shows it all: nothing left to do. */
	get finished(): boolean {
		return this.closed && this.next() === undefined;
	}

	/** The messages as the chat shows them now. */
	get messages(): readonly AnswerPart[] {
		return this.shown.map((message) => message.shows);
	}

	private parts(): AnswerPart[] {
		// Converted once per text: next() is asked again and again between requests. While the answer is
		// still being written, its unfinished markup is held back (never shown as raw `*` or `` ` ``).
		if (this.target.markdown !== this.markdown || this.target.closed !== this.closed) {
			const shown = this.closed ? this.markdown : shownSoFar(this.markdown);
			this.target = { markdown: this.markdown, closed: this.closed, parts: answerParts(shown, this.limit) };
		}
		return this.target.parts.map((part, index) => (this.plain.has(index) ? plainPart(part) : part));
	}

	/** The first message that differs from the newest text, as a request; undefined when the chat shows it. */
	next(): StreamRequest | undefined {
		const parts = this.parts();
		for (const [part, shows] of parts.entries()) {
			const message = this.shown[part];
			if (!message) return { method: 'sendMessage', part, shows };
			if (!same(message.shows, shows)) return { method: 'editMessageText', part, messageId: message.messageId, shows };
		}
		// The newest text needs fewer messages than were posted (a conversion that came out shorter).
		const extra = this.shown.length - 1;
		if (extra >= parts.length && extra >= 0) return { method: 'deleteMessage', part: extra, messageId: this.shown[extra].messageId };
		return undefined;
	}

	/** The service did what `request` asked (a sendMessage: with this message ID). */
	done(request: StreamRequest, messageId?: number): void {
		if (request.method === 'deleteMessage') {
			this.shown.splice(request.part, 1);
		} else if (request.method === 'sendMessage') {
			if (messageId !== undefined) this.shown[request.part] = { messageId, shows: request.shows };
		} else {
			this.shown[request.part] = { messageId: request.messageId, shows: request.shows };
		}
	}

	/**
	 * The service refused the HTML of a part ("can't parse entities"): that part goes out as plain text
	 * from now on. False when it was plain already: nothing else to try.
	 */
	refusedFormatting(request: StreamRequest): boolean {
		if (this.plain.has(request.part)) return false;
		this.plain.add(request.part);
		return true;
	}
}

/**
 * The pace of one chat: a request at most every `intervalMs`, and none before a 429's retry_after
 * has passed. Shared by every answer streamed into the chat at once, so the chat's rate holds
 * whatever number of executions stream into it.
 */
export class ChatPace {
	private nextAt = 0;

	/** How long to wait before the next request may start, at `now`. */
	waitMs(now: number): number {
		return Math.max(0, this.nextAt - now);
	}

	/** A request starts at `now`. */
	took(now: number, intervalMs: number): void {
		this.nextAt = Math.max(this.nextAt, now + intervalMs);
	}

	/** The service said to wait `seconds` (429), counted from `now`. */
	hold(now: number, seconds: number): void {
		this.nextAt = Math.max(this.nextAt, now + seconds * 1000);
	}
}

/** What the service answered a request, as the streamer decides on it. */
export type Outcome =
	| { readonly kind: 'done'; readonly messageId?: number }
	/** 429: wait this long, then show the newest text. */
	| { readonly kind: 'wait'; readonly seconds: number }
	/** The HTML was refused: that part goes plain. */
	| { readonly kind: 'formatting' }
	/** Nothing more can be shown (the chat refuses the bot, the message is gone): stop. */
	| { readonly kind: 'stop' };

/** The I/O the streamer is handed: a clock, a pause a bell ends early, and the service. */
export interface StreamIo {
	now(): number;
	/** Waits `ms`, or less once `signal` aborts. */
	pause(ms: number, signal?: AbortSignal): Promise<void>;
	/** Makes a request; never throws: what the service answered, decided on. */
	call(request: StreamRequest): Promise<Outcome>;
}

/** Rings whenever there is something new (a chunk, the end): wakes a streamer that waits for text. */
export class Bell {
	private controller = new AbortController();

	get signal(): AbortSignal {
		return this.controller.signal;
	}

	ring(): void {
		this.controller.abort();
		this.controller = new AbortController();
	}
}

export interface StreamTiming {
	/** The least time between two requests in one chat. */
	readonly intervalMs: number;
	/** How long a stream waits for new text before it gives up (an execution n8n never ends). */
	readonly idleCapMs: number;
}

/**
 * Shows `stream` in its chat until it is finished: the newest text at the chat's pace, a 429 waited
 * out, a refused HTML part sent plain. Returns once the chat shows the whole text after `close`, when
 * the service refuses to show more, or after `idleCapMs` without news.
 */
export async function runStream(stream: AnswerStream, pace: ChatPace, io: StreamIo, bell: Bell, timing: StreamTiming): Promise<void> {
	let quietSince = io.now();
	for (;;) {
		const signal = bell.signal;
		if (stream.next() === undefined) {
			if (stream.finished) return;
			if (io.now() - quietSince >= timing.idleCapMs) return;
			await io.pause(timing.idleCapMs - (io.now() - quietSince), signal);
			if (signal.aborted) quietSince = io.now();
			continue;
		}
		const wait = pace.waitMs(io.now());
		if (wait > 0) {
			await io.pause(wait);
			continue;
		}
		// Taken after the wait: the request shows the newest text.
		const request = stream.next();
		if (request === undefined) continue;
		pace.took(io.now(), timing.intervalMs);
		const outcome = await io.call(request);
		quietSince = io.now();
		if (outcome.kind === 'wait') pace.hold(io.now(), outcome.seconds);
		// A posted message without its ID could never be edited: posting again would show the answer twice.
		else if (outcome.kind === 'done' && (request.method !== 'sendMessage' || outcome.messageId !== undefined)) stream.done(request, outcome.messageId);
		else if (outcome.kind !== 'formatting' || !stream.refusedFormatting(request)) return;
	}
}
