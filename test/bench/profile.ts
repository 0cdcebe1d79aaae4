/**
 * CPU profile of one run, taken in-process with the V8 inspector (the same sampler as `node --cpu-prof`),
 * saved as a .cpuprofile (open it in Chrome DevTools or speedscope) and summarised: self time by where
 * the code lives — our node, n8n's HTTP helper stack, the engine and expressions, Node's own http/net,
 * GC — and the functions with the most self time.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const OWN_CODE = [join(ROOT, 'nodes') + '/', join(ROOT, 'credentials') + '/'];
const TEST_CODE = join(ROOT, 'test') + '/';

interface CallFrame {
	functionName: string;
	url: string;
	lineNumber: number;
}

interface ProfileNode {
	id: number;
	callFrame: CallFrame;
	hitCount?: number;
	children?: number[];
}

interface CpuProfile {
	nodes: ProfileNode[];
	startTime: number;
	endTime: number;
	samples?: number[];
	timeDeltas?: number[];
}

export interface ProfileSummary {
	file: string;
	wallMs: number;
	/** Sampled time by category, ms (idle included, so the parts add up to the wall time). */
	categories: Record<string, number>;
	/** The functions with the most self time. */
	top: Array<{ ms: number; fn: string; where: string }>;
}

export const CATEGORIES = [
	'our node (nodes/, credentials/)',
	'Telegram node (n8n-nodes-base)',
	'n8n HTTP helper (@n8n/backend-network, axios, agents)',
	'n8n engine + expressions (n8n-core, n8n-workflow)',
	'Node core: http, net, streams, timers (node:*)',
	'bench + harness (test/)',
	'other JS',
	'GC',
	'idle (waiting for I/O)',
	'program (V8/native, unattributed)',
] as const;

type Category = (typeof CATEGORIES)[number];

const HTTP_PACKAGES =
	/node_modules\/(@n8n\/backend-network|axios|follow-redirects|proxy-from-env|form-data|http-proxy-agent|https-proxy-agent|agent-base|combined-stream|asynckit|mime-types|mime-db|qs)\//;
const ENGINE_PACKAGES =
	/node_modules\/(n8n-core|n8n-workflow|@n8n\/[^/]+|esprima-next|recast|ast-types|jmespath|luxon|lodash|js-base64|title-case|transliteration|uuid|xml2js|zod|reflect-metadata)\//;

/** The category of a frame, or undefined for a native frame (no URL) that is charged to its caller. */
function categoryOf(frame: CallFrame): Category | undefined {
	const { url, functionName } = frame;
	if (functionName === '(garbage collector)') return 'GC';
	if (functionName === '(idle)') return 'idle (waiting for I/O)';
	if (functionName === '(program)' || functionName === '(root)') return 'program (V8/native, unattributed)';
	if (url === '') return undefined;
	const path = url.replace(/^file:\/\//, '');
	if (path.startsWith('node:')) return 'Node core: http, net, streams, timers (node:*)';
	if (path.includes('/n8n-nodes-base/')) return 'Telegram node (n8n-nodes-base)';
	if (HTTP_PACKAGES.test(path)) return 'n8n HTTP helper (@n8n/backend-network, axios, agents)';
	if (ENGINE_PACKAGES.test(path)) return 'n8n engine + expressions (n8n-core, n8n-workflow)';
	if (path.includes('/node_modules/')) return 'other JS';
	if (OWN_CODE.some((folder) => path.startsWith(folder))) return 'our node (nodes/, credentials/)';
	if (path.startsWith(TEST_CODE)) return 'bench + harness (test/)';
	return 'other JS';
}

function post<T>(session: Session, method: string, params?: object): Promise<T> {
	return new Promise<T>((resolve, reject) => {
		session.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result as T)));
	});
}

/** Runs `work` under the sampling profiler (sampling every 100 µs). */
export async function profile(file: string, work: () => Promise<void>): Promise<ProfileSummary> {
	const session = new Session();
	session.connect();
	try {
		await post(session, 'Profiler.enable');
		await post(session, 'Profiler.setSamplingInterval', { interval: 100 });
		await post(session, 'Profiler.start');
		let failure: unknown;
		try {
			await work();
		} catch (error) {
			failure = error;
		}
		const { profile: data } = await post<{ profile: CpuProfile }>(session, 'Profiler.stop');
		writeFileSync(file, JSON.stringify(data));
		if (failure !== undefined) throw failure;
		return summarise(file, data);
	} finally {
		session.disconnect();
	}
}

