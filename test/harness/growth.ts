/**
 * Time that grows with hostile text, measured without wall-clock upper bounds: a function runs on
 * inputs of growing size (n, 2n, 4n, …, 64n) and the time for 64n over the time for n must stay under
 * MAX_GROWTH_64X = 512 (linear gives 64, n log n about 100, quadratic 4,096, exponential far more).
 * Used by every parser of user or model text.
 *
 * Why 64n, not 8n: a linear function's time per character steps up once or twice as its data grows
 * (V8's memory, the CPU's caches). Measured: the Markdown converter on `[` × n, 45–70 ns a character
 * up to 8,192 characters and 255–300 from 16,384 on, then linear again; under load the step reached
 * 8× in one doubling. Any 8× window holding such a step grows about 32 times, over the 30 this
 * harness allowed; the 64× window grows 256 times for a 4× step and still fails a quadratic function
 * eight times over.
 *
 * Time here is the CPU time of this process (`process.cpuUsage`, user + system), not the wall clock:
 * a process waiting for a core does not count. With wall time, jest's five workers and the lints
 * beside them on 2 cores stretched one batch and not another (`< × n` and `** opener` lines failed
 * in a CI run; six busy loops beside the file made `< × n` fail every time). Each time is still the
 * fastest of a few batches (a collection, a cache another process emptied).
 */

/** The growth allowed from n to 64n: the geometric mean of linear (64) and quadratic (4,096). */
export const MAX_GROWTH_64X = 512;
/** The time allowed per character of a hostile text, in milliseconds (50 µs). */
export const BUDGET_PER_CHAR_MS = 0.05;

/** This process's CPU time so far, in milliseconds (microsecond resolution). */
function cpuMs(): number {
	const { user, system } = process.cpuUsage();
	return (user + system) / 1000;
}

/**
 * CPU milliseconds per `run(text)`, each batch repeated to take at least `minMs` of CPU: the median of
 * the batches, or their fastest (`fastest`).
 */
export function msPerRun(run: (text: string) => unknown, text: string, { batches = 5, minMs = 8, fastest = false } = {}): number {
	const times: number[] = [];
	for (let batch = 0; batch < batches; batch++) {
		let runs = 0;
		const start = cpuMs();
		let elapsed = 0;
		do {
			run(text);
			runs++;
			elapsed = cpuMs() - start;
		} while (elapsed < minMs);
		times.push(elapsed / runs);
	}
	times.sort((a, b) => a - b);
	return fastest ? times[0] : times[Math.floor(times.length / 2)];
}

/** Times under this are measurement noise (timer resolution, the JIT warming up): they count as this. */
const NOISE_MS = 0.05;
/** Sizes grow until the text is longer than this (40,000 to 80,000 characters at the largest). */
const LARGEST_TEXT = 40_000;
/** 64n over n: six doublings. */
const DOUBLINGS = 6;
/** One doubling this much slower is exponential: the harness stops there. */
const MAX_GROWTH_2X = 30;

/** One size of a hostile family: its text's length and the time to run on it. */
export interface Measured {
	length: number;
	ms: number;
}

/** How many times longer `later` took than `earlier`; times under the noise count as the noise. */
const grew = (later: Measured, earlier: Measured): number => later.ms / Math.max(earlier.ms, NOISE_MS);

/**
 * The time for 64n over the time for n, n the largest size's 64th, for sizes doubling from 8 until
 * the text is over 40,000 characters; each time the fastest of 5 batches. It stops early, so an
 * exponential or quadratic function fails in seconds instead of hanging, at the first size that took
 * over 30 times its half, or over 512 times its 64th; such a size is measured up to three times more
 * first, each after a pause, as a slow spell passes and real growth stays.
 */
export async function growth(run: (text: string) => unknown, make: (n: number) => string): Promise<{ ratio: number; sizes: Measured[] }> {
	const sizes: Measured[] = [];
	const window = (): number => (sizes.length > DOUBLINGS ? grew(sizes[sizes.length - 1], sizes[sizes.length - 1 - DOUBLINGS]) : 0);
	for (let n = 8; sizes.length <= DOUBLINGS || sizes[sizes.length - 1].length <= LARGEST_TEXT; n *= 2) {
		const text = make(n);
		const size = { length: text.length, ms: msPerRun(run, text, { fastest: true }) };
		sizes.push(size);
		const previous = sizes.at(-2);
		const doubling = (): number => (previous ? grew(size, previous) : 0);
		const tooFast = (): boolean => doubling() > MAX_GROWTH_2X || window() > MAX_GROWTH_64X;
		for (let retry = 0; retry < 3 && tooFast(); retry++) {
			await new Promise((resolve) => setTimeout(resolve, 100));
			size.ms = Math.min(size.ms, msPerRun(run, text, { fastest: true }));
		}
		// A doubling over 30 times is reported as the 64× growth it would reach at that pace.
		if (doubling() > MAX_GROWTH_2X) return { ratio: Math.max(window(), doubling() ** DOUBLINGS), sizes };
		if (window() > MAX_GROWTH_64X) return { ratio: window(), sizes };
	}
	return { ratio: window(), sizes };
}

/** 'linear' when the time for 64n stayed under MAX_GROWTH_64X times the time for n (growth); else the ratio and every size's time. */
export function growthVerdict({ ratio, sizes }: { ratio: number; sizes: Measured[] }): string {
	return ratio < MAX_GROWTH_64X ? 'linear' : `grew ${ratio.toFixed(0)}× from n to 64n: ${showSizes(sizes)}`;
}

/** The sizes and times, for a failing assertion's message. */
function showSizes(sizes: Measured[]): string {
	return sizes.map(({ length, ms }) => `${length} chars: ${ms.toFixed(3)} ms`).join(', ');
}
