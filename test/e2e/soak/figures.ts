/**
 * The soak's figures, computed from what it recorded: the updates users sent (when), the replies the
 * service received (when, from which workflow), and n8n's processes (when each ran, how it was stopped).
 * No I/O here, so the rules that decide "lost", "twice" and "delayed" are tested alone (figures.test.ts).
 */

/** An update a user sent: its text (unique in the run) and when the service took it. */
export interface SentUpdate {
	text: string;
	sentAt: number;
	/** the service's update_id (in the records, to follow its pushes) */
	updateId?: number;
}

/** A reply the service received and executed (a sendMessage it stored): which workflow, for which update, when it arrived. */
export interface Reply {
	workflow: string;
	text: string;
	at: number;
	/**
	 * When n8n created the execution that sent it: the process that received the update. A reply is
	 * placed by this when known, by `at` otherwise: n8n 2.41 runs, at its next start, an execution a
	 * killed process had created and not started, while the update comes again (a webhook never
	 * answered): both replies then come from the new process, but the first was the old one's.
	 */
	createdAt?: number;
	/**
	 * The index (in the processes) of the process that received the update, when the soak places it itself
	 * (queue mode: processes of several roles overlap, so time alone cannot say which). Without it, the
	 * process that ran at `createdAt` (or `at`).
	 */
	process?: number;
	/**
	 * The index of the process lifetime that ran the execution and sent the reply (queue mode: a worker,
	 * from the calls each process made through its proxy). A second reply of a run whose worker was
	 * SIGKILLed, sent by another process, is twice across processes, whoever received the update: the
	 * process that ran it first is gone (the Polling Trigger runs an update n8n lost with its worker again).
	 */
	ranBy?: number;
}

/**
 * One n8n process: spawned, ready, signalled (SIGTERM or SIGKILL) and gone; the last one of its role runs
 * to the end. Processes of one role (regular mode: the only one; queue mode: `main`, `worker-1`, …) follow
 * each other; processes of different roles overlap.
 */
export interface ProcessWindow {
	/** what it is in the cluster (queue mode); one role when absent */
	role?: string;
	startedAt: number;
	readyAt: number;
	stoppedBy?: 'SIGTERM' | 'SIGKILL';
	signalAt?: number;
	exitedAt?: number;
}

export interface FigureOptions {
	/** the workflows every update must get a reply from */
	workflows: string[];
	/** after a restart's readiness, how long still counts as the restart (webhooks registered again, the service's backoff) */
	settleMs: number;
	/** "delayed by another workflow": a reply later than this after the update's first reply */
	delayLimitMs: number;
}

export interface Figures {
	updates: number;
	/** replies expected: updates × workflows */
	expected: number;
	replies: number;
	/** (update, workflow) pairs that never got a reply */
	lost: number;
	lostExamples: string[];
	/** a second reply (same update, same workflow) from the same n8n process */
	twiceWithinProcess: number;
	/** a second reply from another n8n process (after a restart) */
	twiceAcrossProcesses: number;
	twiceExamples: string[];
	/** updates whose time from sent to last reply overlaps no restart window */
	outsideRestarts: number;
	/** first reply of each (update, workflow) outside restart windows: ms from sent */
	latencyMs: { p50: number; p99: number; max: number } | null;
	/** the largest time between an update's first reply and its last one (another workflow's), outside restart windows */
	spreadMaxMs: number;
	/** updates outside restart windows whose reply from some workflow came more than delayLimitMs after its first reply */
	delayedByAnother: number;
	delayedExamples: string[];
	/** a reply that arrived when no n8n process ran (should be none) */
	unattributed: number;
}

/** The restart windows: from each signal until `settleMs` after the next process of the same role was ready. */
export function restartWindows(processes: ProcessWindow[], settleMs: number): Array<[number, number]> {
	const windows: Array<[number, number]> = [];
	for (let i = 0; i < processes.length; i++) {
		const next = processes.slice(i + 1).find((p) => p.role === processes[i].role);
		if (!next) continue;
		const signal = processes[i].signalAt ?? processes[i].exitedAt ?? next.startedAt;
		windows.push([signal, next.readyAt + settleMs]);
	}
	return windows;
}

