/**
 * The workflows polling one bot are independent: one workflow's Download Files keeps that workflow's
 * own order but never delays the others, and the service is still told an update is done only once
 * every workflow that runs it was handed its execution. While an execution is unconfirmed the feed
 * does not keep asking the service for the same updates. Through n8n-core's TriggerContext against
 * the emulator; a file's download is held by a stand-in in front of the emulator until the test lets
 * it go, so order is proven by what ran while it was held.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { ServiceBotPollingTrigger } from '../../../nodes/ServiceBotPollingTrigger/ServiceBotPollingTrigger.node';
import { POLL_TIMING } from '../../../nodes/ServiceBotPollingTrigger/feed';
import type { Emulator, RecordedCall } from '../../emulator';
import type { RunningTrigger, StartTriggerOptions } from '../../harness';
import { readBinary, useFileDownloads } from '../../harness';
import { SAMPLES, userSendsFile } from '../../harness/sample-files';
import { makeHarness } from '../../harness/trigger-nodes';
import { SHORT_POLL_WAITS, useEmulator, type Running } from '../../harness/emulator-suite';

let emu: Emulator;
const running: Running[] = [];
/** The stand-ins the running test started (`holdFiles`), closed by the hook below. */
const standIns: FileHolder[] = [];
// Declared before useEmulator's hooks, so it runs before them (jest runs a block's afterEach hooks in
// the order declared), and they close `running`, then reset the emulator. Files held go now (a trigger
// that leaves waits for its download), and the stand-ins close after the triggers: closed before them,
// a stand-in cut off a request a trigger had just sent through it while passing it on, and the emulator
// recorded it after the reset as the next test's first call (the previous test's getUpdates with offset
// 2, seen under load, where it told the next test's update 1 done).
afterEach(() => {
	for (const files of standIns) files.letFilesGo();
	const closing = standIns.splice(0);
	running.push(async () => {
		for (const files of closing) await files.close();
	});
});
useEmulator({ running, started: (started) => (emu = started), pollWaits: SHORT_POLL_WAITS });

/**
 * A stand-in for the service in front of the emulator: every call passes through, except that file
 * downloads (`/file/…`) are held until `letFilesGo()`. Closed after the test's triggers (`standIns`).
 */
interface FileHolder {
	baseUrl: string;
	/** Downloads that arrived (held or not). */
	readonly downloads: number;
	/** Downloads held now. */
	readonly held: number;
	letFilesGo(): void;
	close(): Promise<void>;
}