function summarise(file: string, data: CpuProfile): ProfileSummary {
	const byId = new Map<number, ProfileNode>();
	const parentOf = new Map<number, number>();
	for (const node of data.nodes) {
		byId.set(node.id, node);
		for (const child of node.children ?? []) parentOf.set(child, node.id);
	}
	/** A native frame (JSON.parse, a socket write, …) is charged to the nearest caller with a URL. */
	const categoryOfNode = (id: number): Category => {
		for (let current: number | undefined = id; current !== undefined; current = parentOf.get(current)) {
			const node = byId.get(current);
			const category = node ? categoryOf(node.callFrame) : undefined;
			if (category) return category;
		}
		return 'program (V8/native, unattributed)';
	};
	const selfUs = new Map<number, number>();
	const samples = data.samples ?? [];
	const deltas = data.timeDeltas ?? [];
	// Each sample's time is the delta to the NEXT sample (Chrome DevTools' convention).
	for (let index = 0; index < samples.length; index++) {
		const delta = deltas[index + 1] ?? 0;
		selfUs.set(samples[index], (selfUs.get(samples[index]) ?? 0) + delta);
	}
	const categories: Record<string, number> = {};
	for (const name of CATEGORIES) categories[name] = 0;
	const perFunction = new Map<string, { ms: number; fn: string; where: string }>();
	for (const [id, us] of selfUs) {
		const node = byId.get(id);
		if (!node) continue;
		const category = categoryOfNode(id);
		categories[category] += us / 1000;
		const short = node.callFrame.url.replace(/^file:\/\//, '').replace(/^.*node_modules\//, '').replace(`${ROOT}/`, '');
		const where = `${short}:${node.callFrame.lineNumber + 1}`;
		const key = `${node.callFrame.functionName}@${where}`;
		const entry = perFunction.get(key) ?? { ms: 0, fn: node.callFrame.functionName || '(anonymous)', where };
		entry.ms += us / 1000;
		perFunction.set(key, entry);
	}
	const top = [...perFunction.values()].sort((a, b) => b.ms - a.ms).slice(0, 15);
	return { file, wallMs: (data.endTime - data.startTime) / 1000, categories, top };
}

interface SamplingHeapNode {
	callFrame: CallFrame;
	selfSize: number;
	id: number;
	children: SamplingHeapNode[];
}

export interface AllocationSummary {
	file: string;
	/** Bytes allocated (sampled, garbage included) by category of the allocating code, MB. */
	categoriesMB: Record<string, number>;
	totalMB: number;
}

/**
 * Allocation profile of one run: V8's sampling heap profiler with the objects that GC already
 * collected kept in the profile, so it shows everything allocated (the garbage that makes the peak
 * RSS), by where the allocating code lives.
 */
export async function allocationProfile(file: string, work: () => Promise<void>): Promise<AllocationSummary> {
	const session = new Session();
	session.connect();
	try {
		await post(session, 'HeapProfiler.enable');
		await post(session, 'HeapProfiler.startSampling', {
			samplingInterval: 16384,
			includeObjectsCollectedByMajorGC: true,
			includeObjectsCollectedByMinorGC: true,
		});
		let failure: unknown;
		try {
			await work();
		} catch (error) {
			failure = error;
		}
		const { profile: data } = await post<{ profile: { head: SamplingHeapNode } }>(session, 'HeapProfiler.stopSampling');
		writeFileSync(file, JSON.stringify(data));
		if (failure !== undefined) throw failure;
		const categoriesMB: Record<string, number> = {};
		for (const name of CATEGORIES) categoriesMB[name] = 0;
		let total = 0;
		const walk = (node: SamplingHeapNode, inherited: Category): void => {
			const own = categoryOf(node.callFrame);
			const category = own ?? inherited;
			categoriesMB[category] += node.selfSize / 1024 / 1024;
			total += node.selfSize;
			for (const child of node.children) walk(child, category);
		};
		walk(data.head, 'program (V8/native, unattributed)');
		return { file, categoriesMB, totalMB: total / 1024 / 1024 };
	} finally {
		session.disconnect();
	}
}
