import { computeFigures, processAt, quantile, restartWindows } from './figures';
import type { ProcessWindow } from './figures';

/** Two processes: the first ran 0–100 s and got SIGTERM at 90 s; the second was ready at 110 s and runs on. */
const PROCESSES: ProcessWindow[] = [
	{ startedAt: 0, readyAt: 10_000, stoppedBy: 'SIGTERM', signalAt: 90_000, exitedAt: 100_000 },
	{ startedAt: 101_000, readyAt: 110_000 },
];
const OPTIONS = { workflows: ['A', 'B'], settleMs: 5_000, delayLimitMs: 10_000 };

/** A queue-mode cluster: the main runs throughout; worker-1 is killed at 30 s, its next process ready at 50 s; worker-2 runs throughout. */
const CLUSTER: ProcessWindow[] = [
	{ role: 'main', startedAt: 0, readyAt: 5_000 },
	{ role: 'worker-1', startedAt: 6_000, readyAt: 8_000, stoppedBy: 'SIGKILL', signalAt: 30_000, exitedAt: 30_100 },
	{ role: 'worker-2', startedAt: 6_000, readyAt: 8_000 },
	{ role: 'worker-1', startedAt: 31_000, readyAt: 50_000 },
];

describe('the soak figures', () => {
	it('a restart window runs from the signal to settleMs after the next process was ready; a reply belongs to the process that ran then', () => {
		expect(restartWindows(PROCESSES, 5_000)).toEqual([[90_000, 115_000]]);
		expect([processAt(PROCESSES, 50_000), processAt(PROCESSES, 100_500), processAt(PROCESSES, 500_000)]).toEqual([0, -1, 1]);
	});

	it('counts a pair without a reply as lost, a second reply of the same process as twice within it, of the next as twice across', () => {
		const figures = computeFigures(
			[
				{ text: 'u1', sentAt: 20_000 },
				{ text: 'u2', sentAt: 85_000 },
			],
			[
				{ workflow: 'A', text: 'u1', at: 21_000 },
				{ workflow: 'B', text: 'u1', at: 21_500 },
				{ workflow: 'B', text: 'u1', at: 22_000 },
				{ workflow: 'A', text: 'u2', at: 86_000 },
				{ workflow: 'A', text: 'u2', at: 112_000 },
			],
			PROCESSES,
			OPTIONS,
		);
		expect(figures).toMatchObject({ updates: 2, expected: 4, replies: 5, lost: 1, lostExamples: ['B: u2'], twiceWithinProcess: 1, twiceAcrossProcesses: 1 });
		// u2 lost a reply (no end, not measured): only u1 counts for latency (1000 and 1500 ms).
		expect(figures).toMatchObject({ outsideRestarts: 1, latencyMs: { p50: 1000, p99: 1500, max: 1500 }, spreadMaxMs: 500, delayedByAnother: 0, unattributed: 0 });
	});

	it('a reply is placed by when its execution was created: a killed process\'s execution run by the next one counts for the first', () => {
		const figures = computeFigures(
			[{ text: 'u1', sentAt: 85_000 }],
			[
				// created at 89 s by the first process, started and replied by the second
				{ workflow: 'A', text: 'u1', at: 111_000, createdAt: 89_000 },
				{ workflow: 'A', text: 'u1', at: 112_000, createdAt: 111_500 },
				{ workflow: 'B', text: 'u1', at: 86_000, createdAt: 85_500 },
			],
			PROCESSES,
			OPTIONS,
		);
		expect(figures).toMatchObject({ lost: 0, twiceWithinProcess: 0, twiceAcrossProcesses: 1, unattributed: 0 });
	});

	it('an update outside restart windows whose last reply came more than delayLimitMs after its first is delayed by another workflow', () => {
		const figures = computeFigures(
			[{ text: 'u1', sentAt: 20_000 }],
			[
				{ workflow: 'A', text: 'u1', at: 21_000 },
				{ workflow: 'B', text: 'u1', at: 32_000 },
			],
			PROCESSES,
			OPTIONS,
		);
		expect(figures).toMatchObject({ lost: 0, delayedByAnother: 1, spreadMaxMs: 11_000, latencyMs: { max: 12_000 } });
	});

	it('in a cluster, a restart window ends when the next process of the same role is ready, and a reply belongs to the process placed with it', () => {
		expect(restartWindows(CLUSTER, 5_000)).toEqual([[30_000, 55_000]]);
		const figures = computeFigures(
			[
				{ text: 'u1', sentAt: 10_000 },
				{ text: 'u2', sentAt: 20_000 },
			],
			[
				{ workflow: 'A', text: 'u1', at: 11_000, process: 1 },
				{ workflow: 'B', text: 'u1', at: 11_000, process: 2 },
				// the same reply twice from worker-2 (one process); u2's A only from worker-1's next process, and B
				// from worker-2 and again from that next process
				{ workflow: 'B', text: 'u1', at: 12_000, process: 2 },
				{ workflow: 'B', text: 'u2', at: 21_000, process: 2 },
				{ workflow: 'A', text: 'u2', at: 51_000, process: 3 },
				{ workflow: 'B', text: 'u2', at: 52_000, process: 3 },
			],
			CLUSTER,
			OPTIONS,
		);
		expect(figures).toMatchObject({ lost: 0, twiceWithinProcess: 1, twiceAcrossProcesses: 1, unattributed: 0 });
		// u2's A reply came in the kill's window: only u1 is outside restart windows.
		expect(figures).toMatchObject({ outsideRestarts: 1, latencyMs: { p50: 1000, max: 1000 } });
	});

	it('in a cluster, an update run again after the worker that ran it was SIGKILLed is twice across processes, though one main received it; run twice by a worker that lived on, twice within', () => {
		const figures = computeFigures(
			[
				{ text: 'u1', sentAt: 28_000 },
				{ text: 'u2', sentAt: 60_000 },
			],
			[
				// u1 for A: replied by worker-1 just before its kill, run again by worker-2 (the main's one receipt)
				{ workflow: 'A', text: 'u1', at: 29_000, process: 0, ranBy: 1 },
				{ workflow: 'A', text: 'u1', at: 120_000, process: 0, ranBy: 2 },
				{ workflow: 'B', text: 'u1', at: 29_500, process: 0, ranBy: 2 },
				// u2 for B: twice from worker-2, which was never killed
				{ workflow: 'A', text: 'u2', at: 61_000, process: 0, ranBy: 3 },
				{ workflow: 'B', text: 'u2', at: 61_000, process: 0, ranBy: 2 },
				{ workflow: 'B', text: 'u2', at: 62_000, process: 0, ranBy: 2 },
			],
			CLUSTER,
			OPTIONS,
		);
		expect(figures).toMatchObject({ lost: 0, twiceWithinProcess: 1, twiceAcrossProcesses: 1, unattributed: 0 });
	});

	it('quantiles by nearest rank', () => {
		const values = Array.from({ length: 100 }, (_, i) => i + 1);
		expect([quantile(values, 0.5), quantile(values, 0.99), quantile(values, 1)]).toEqual([50, 99, 100]);
	});
});