async function holdFiles(target: string): Promise<FileHolder> {
	const upstream = new URL(target);
	let holding = true;
	let downloads = 0;
	const waiting: Array<() => void> = [];
	const forward = (req: http.IncomingMessage, res: http.ServerResponse): void => {
		const outgoing = http.request(
			{ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
			(answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			},
		);
		outgoing.on('error', () => res.destroy());
		// A client that gives up (an aborted long poll) gives up at the emulator too.
		res.on('close', () => {
			if (!res.writableFinished) outgoing.destroy();
		});
		req.pipe(outgoing);
	};
	const server = http.createServer((req, res) => {
		if (!(req.url ?? '').includes('/file/')) return forward(req, res);
		downloads++;
		if (!holding) return forward(req, res);
		req.pause();
		waiting.push(() => {
			req.resume();
			forward(req, res);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	const letFilesGo = (): void => {
		holding = false;
		for (const go of waiting.splice(0)) go();
	};
	const holder: FileHolder = {
		baseUrl: `http://127.0.0.1:${port}`,
		get downloads() {
			return downloads;
		},
		get held() {
			return waiting.length;
		},
		letFilesGo,
		async close() {
			letFilesGo();
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
	standIns.push(holder);
	return holder;
}

useFileDownloads();

/** A published workflow polling the bot; records for each emit which of its updates the service no longer kept pending then. */
interface Published {
	trigger: RunningTrigger;
	/** Per emit, in order: the updates it ran that the service had marked delivered before it. */
	doneBeforeEmit: number[][];
}

/** The updates one emit ran: a grouped run's messages (`updates`), else its one update. */
function updatesRun(data: INodeExecutionData[][]): number[] {
	const json = data[0][0].json;
	return Array.isArray(json.updates) ? (json.updates as IDataObject[]).map((update) => update.update_id as number) : [json.update_id as number];
}

async function publish(workflowName: string, options: IDataObject, serviceBaseUrl?: string, start: StartTriggerOptions = {}): Promise<Published> {
	const parameters: INodeParameters = { updates: ['*'], options: options as INodeParameters };
	const harness = await makeHarness(emu, { nodeType: new ServiceBotPollingTrigger(), workflowName, typeVersion: 2, parameters, serviceBaseUrl });
	const doneBeforeEmit: number[][] = [];
	const onEmit = (data: INodeExecutionData[][]): void => {
		// What the emulator itself keeps pending at this moment: an update marked delivered is gone.
		const kept = new Set(emu.pendingUpdates().map((update) => update.update_id));
		doneBeforeEmit.push(updatesRun(data).filter((id) => !kept.has(id)));
	};
	const trigger = await harness.startTrigger({ ...start, onEmit });
	running.push(trigger);
	return { trigger, doneBeforeEmit };
}

const itemsOf = (published: Published): INodeExecutionData[] => published.trigger.emitted.map((run) => run[0][0]);
const idsOf = (published: Published): number[] => itemsOf(published).map((item) => item.json.update_id as number);
const polls = (): RecordedCall[] => emu.callsTo('getUpdates');

/**
 * The spec: getUpdates with offset N marks every update below N delivered; the service no longer keeps
 * it pending. None may be marked before n8n was handed its execution: checked at each emit against
 * what the emulator keeps pending then (its own state, so neither when a call reaches it nor a call
 * left over from another test counts).
 */
function acknowledgedBeforeRun(published: Published): number[] {
	return published.doneBeforeEmit.flat();
}

async function until(condition: () => boolean): Promise<void> {
	while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

const say = async (text: string): Promise<number> => (await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text })).update_id;

describe('one workflow’s Download Files delays no other workflow of the bot', () => {
	test('while workflow A’s download is held, workflow B (no files) runs the photo’s message and the texts after it; A then runs them in its own order, and nothing is acknowledged before the workflows running it were handed it', async () => {
		const files = await holdFiles(emu.baseUrl);
		// A joins first: the feed used to hand each update to A, wait for its download, then to B.
		const a = await publish('A: downloads', { downloadFiles: true }, files.baseUrl);
		const b = await publish('B: texts', {}, files.baseUrl);
		const photo = Number((await userSendsFile(emu, SAMPLES.photo, 'my parcel')).update_id);
		await until(() => files.held === 1);
		const texts = [await say('/status'), await say('are you there?')];

		// B ran all three while A's download is still held.
		await until(() => b.trigger.emitted.length === 3);
		expect(files.held).toBe(1);
		expect(idsOf(b)).toEqual([photo, ...texts]);
		expect(a.trigger.emitted).toEqual([]);
		// The service still holds the photo's update: A has not run it.
		expect(emu.pendingUpdates().map((update) => update.update_id)).toContain(photo);

		files.letFilesGo();
		await a.trigger.waitForEmits(3);
		expect(idsOf(a)).toEqual([photo, ...texts]);
		expect((await readBinary(itemsOf(a)[0].binary!.data)).equals(SAMPLES.photo.bytes)).toBe(true);
		await until(() => emu.pendingUpdates().length === 0);
		expect(acknowledgedBeforeRun(a)).toEqual([]);
		expect(acknowledgedBeforeRun(b)).toEqual([]);
		expect([...a.trigger.errors, ...b.trigger.errors]).toEqual([]);
	});

	test('unpublishing A while its download is held leaves B polling: B runs what comes next, and A’s message still runs with its file', async () => {
		const files = await holdFiles(emu.baseUrl);
		const a = await publish('A: downloads', { downloadFiles: true }, files.baseUrl);
		const b = await publish('B: texts', {}, files.baseUrl);
		const photo = Number((await userSendsFile(emu, SAMPLES.document)).update_id);
		await until(() => files.held === 1);
		const closing = a.trigger.close();
		const later = await say('after A was unpublished');
		await until(() => b.trigger.emitted.length === 2);
		expect(idsOf(b)).toEqual([photo, later]);
		expect(files.held).toBe(1);
		files.letFilesGo();
		await closing;
		expect(idsOf(a)).toEqual([photo]);
		expect((await readBinary(itemsOf(a)[0].binary!.data)).equals(SAMPLES.document.bytes)).toBe(true);
	});
});

describe('one workflow’s grouped messages and their files delay no other workflow of the bot', () => {
	test('A gathers a photo (Group Messages Within) and 150 commands follow: the spec’s largest answer makes A run its group now; its download is held, and after the bound B runs all 150 while it still is; A’s group then runs once with its file', async () => {
		// The bound after which one workflow's download no longer holds the others back at a full answer.
		jest.replaceProperty(POLL_TIMING, 'fullAnswerHoldMs', 300);
		const files = await holdFiles(emu.baseUrl);
		const a = await publish('A: groups and downloads', { downloadFiles: true, groupMessagesSeconds: 60 }, files.baseUrl);
		const b = await publish('B: commands', {}, files.baseUrl);
		const photo = Number((await userSendsFile(emu, SAMPLES.photo, 'my parcel')).update_id);
		const commands: number[] = [];
		for (let n = 0; n < 150; n++) commands.push((await emu.userSends({ chatId: emu.demo.groupChatId, userId: emu.demo.otherUserId, text: `/status ${n}` })).update_id);
		await until(() => files.held === 1);
		await until(() => b.trigger.emitted.length === 151);
		expect(files.held).toBe(1);
		expect(idsOf(b)).toEqual([photo, ...commands]);
		files.letFilesGo();
		await until(() => a.trigger.emitted.some((run) => run[0][0].binary !== undefined));
		const grouped = itemsOf(a).filter((item) => item.binary !== undefined);
		expect(grouped).toHaveLength(1);
		expect((await readBinary(grouped[0].binary!.data)).equals(SAMPLES.photo.bytes)).toBe(true);
		expect(acknowledgedBeforeRun(b)).toEqual([]);
	});
});

describe('an unconfirmed execution does not make the feed ask the service again and again', () => {
	test('while n8n has not confirmed an execution and nothing else happens, the feed waits for the confirmation (or the idle pause) instead of fetching the same update again; the confirmation moves it on at once', async () => {
		jest.replaceProperty(POLL_TIMING, 'idlePauseMs', 60_000);
		jest.replaceProperty(POLL_TIMING, 'confirmWithinMs', 120_000);
		const a = await publish('A', {}, undefined, { executions: 'whenAsked' });
		const id = await say('slow to start');
		await until(() => a.trigger.emits === 1);
		const afterEmit = polls().length;
		// Longer than the feed's former 250 ms between requests, twice over.
		await new Promise((resolve) => setTimeout(resolve, 600));
		expect(polls().slice(afterEmit).map((call) => call.body.offset)).toEqual([]);
		a.trigger.createExecutions();
		await until(() => !emu.pendingUpdates().some((update) => update.update_id === id));
		expect(idsOf(a)).toEqual([id]);
		expect(emu.pendingUpdates()).toEqual([]);
	});
});

describe('n8n stopping closes the workflows of a bot one after another', () => {
	test('an update that arrives after the first workflow closed is handed to no other before the last closed: the service keeps it for all of them', async () => {
		const a = await publish('A: closed first', {});
		const b = await publish('B: closed last', {});
		const one = await say('before the stop');
		await until(() => a.trigger.emitted.length === 1 && b.trigger.emitted.length === 1);
		await a.trigger.close();
		const two = await say('while n8n stops');
		// The feed fetched it; handed out, B would emit it within a few event-loop turns.
		await until(() => polls().some((call) => JSON.stringify(call.response).includes(`"update_id":${two}`)));
		await new Promise((resolve) => setTimeout(resolve, 300));
		await b.trigger.close();
		expect(idsOf(a)).toEqual([one]);
		// Handed to B while n8n stops, its execution could be stored and not started, then run by n8n's
		// next start beside the update the service brings again (n8n 2.x recovers such executions).
		expect(idsOf(b)).toEqual([one]);
		expect(emu.pendingUpdates().map((update) => update.update_id)).toContain(two);
		expect(emu.pendingUpdates().map((update) => update.update_id)).not.toContain(one);
	});

	test('an update whose execution n8n has not confirmed when the workflows close is told done at the stop: the restart does not run it again', async () => {
		jest.replaceProperty(POLL_TIMING, 'confirmWithinMs', 120_000);
		const a = await publish('A: its execution unconfirmed', {}, undefined, { executions: 'whenAsked' });
		const b = await publish('B', {});
		const id = await say('running as n8n stops');
		await until(() => a.trigger.emits === 1 && b.trigger.emitted.length === 1);
		await a.trigger.close();
		await b.trigger.close();
		expect(emu.pendingUpdates().map((update) => update.update_id)).not.toContain(id);
	});

	test('a workflow really unpublished holds the others\' next updates back only while its departure counts (leftKeepMs)', async () => {
		const keep = jest.replaceProperty(POLL_TIMING, 'leftKeepMs', 300);
		try {
			const a = await publish('A: unpublished', {});
			const b = await publish('B: stays', {});
			const one = await say('before');
			await until(() => a.trigger.emitted.length === 1 && b.trigger.emitted.length === 1);
			await a.trigger.close();
			const two = await say('after A left');
			const three = await say('later still');
			await until(() => b.trigger.emitted.length === 3);
			expect(idsOf(a)).toEqual([one]);
			expect(idsOf(b)).toEqual([one, two, three]);
			await until(() => !emu.pendingUpdates().some((update) => update.update_id === three));
		} finally {
			keep.restore();
		}
	});
});