/** The index of the process that ran at `at`, or -1. */
export function processAt(processes: ProcessWindow[], at: number): number {
	return processes.findIndex((p, i) => at >= p.startedAt && at <= (p.exitedAt ?? (i === processes.length - 1 ? Number.POSITIVE_INFINITY : p.startedAt)));
}

/** The value at quantile `q` (0–1) of sorted values (nearest rank). */
export function quantile(sorted: number[], q: number): number {
	if (sorted.length === 0) return Number.NaN;
	return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export function computeFigures(sent: SentUpdate[], replies: Reply[], processes: ProcessWindow[], options: FigureOptions): Figures {
	const windows = restartWindows(processes, options.settleMs);
	const byPair = new Map<string, Reply[]>();
	for (const reply of [...replies].sort((a, b) => a.at - b.at)) {
		const key = `${reply.workflow}\u0000${reply.text}`;
		const list = byPair.get(key) ?? [];
		list.push(reply);
		byPair.set(key, list);
	}
	const figures: Figures = {
		updates: sent.length,
		expected: sent.length * options.workflows.length,
		replies: 0,
		lost: 0,
		lostExamples: [],
		twiceWithinProcess: 0,
		twiceAcrossProcesses: 0,
		twiceExamples: [],
		outsideRestarts: 0,
		latencyMs: null,
		spreadMaxMs: 0,
		delayedByAnother: 0,
		delayedExamples: [],
		unattributed: 0,
	};
	const latencies: number[] = [];
	for (const update of sent) {
		const firsts: number[] = [];
		for (const workflow of options.workflows) {
			const got = byPair.get(`${workflow}\u0000${update.text}`) ?? [];
			figures.replies += got.length;
			if (got.length === 0) {
				figures.lost += 1;
				if (figures.lostExamples.length < 10) figures.lostExamples.push(`${workflow}: ${update.text}`);
				continue;
			}
			firsts.push(got[0].at);
			const seen = new Set<number>();
			for (const reply of got) {
				const index = reply.process ?? processAt(processes, reply.createdAt ?? reply.at);
				if (index < 0) figures.unattributed += 1;
				if (reply === got[0]) {
					seen.add(index);
					continue;
				}
				const earlier = got.slice(0, got.indexOf(reply));
				// Run again because the worker that ran it was killed: that process is gone.
				const afterItsRunnerDied = earlier.every(
					(before) => before.ranBy !== undefined && reply.ranBy !== undefined && before.ranBy !== reply.ranBy && processes[before.ranBy]?.stoppedBy === 'SIGKILL',
				);
				if (seen.has(index) && !afterItsRunnerDied) figures.twiceWithinProcess += 1;
				else figures.twiceAcrossProcesses += 1;
				seen.add(index);
				if (figures.twiceExamples.length < 10) figures.twiceExamples.push(`${workflow}: ${update.text} (process ${[...seen].join(', ')})`);
			}
		}
		// An update some workflow never answered has no end: it is not measured for delay.
		if (firsts.length < options.workflows.length) continue;
		const last = Math.max(...firsts);
		const overlaps = windows.some(([from, to]) => update.sentAt <= to && last >= from);
		if (overlaps) continue;
		figures.outsideRestarts += 1;
		for (const at of firsts) latencies.push(at - update.sentAt);
		const spread = last - Math.min(...firsts);
		figures.spreadMaxMs = Math.max(figures.spreadMaxMs, spread);
		if (spread > options.delayLimitMs) {
			figures.delayedByAnother += 1;
			if (figures.delayedExamples.length < 10) figures.delayedExamples.push(`${update.text}: ${(spread / 1000).toFixed(1)} s between its first and last reply`);
		}
	}
	latencies.sort((a, b) => a - b);
	if (latencies.length > 0) figures.latencyMs = { p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), max: latencies[latencies.length - 1] };
	return figures;
}
