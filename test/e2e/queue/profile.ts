/**
 * V8 CPU profiles (`--cpu-prof`) of n8n's webhook processes, taken by `npm run bench:queue --
 * --profile` once while the Service Bot Trigger (A) and once while the floor trigger (F) received the
 * same number of updates: CPU per update by function (inclusive) in the measured windows, A beside F,
 * largest difference first, and the package's own functions. What A spends beyond F is what the
 * trigger costs. (V8 samples JavaScript threads only: n8n's expression isolates run elsewhere.)
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number };
	children?: number[];
}

interface Profile {
	nodes: ProfileNode[];
	/** Microseconds of V8's own clock. */
	endTime: number;
	samples: number[];
	timeDeltas: number[];
}

/** The profiles of one phase: their folder, the measured window and when the processes stopped (wall-clock ms). */
export interface ProfiledPhase {
	readonly dir: string;
	readonly from: number;
	readonly to: number;
	readonly stoppedAt: number;
}

/** Frames of the package as n8n installs it (not n8n's cache folder, which has the package's name in its path). */
const OURS = '/node_modules/n8n-nodes-service-bot/';
/** V8's pseudo-frames of a process doing nothing or only collecting garbage. */
const NOT_WORK = new Set(['(idle)', '(root)', '(program)']);

function labelOf(node: ProfileNode): string {
	const { functionName, url, lineNumber } = node.callFrame;
	const where = url.replace(/^.*node_modules\//, '').replace(/^file:\/\//, '');
	return `${functionName || '(anonymous)'}${where ? ` ${where}:${lineNumber + 1}` : ''}`;
}

interface Totals {
	/** CPU ms of busy samples. */
	busyMs: number;
	/** Inclusive CPU ms per function label (a label counted once per sample). */
	inclusive: Map<string, number>;
	/** Inclusive CPU ms inside the package's code. */
	oursMs: number;
}

/**
 * Sums the samples taken in the measured window. A profile ends when its process stopped, so a
 * sample's wall-clock time is the stop time less its distance from the profile's end (start-up, the
 * warm-up and the stop are left out).
 */
function totalsOf(phase: ProfiledPhase): Totals {
	const totals: Totals = { busyMs: 0, inclusive: new Map(), oursMs: 0 };
	for (const file of readdirSync(phase.dir).filter((name) => name.endsWith('.cpuprofile'))) {
		const profile = JSON.parse(readFileSync(join(phase.dir, file), 'utf8')) as Profile;
		const byId = new Map(profile.nodes.map((node) => [node.id, node]));
		const parent = new Map<number, number>();
		for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
		const totalUs = profile.timeDeltas.reduce((sum, delta) => sum + delta, 0);
		let atUs = profile.endTime - totalUs;
		const selfMs = new Map<number, number>();
		profile.samples.forEach((id, index) => {
			const delta = profile.timeDeltas[index] ?? 0;
			atUs += delta;
			const wall = phase.stoppedAt - (profile.endTime - atUs) / 1000;
			if (wall >= phase.from && wall <= phase.to) selfMs.set(id, (selfMs.get(id) ?? 0) + delta / 1000);
		});
		for (const [id, ms] of selfMs) {
			if (NOT_WORK.has((byId.get(id) as ProfileNode).callFrame.functionName)) continue;
			totals.busyMs += ms;
			const labels = new Set<string>();
			let inside = false;
			for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
				const node = byId.get(current) as ProfileNode;
				labels.add(labelOf(node));
				if (node.callFrame.url.includes(OURS)) inside = true;
			}
			if (inside) totals.oursMs += ms;
			for (const label of labels) totals.inclusive.set(label, (totals.inclusive.get(label) ?? 0) + ms);
		}
	}
	return totals;
}

/** The comparison as Markdown-ish text: busy CPU per update, the largest differences, the package's functions. */
export function compareProfiles(phaseA: ProfiledPhase, phaseF: ProfiledPhase, updatesPerPhase: number): string {
	const a = totalsOf(phaseA);
	const f = totalsOf(phaseF);
	const per = (ms: number): string => (ms / updatesPerPhase).toFixed(2).padStart(7);
	const differences = [...new Set([...a.inclusive.keys(), ...f.inclusive.keys()])]
		.map((label) => ({ label, a: a.inclusive.get(label) ?? 0, f: f.inclusive.get(label) ?? 0 }))
		.sort((x, y) => y.a - y.f - (x.a - x.f))
		.slice(0, 30);
	const ours = [...a.inclusive.entries()]
		.filter(([label]) => label.includes('dist/nodes/') || label.includes('dist/credentials/'))
		.sort((x, y) => y[1] - x[1])
		.slice(0, 15);
	return [
		`webhook processes, busy CPU per update in the measured window: A ${per(a.busyMs)} ms, F ${per(f.busyMs)} ms (${updatesPerPhase} updates each); inside the package's code: ${per(a.oursMs)} ms`,
		'',
		'largest differences, inclusive CPU ms per update (A, F, A − F):',
		...differences.map((row) => `${per(row.a)} ${per(row.f)} ${per(row.a - row.f)}  ${row.label}`),
		'',
		"the package's functions in A, inclusive CPU ms per update:",
		...ours.map(([label, ms]) => `${per(ms)}  ${label}`),
	].join('\n');
}
