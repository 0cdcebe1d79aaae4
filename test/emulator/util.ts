import { createHash } from 'node:crypto';

/** An error answered in the Bot API envelope `{ok:false, error_code, description, parameters?}`. */
export class ApiError extends Error {
	constructor(
		readonly code: number,
		readonly description: string,
		readonly retryAfter?: number,
	) {
		super(description);
		this.name = 'ApiError';
	}
}

export const badRequest = (what: string): ApiError => new ApiError(400, `Bad Request: ${what}`);
export const forbidden = (what: string): ApiError => new ApiError(403, `Forbidden: ${what}`);

/** Error thrown by the in-process control API (mapped to HTTP 400/404 `{error}` by the control API). */
export class ControlError extends Error {
	constructor(
		message: string,
		readonly status = 400,
	) {
		super(message);
		this.name = 'ControlError';
	}
}

/** A deterministic, RFC-4122-shaped (version 5 style) UUID derived from a label. */
export function deterministicUuid(label: string): string {
	const h = createHash('sha1').update(`service-bot-emulator:${label}`).digest();
	h[6] = (h[6] & 0x0f) | 0x50;
	h[8] = (h[8] & 0x3f) | 0x80;
	const hex = h.subarray(0, 16).toString('hex');
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** Deterministic token-ish secret part (base64url, 35 chars, Telegram-like). */
export function deterministicTokenSecret(label: string): string {
	const h = createHash('sha256').update(`service-bot-emulator-token:${label}`).digest('base64url');
	return `AAE${h.slice(0, 32)}`;
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

export function isRecord(v: unknown): v is Record<string, unknown> {
	return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function utf8Bytes(s: string): number {
	return Buffer.byteLength(s, 'utf8');
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Structured clone for plain JSON data (what we hand out must not alias internal state). */
export function clone<T>(v: T): T {
	return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}
