/**
 * Chaos: a share of the service's answers fail, chosen at random, the way a busy service and the network
 * between fail — for soaks that run real n8n for minutes (test/e2e/soak/). Which failures a call may get
 * follows from what repeating it does (the spec's `readsOnly`, test/spec.ts):
 *
 * - a call that can be repeated without acting twice (it only reads, or sets a state to a value) may get a
 *   502 from a gateway (not executed) or lose its answer (executed, then the connection closes), as well as
 * - what any call may get: 429 with `retry_after` (not executed), or a slow answer (executed after 2–4 s).
 *
 * A method that acts (sends, edits, deletes, answers a click) never loses its answer nor gets a 502 here:
 * the service may have acted, the client cannot know, and no client can avoid a repeat then.
 */
import { METHODS } from '../spec';
import type { FaultSpec } from './server';
import { seededRandom } from '../harness/seeded-random';

/** Methods that set a state to the value given (or only read), so a repeat cannot act twice. */
const SETS_A_STATE: readonly string[] = [
	'getFile',
	'sendChatAction',
	'setWebhook',
	'deleteWebhook',
	'setMyName',
	'setMyDescription',
	'setMyShortDescription',
	'setMyCommands',
	'deleteMyCommands',
];

/** Whether repeating a call of `method` cannot act twice (case-insensitive, as method names are). */
export function isIdempotent(method: string): boolean {
	const name = method.toLowerCase();
	return SETS_A_STATE.some((m) => m.toLowerCase() === name) || METHODS.some((m) => m.readsOnly && m.name.toLowerCase() === name);
}

export interface ChaosOptions {
	/** share of calls that fail, 0–1 (0 turns chaos off) */
	rate: number;
	/** seed of the random choices, so a run can be repeated (default 1) */
	seed?: number;
	/** slow answers wait between these (ms), default 2000–4000 */
	slowMs?: [number, number];
	/** 429s ask to wait between these (seconds), default 1–3 */
	retryAfterSeconds?: [number, number];
}

/** What was injected, by kind (`GET /_emulator/chaos`). */
export interface ChaosCounts {
	calls: number;
	/** 429 with retry_after, not executed */
	tooManyRequests: number;
	/** executed after 2–4 s */
	slow: number;
	/** 502 from a gateway, not executed (idempotent calls only) */
	badGateway: number;
	/** executed, then the connection closed without an answer (idempotent calls only) */
	dropped: number;
}

export class Chaos {
	private readonly random: () => number;
	private readonly slowMs: [number, number];
	private readonly retryAfter: [number, number];
	readonly counts: ChaosCounts = { calls: 0, tooManyRequests: 0, slow: 0, badGateway: 0, dropped: 0 };

	constructor(readonly options: ChaosOptions) {
		if (!(options.rate >= 0 && options.rate <= 1)) throw new Error(`chaos rate must be between 0 and 1, got ${options.rate}`);
		this.random = seededRandom(options.seed ?? 1);
		this.slowMs = options.slowMs ?? [2000, 4000];
		this.retryAfter = options.retryAfterSeconds ?? [1, 3];
	}

	private between(low: number, high: number): number {
		return Math.round(low + this.random() * (high - low));
	}

	/** The fault this call gets, or undefined (most calls). Asked once per Bot API call (downloads: method 'file'). */
	faultFor(method: string): FaultSpec | undefined {
		this.counts.calls += 1;
		if (method === 'file' || this.random() >= this.options.rate) return undefined;
		const kinds = isIdempotent(method) ? (['tooManyRequests', 'slow', 'badGateway', 'dropped'] as const) : (['tooManyRequests', 'slow'] as const);
		const kind = kinds[Math.floor(this.random() * kinds.length)];
		this.counts[kind] += 1;
		switch (kind) {
			case 'tooManyRequests':
				return { kind: 'status', status: 429, retryAfter: this.between(...this.retryAfter) };
			case 'slow':
				return { kind: 'delay', delayMs: this.between(...this.slowMs) };
			case 'badGateway':
				return { kind: 'html' };
			case 'dropped':
				return { kind: 'drop', execute: true };
		}
	}
}
