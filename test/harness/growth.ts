/**
 * Time that grows with hostile text, measured without wall-clock upper bounds: a function runs on
 * inputs of growing size (n, 2n, 4n, 8n, …) and the time for 8n over the time for n must stay under
 * MAX_GROWTH_8X (linear gives about 8, quadratic 64, exponential far more). Each time is the fastest of
 * a few batches, which a loaded machine can only slow down. Used by every parser of user or model text.
 */
import { performance } from 'node:perf_hooks';

/** The growth allowed from n to 8n. */
export const MAX_GROWTH_8X = 30;
/** The time allowed per character of a hostile text, in milliseconds (50 µs). */
export const BUDGET_PER_CHAR_MS = 0.05;

/**
 * Milliseconds per `run(text)`, each batch repeated to last at least `minMs`: the median of the
 * batches, or their fastest (`fastest`).
 */
export function msPerRun(run: (text: string) => unknown, text: string, { batches = 5, minMs = 8, fastest = false } = {}): number {
	const times: number[] = [];
	for (let batch = 0; batch < batches; batch++) {
		let runs = 0;
		const start = performance.now();
		let elapsed = 0;
		do {
			run(text);
			runs++;
			elapsed = performance.now() - start;
		} while (elapsed < minMs);
		times.push(elapsed / runs);
	}
	times.sort((a, b) => a - b);
	return fastest ? times[0] : times[Math.floor(times.length / 2)];
}

/** Times under this are measurement noise (timer resolution, the JIT warming up): they count as this. */
const NOISE_MS = 0.05;
/** Sizes grow until the text is longer than this (20,000 to 40,000 characters at the largest). */
const LARGEST_TEXT = 20_000;

/** One size of a hostile family: its text's length and the time to run on it. */
export interface Measured {
	length: number;
	ms: number;
}

/** How many times longer `later` took than `earlier`; times under the noise count as the noise. */
const grew = (later: Measured, earlier: Measured): number => later.ms / Math.max(earlier.ms, NOISE_MS);

/**
 * The time for 8n over the time for n, for n doubling from 8 until the text is over 20,000
 * characters (n is the last-but-three), each time the fastest of 5 batches. It stops at the first
 * size whose time grew more than 30 times over a size an eighth of it, or over its half, so an
 * exponential function fails in seconds instead of hanging; such a size is measured up to three
 * times more first, each after a pause, as a slow spell of a loaded machine (the other jest worker, a
 * collection) passes and real growth stays: a quadratic function grows 64 times at every try.
 */
export async function growth(run: (text: string) => unknown, make: (n: number) => string): Promise<{ ratio: number; sizes: Measured[] }> {
	const sizes: Measured[] = [];
	for (let n = 8; sizes.length < 4 || sizes[sizes.length - 1].length <= LARGEST_TEXT; n *= 2) {
		const text = make(n);
		const size = { length: text.length, ms: msPerRun(run, text, { fastest: true }) };
		sizes.push(size);
		const worst = (): number => Math.max(...[sizes.at(-2), sizes.at(-4)].map((earlier) => (earlier && earlier !== size ? grew(size, earlier) : 0)));
		for (let retry = 0; retry < 3 && worst() > MAX_GROWTH_8X; retry++) {
			await new Promise((resolve) => setTimeout(resolve, 100));
			size.ms = Math.min(size.ms, msPerRun(run, text, { fastest: true }));
		}
		if (worst() > MAX_GROWTH_8X) return { ratio: worst(), sizes };
	}
	return { ratio: grew(sizes[sizes.length - 1], sizes[sizes.length - 4]), sizes };
}

/** The sizes and times, for a failing assertion's message. */
export function showSizes(sizes: Measured[]): string {
	return sizes.map(({ length, ms }) => `${length} chars: ${ms.toFixed(3)} ms`).join(', ');
}
