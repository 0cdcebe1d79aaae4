/**
 * CPU time from /proc (Linux): of process trees (a process and its descendants) and of the whole
 * machine, to say what saturates during a measurement.
 */
import { readFileSync, readdirSync } from 'node:fs';

/** Linux's USER_HZ: /proc reports CPU times in 1/100 s on every architecture Node runs on. */
const TICKS_PER_SECOND = 100;

interface ProcessTimes {
	ppid: number;
	seconds: number;
}

/** Parent and CPU seconds (user + system) of every live process. */
function processTable(): Map<number, ProcessTimes> {
	const table = new Map<number, ProcessTimes>();
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		let stat: string;
		try {
			stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
		} catch {
			continue; // exited meanwhile
		}
		// Fields after the command name (which may hold spaces): state ppid pgrp … utime(12) stime(13).
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		table.set(Number(entry), { ppid: Number(fields[1]), seconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND });
	}
	return table;
}

/**
 * CPU seconds used so far by process `pid` and its live descendants (an n8n process with its task
 * runner; Postgres with its backends, which leave the postmaster's process group).
 */
function treeCpuSeconds(table: Map<number, ProcessTimes>, pid: number): number {
	const children = new Map<number, number[]>();
	for (const [child, { ppid }] of table) children.set(ppid, [...(children.get(ppid) ?? []), child]);
	let seconds = 0;
	const pending = [pid];
	while (pending.length > 0) {
		const next = pending.pop() as number;
		seconds += table.get(next)?.seconds ?? 0;
		pending.push(...(children.get(next) ?? []));
	}
	return seconds;
}

/** Busy and total CPU seconds of the whole machine so far (all cores). */
function machineCpuSeconds(): { busy: number; total: number } {
	const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
	const values = line.trim().split(/\s+/).slice(1).map(Number);
	const total = values.reduce((sum, value) => sum + value, 0);
	const idle = values[3] + (values[4] ?? 0); // idle + iowait
	return { busy: (total - idle) / TICKS_PER_SECOND, total: total / TICKS_PER_SECOND };
}

export interface CpuSample {
	at: number;
	groups: Map<string, number>;
	self: number;
	machine: { busy: number; total: number };
}

/** CPU seconds of each named process tree, of this process and of the machine, now. */
export function sampleCpu(groups: Map<string, number>): CpuSample {
	const usage = process.cpuUsage();
	const table = processTable();
	return {
		at: Date.now(),
		groups: new Map([...groups].map(([name, pid]) => [name, treeCpuSeconds(table, pid)])),
		self: (usage.user + usage.system) / 1e6,
		machine: machineCpuSeconds(),
	};
}

/** Cores each tree used between two samples (1 = one core fully busy). */
export function coresUsed(before: CpuSample, after: CpuSample): { groups: Map<string, number>; self: number; machine: number; machineCores: number } {
	const wall = (after.at - before.at) / 1000;
	const groups = new Map<string, number>();
	for (const [name, seconds] of after.groups) groups.set(name, (seconds - (before.groups.get(name) ?? 0)) / wall);
	const machineTotal = after.machine.total - before.machine.total;
	const machineCores = machineTotal / wall;
	return {
		groups,
		self: (after.self - before.self) / wall,
		machine: (after.machine.busy - before.machine.busy) / wall,
		machineCores: Math.round(machineCores),
	};
}
