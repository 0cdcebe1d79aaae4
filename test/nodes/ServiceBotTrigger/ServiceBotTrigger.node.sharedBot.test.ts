/**
 * Several workflows on one bot: published Service Bot Triggers of one n8n on the same bot all
 * receive its updates, each through its own filters; a test in the editor listens beside them;
 * publishing and unpublishing in any order keeps the bot's webhook right. Every workflow is a real
 * harness (n8n-core's HookContext and WebhookContext) behind one HTTP server, as workflows share
 * n8n's port; the emulator pushes to the bot's webhook over HTTP, and forwarded copies travel over
 * HTTP too.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { randomUUID } from 'node:crypto';

import { ServiceBot } from '../../../nodes/ServiceBot/ServiceBot.node';
import { FORWARD_TIMING } from '../../../nodes/ServiceBotTrigger/webhook/forward';
import { IN_FLIGHT_TIMING } from '../../../nodes/shared/trigger/duplicates';
import { WRITE_TIMING } from '../../../nodes/ServiceBotTrigger/webhook/lifecycle';
import type { Emulator } from '../../emulator';
import { executeNode, freePort, startWebhookServer, type ExecuteNodeResult, type TriggerHarness, type WebhookServer } from '../../harness';
import { SECRET_HEADER, freshNodeType, inNewProcess, makeHarness, sendButton, type HarnessOptions } from '../../harness/trigger-nodes';
import { credentialsFor, startTestEmulator, useEmulator, type LogSpy, type Running } from '../../harness/emulator-suite';
import { n8nRetries } from '../../harness/publish-errors';

let emu: Emulator;
let logs: LogSpy;
let base: string;
let server: WebhookServer | undefined;
const running: Running[] = [];
useEmulator({ running, started: (started) => (emu = started), logging: (spy) => (logs = spy) });

/**
 * Every workflow a test published is unpublished after it, as n8n would: the triggers of this n8n
 * know each other in memory (who holds a bot), and a workflow left published would be another
 * workflow on the bot in the next test.
 */
const made: TriggerHarness[] = [];

beforeEach(async () => {
	base = `http://127.0.0.1:${await freePort()}/`;
	// The waits between attempts, shortened: what is asserted is whether and how often, not when.
	jest.replaceProperty(FORWARD_TIMING, 'retryDelaysMs', [5, 10, 20]);
	jest.replaceProperty(WRITE_TIMING, 'retry', { transientRetries: 5, backoffBaseMs: 5 });
	jest.replaceProperty(WRITE_TIMING, 'removalRetryDelaysMs', [20, 40]);
	running.push(async () => {
		for (const harness of made.splice(0)) await harness.delete().catch(() => false);
		await server?.close();
		server = undefined;
	});
});

/** The query parameter that lists the listeners (README: several workflows on one bot). */
const LISTENERS = 'service-bot-listeners';

async function workflow(
	parameters: INodeParameters,
	named: { workflowId?: string; workflowName?: string; typeVersion?: number; after?: HarnessOptions['after'] } = {},
): Promise<TriggerHarness> {
	const harness = await makeHarness(emu, { webhookBaseUrl: base, workflowId: `wf-${randomUUID().slice(0, 8)}`, parameters, ...named });
	made.push(harness);
	return harness;
}

/** How n8n's port treats requests before a workflow gets them (startWebhookServer's options). */
type PortBehaviour = NonNullable<Parameters<typeof startWebhookServer>[1]>;

/**
 * Serves these workflows on n8n's one port (a workflow not served answers 404, as an unknown path);
 * `hold`: a delivery to a path waits for what it returns (a slow workflow); `refuse`: n8n answers it
 * instead of the workflow (a busy n8n).
 */
async function serve(...workflows: Array<TriggerHarness | PortBehaviour>): Promise<WebhookServer> {
	await server?.close();
	const harnesses = workflows.filter((entry): entry is TriggerHarness => 'receive' in entry);
	const behaviour = Object.assign({}, ...workflows.filter((entry): entry is PortBehaviour => !('receive' in entry))) as PortBehaviour;
	server = await startWebhookServer(harnesses, behaviour);
	return server;
}

/** A promise held until `release` is called (a slow workflow's deliveries wait for it). */
function gate(): { released: Promise<void>; release: () => void } {
	let release: () => void = () => undefined;
	const released = new Promise<void>((resolve) => {
		release = resolve;
	});
	return { released, release };
}

/** Resolves once `condition` holds (checked every few milliseconds). */
async function until(condition: () => boolean): Promise<void> {
	while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** The update ids a workflow's executions (production, or its test) carried, in arrival order. */
function ran(harness: TriggerHarness, mode: 'trigger' | 'manual' = 'trigger'): number[] {
	return (server?.executionsOf(harness, mode) ?? []).map((data) => Number((data[0][0].json as IDataObject).update_id));
}

/** The listeners the bot's webhook names, as paths with their run (`p`/`t`), receiver first. */
function listeners(): string[] {
	const hook = emu.webhookOf();
	if (!hook) return [];
	const url = new URL(hook.url);
	const list = url.searchParams.get(LISTENERS);
	return list === null ? [`?${url.pathname}`] : list.split(',');
}

const entry = (run: 'p' | 't', url: string): string => `${run}${new URL(url).pathname}`;

async function say(text: string, chatId = emu.demo.privateChatId): Promise<number> {
	return (await emu.userSends({ chatId, userId: emu.demo.userId, text })).update_id;
}

async function tap(data: string): Promise<number> {
	const messageId = await sendButton(emu, emu.demo.groupChatId, data);
	return (await emu.userClicks({ chatId: emu.demo.groupChatId, userId: emu.demo.otherUserId, messageId, data })).update_id;
}

describe('several published workflows on one bot', () => {
	test('three workflows each run exactly the updates their own filters select, once, in the order the service sent them', async () => {
		// Max Connections 1: the service sends one update at a time, so the order is the service's.
		const messages = await workflow({ updates: ['message'], options: { maxConnections: 1 } });
		const clicks = await workflow({ updates: ['callback_query'], options: {} });
		const group = await workflow({ updates: ['*'], options: { chatIds: emu.demo.groupChatId } });
		await serve(messages, clicks, group);
		for (const harness of [messages, clicks, group]) await harness.activate();
		expect(listeners()).toEqual([entry('p', messages.webhookUrl), entry('p', clicks.webhookUrl), entry('p', group.webhookUrl)]);
		expect(emu.webhookOf()).toMatchObject({ maxConnections: 1 });

		const privateHello = await say('hello');
		const click = await tap('vote:yes');
		const groupHello = await say('hi all', emu.demo.groupChatId);
		const privateBye = await say('bye');
		await emu.idle();

		expect(ran(messages)).toEqual([privateHello, groupHello, privateBye]);
		expect(ran(clicks)).toEqual([click]);
		expect(ran(group)).toEqual([click, groupHello]);
		// Each push was answered, none is pending or sent again.
		expect(emu.webhookOf()).toMatchObject({ pendingUpdateCount: 0, lastError: null });
		expect(server?.receipts.filter((receipt) => receipt.status !== 200)).toEqual([]);
	});

	test('unpublishing the receiver hands the webhook to the next: the others keep every update, nothing lost or run twice', async () => {
		const [first, second, third] = [await workflow({ updates: ['*'], options: {} }), await workflow({ updates: ['*'], options: {} }), await workflow({ updates: ['*'], options: {} })];
		await serve(first, second, third);
		for (const harness of [first, second, third]) await harness.activate();
		const before = [await say('one'), await say('two')];
		await emu.idle();

		expect(await first.delete()).toBe(true);
		expect(listeners()).toEqual([entry('p', second.webhookUrl), entry('p', third.webhookUrl)]);
		const after = [await say('three'), await say('four')];
		await emu.idle();

		expect(ran(first)).toEqual(before);
		for (const harness of [second, third]) expect(ran(harness).sort()).toEqual([...before, ...after].sort());

		// Down to one: its plain URL, as a bot with one workflow has; the last one removes the webhook.
		expect(await third.delete()).toBe(true);
		expect(emu.webhookOf()?.url).toBe(second.webhookUrl);
		const alone = await say('five');
		await emu.idle();
		expect(ran(second)).toContain(alone);
		expect(await second.delete()).toBe(true);
		expect(emu.webhookOf()).toBeNull();
		expect(emu.callsTo('deleteWebhook')).toHaveLength(1);
	});

	test('two workflows published at the same moment in one n8n both listen: their registrations run one after the other, two writes, none lost', async () => {
		const a = await workflow({ updates: ['*'], options: {} });
		const b = await workflow({ updates: ['*'], options: {} });
		await serve(a, b);
		await Promise.all([a.activate(), b.activate()]);
		const writes = emu.callsTo('setWebhook').map((call) => String(call.body.url));
		expect(writes).toHaveLength(2);
		expect(listeners().sort()).toEqual([entry('p', a.webhookUrl), entry('p', b.webhookUrl)].sort());
		const update = await say('both?');
		await emu.idle();
		expect(ran(a)).toEqual([update]);
		expect(ran(b)).toEqual([update]);
	});

	test('two workflows published at the same moment while the service answers the first write 429 (retry_after 1): both listen, neither write lost', async () => {
		const a = await workflow({ updates: ['*'], options: {} });
		const b = await workflow({ updates: ['*'], options: {} });
		await serve(a, b);
		emu.injectFault({ kind: 'status', status: 429, retryAfter: 1, method: 'setWebhook' });
		await Promise.all([a.activate(), b.activate()]);
		expect(listeners().sort()).toEqual([entry('p', a.webhookUrl), entry('p', b.webhookUrl)].sort());
		const update = await say('both?');
		await emu.idle();
		expect(ran(a)).toEqual([update]);
		expect(ran(b)).toEqual([update]);
	});

	test('unpublishing the receiver while the service answers 502 once: the write is made again, the other two keep every update', async () => {
		const [first, second, third] = [await workflow({ updates: ['*'], options: {} }), await workflow({ updates: ['*'], options: {} }), await workflow({ updates: ['*'], options: {} })];
		await serve(first, second, third);
		for (const harness of [first, second, third]) await harness.activate();
		emu.injectFault({ kind: 'status', status: 502, method: 'setWebhook' });
		expect(await first.delete()).toBe(true);
		await serve(second, third);
		expect(listeners()).toEqual([entry('p', second.webhookUrl), entry('p', third.webhookUrl)]);
		const after = [await say('one'), await say('two')];
		await emu.idle();
		for (const harness of [second, third]) expect(ran(harness)).toEqual(after);
	});

	test('a removal the service keeps refusing: logged with what to do, tried again in the background until it lands; publishing another workflow takes the unpublished one off the list at once', async () => {
		const [first, second, third] = [await workflow({ updates: ['*'], options: {} }), await workflow({ updates: ['*'], options: {} }), await workflow({ updates: ['*'], options: {} })];
		await serve(first, second, third);
		for (const harness of [first, second, third]) await harness.activate();
		// Every write fails for longer than the retries: 1 + 5 attempts.
		emu.injectFault({ kind: 'status', status: 502, method: 'setWebhook', count: 6 });
		expect(await first.delete()).toBe(false);
		// n8n serves the unpublished workflow no more: while the list starts with it, nobody receives.
		await serve(second, third);
		expect(listeners()[0]).toBe(entry('p', first.webhookUrl));
		expect(logs.messages('error').join('\n')).toContain('While the bot\'s webhook lists it, the bot\'s other workflows may receive nothing: it is tried again in the background; publishing any workflow of this bot also repairs it');
		// The background attempt lands once the service accepts writes again.
		await until(() => !listeners().includes(entry('p', first.webhookUrl)));
		expect(listeners()).toEqual([entry('p', second.webhookUrl), entry('p', third.webhookUrl)]);
		const after = await say('heard again');
		await emu.idle();
		for (const harness of [second, third]) expect(ran(harness)).toEqual([after]);

		// The same failure, then a workflow published before the background attempt: its activation
		// probes the listed workflows, and the one n8n answers 404 for is taken off.
		jest.replaceProperty(WRITE_TIMING, 'removalRetryDelaysMs', [300]);
		const fourth = await workflow({ updates: ['*'], options: {} });
		// One more failure than the retries: for the background attempt, or else the fourth's first write.
		emu.injectFault({ kind: 'status', status: 502, method: 'setWebhook', count: 7 });
		expect(await second.delete()).toBe(false);
		await serve(third, fourth);
		expect(listeners()[0]).toBe(entry('p', second.webhookUrl));
		await fourth.activate();
		expect(listeners()).toEqual([entry('p', third.webhookUrl), entry('p', fourth.webhookUrl)]);
		expect(logs.messages('warn').join('\n')).toContain(`are no longer published in this n8n (${new URL(second.webhookUrl).pathname})`);
		const later = await say('and again');
		await emu.idle();
		expect(ran(third)).toEqual([later]);
		expect(ran(fourth)).toEqual([later]);
	});

	test('a removal refused for longer than the growing waits is tried again at the capped interval while n8n runs: once the service accepts writes, the other workflows hear again without anyone publishing', async () => {
		// Growing waits 20 and 40 ms, then every 30 ms: the outage outlasts the growing waits.
		jest.replaceProperty(WRITE_TIMING, 'removalRetryDelaysMs', [20, 40]);
		jest.replaceProperty(WRITE_TIMING, 'removalRetryEveryMs', 30);
		jest.replaceProperty(WRITE_TIMING, 'removalRetryForMs', 60_000);
		const [first, second, third] = [await workflow({ updates: ['*'], options: {} }), await workflow({ updates: ['*'], options: {} }), await workflow({ updates: ['*'], options: {} })];
		await serve(first, second, third);
		for (const harness of [first, second, third]) await harness.activate();
		// Each attempt is one write made 1 + 5 times (the write retries): the removal and its next four
		// attempts fail (five attempts: more than the removal and its two growing waits).
		emu.injectFault({ kind: 'status', status: 502, method: 'setWebhook', count: 6 * 5 });
		expect(await first.delete()).toBe(false);
		await serve(second, third);
		// The bot is deaf meanwhile: its webhook starts with the workflow n8n no longer serves.
		expect(listeners()[0]).toBe(entry('p', first.webhookUrl));
		await until(() => logs.messages('info').some((line) => line.includes('removed from the bot\'s webhook at the 6. attempt')));
		expect(listeners()).toEqual([entry('p', second.webhookUrl), entry('p', third.webhookUrl)]);
		const errors = logs.messages('error').join('\n');
		expect(errors).toContain('also at the 5. attempt');
		expect(errors).not.toContain('stopped trying');
		const after = await say('heard again');
		await emu.idle();
		for (const harness of [second, third]) expect(ran(harness)).toEqual([after]);
	});

	test('a bot left deaf (its receiver unpublished, the removal failed for good) hears again when someone listens for a test event on any of its triggers: the test joins without the unpublished workflow', async () => {
		jest.replaceProperty(WRITE_TIMING, 'removalRetryForMs', 0);
		const [first, second, third] = [await workflow({ updates: ['*'], options: {} }), await workflow({ updates: ['*'], options: {} }), await workflow({ updates: ['*'], options: {} })];
		await serve(first, second, third);
		for (const harness of [first, second, third]) await harness.activate();
		emu.injectFault({ kind: 'status', status: 502, method: 'setWebhook', count: 6 });
		expect(await first.delete()).toBe(false);
		await serve(second, third);
		expect(listeners()[0]).toBe(entry('p', first.webhookUrl));

		expect(await second.activate('manual')).toBe(true);
		expect(listeners()).toEqual([entry('p', second.webhookUrl), entry('p', third.webhookUrl), entry('t', second.testWebhookUrl)]);
		const heard = await say('anyone?');
		await emu.idle();
		expect(ran(third)).toEqual([heard]);
		expect(ran(second)).toEqual([heard]);
		expect(await second.delete('manual')).toBe(true);
		expect(listeners()).toEqual([entry('p', second.webhookUrl), entry('p', third.webhookUrl)]);
	});

	test('a slow workflow costs only itself: the receiver answers the service and runs its own while a copy is still held, and the slow one runs it once', async () => {
		const [receiver, quick, slow] = [await workflow({ updates: ['*'], options: {} }), await workflow({ updates: ['*'], options: {} }), await workflow({ updates: ['*'], options: {} })];
		const { released, release } = gate();
		const slowPath = new URL(slow.webhookUrl).pathname;
		await serve(receiver, quick, slow);
		for (const harness of [receiver, quick, slow]) await harness.activate();
		await serve(receiver, quick, slow, { hold: (path) => (path === slowPath ? released : undefined) });
		const update = await say('anyone slow?');
		// The service got its answer and the receiver ran the update while the slow copy is held.
		await emu.idle();
		expect(ran(receiver)).toEqual([update]);
		expect(ran(quick)).toEqual([update]);
		expect(ran(slow)).toEqual([]);
		expect(emu.webhookOf()).toMatchObject({ pendingUpdateCount: 0, lastError: null });
		release();
		await until(() => ran(slow).length > 0);
		expect(ran(slow)).toEqual([update]);
		expect(ran(receiver)).toEqual([update]);
	});

	test('a workflow that stayed slow is not waited for again: the next update reaches the service\'s answer and the others while its copies are still held', async () => {
		const [receiver, quick, slow] = [await workflow({ updates: ['*'], options: {} }), await workflow({ updates: ['*'], options: {} }), await workflow({ updates: ['*'], options: {} })];
		const { released, release } = gate();
		const slowPath = new URL(slow.webhookUrl).pathname;
		await serve(receiver, quick, slow);
		for (const harness of [receiver, quick, slow]) await harness.activate();
		await serve(receiver, quick, slow, { hold: (path) => (path === slowPath ? released : undefined) });
		jest.replaceProperty(FORWARD_TIMING, 'waitMs', 200);
		const first = await say('first');
		await emu.idle();
		expect(ran(quick)).toEqual([first]);
		// Were the receiver to wait for the held workflow again, this update would wait for as long as
		// this test runs: the service's answer, and the quick workflow's run, come without it.
		jest.replaceProperty(FORWARD_TIMING, 'waitMs', 600_000);
		const second = await say('second');
		await emu.idle();
		expect(ran(receiver)).toEqual([first, second]);
		expect(ran(quick)).toEqual([first, second]);
		expect(ran(slow)).toEqual([]);
		release();
		await until(() => ran(slow).length === 2);
		expect(ran(slow)).toEqual([first, second]);
	});

	test('a push the service sends again (its answer came late) is not forwarded again: the slow workflow gets one copy and runs it once', async () => {
		const shared = emu;
		// A service that waits 300 ms for an answer, while the receiver waits up to 1 s for its copies.
		emu = await startTestEmulator({ webhookTimeoutMs: 300 });
		jest.replaceProperty(FORWARD_TIMING, 'waitMs', 1000);
		try {
			const [receiver, slow] = [await workflow({ updates: ['*'], options: {} }), await workflow({ updates: ['*'], options: {} })];
			const { released, release } = gate();
			const slowPath = new URL(slow.webhookUrl).pathname;
			let copies = 0;
			await serve(receiver, slow);
			for (const harness of [receiver, slow]) await harness.activate();
			await serve(receiver, slow, {
				hold: (path) => {
					if (path !== slowPath) return undefined;
					copies += 1;
					return released;
				},
			});
			const update = await say('again?');
			// The first push timed out at the service, which sent it again; the copy is still held.
			await until(() => (emu.webhookOf()?.lastError ?? null) !== null);
			await emu.idle();
			release();
			await until(() => ran(slow).length > 0);
			expect(copies).toBe(1);
			expect(ran(slow)).toEqual([update]);
			expect(ran(receiver)).toEqual([update]);
			for (const harness of [receiver, slow]) await harness.delete();
		} finally {
			await emu.close();
			emu = shared;
		}
	});

	test('a restart repairs a list left stale while n8n was down: once its start has settled, the workflow n8n no longer serves is taken off and the others hear again', async () => {
		jest.replaceProperty(WRITE_TIMING, 'startQuietMs', 200);
		jest.replaceProperty(WRITE_TIMING, 'removalRetryDelaysMs', [20]);
		jest.replaceProperty(WRITE_TIMING, 'removalRetryForMs', 100);
		const [first, second, third] = [await workflow({ updates: ['*'], options: {} }), await workflow({ updates: ['*'], options: {} }), await workflow({ updates: ['*'], options: {} })];
		await serve(first, second, third);
		for (const harness of [first, second, third]) await harness.activate();
		// The removal fails, and so does its background attempt (as if n8n stopped before one landed).
		emu.injectFault({ kind: 'status', status: 502, method: 'setWebhook', count: 1_000 });
		expect(await first.delete()).toBe(false);
		await until(() => logs.messages('error').some((line) => line.includes('stopped trying to remove this trigger from the bot\'s webhook')));
		emu.clearFaults();
		expect(listeners()[0]).toBe(entry('p', first.webhookUrl));

		// n8n starts again (a new process, its modules loaded afresh): it serves the two still published
		// and activates them as its start does; the list still starts with the unpublished one.
		const nodeType = freshNodeType('webhook');
		const restarted = [await inNewProcess(emu, second, 'webhook', { webhookBaseUrl: base, nodeType }), await inNewProcess(emu, third, 'webhook', { webhookBaseUrl: base, nodeType })];
		made.push(...restarted);
		await serve(...restarted);
		// Their webhook is in place (listed), so n8n does not create it again.
		for (const harness of restarted) expect(await harness.activateAtStart()).toBe(false);
		await until(() => !listeners().includes(entry('p', first.webhookUrl)));
		expect(listeners()).toEqual([entry('p', second.webhookUrl), entry('p', third.webhookUrl)]);
		const after = await say('heard after the restart');
		await emu.idle();
		for (const harness of restarted) expect(ran(harness)).toEqual([after]);
	});

	test("n8n's first start with updates waiting: three workflows registered one after another each run every waiting update once", async () => {
		jest.replaceProperty(WRITE_TIMING, 'startQuietMs', 200);
		const three = [await workflow({ updates: ['*'], options: {} }), await workflow({ updates: ['*'], options: {} }), await workflow({ updates: ['*'], options: {} })];
		await serve(...three);
		// Written while n8n was down: the service keeps them for the webhook to come.
		const waiting = [await say('while you were away'), await say('and this too')];
		for (const harness of three) expect(await harness.activateAtStart()).toBe(true);
		await until(() => three.every((harness) => ran(harness).length >= waiting.length));
		await emu.idle();
		for (const harness of three) expect(ran(harness)).toEqual(waiting);
		expect(listeners().sort()).toEqual(three.map((harness) => entry('p', harness.webhookUrl)).sort());
		expect(emu.callsTo('setWebhook')).toHaveLength(1);
		const later = await say('after the start');
		await emu.idle();
		for (const harness of three) expect(ran(harness)).toEqual([...waiting, later]);
	});

	test('up to 10 workflows on one bot (the README limit): an eleventh is refused at once, before anything is sent, saying what to do; the ten keep listening', async () => {
		const ten: TriggerHarness[] = [];
		for (let index = 0; index < 10; index++) ten.push(await workflow({ updates: ['*'], options: {} }));
		for (const harness of ten) await harness.activate();
		expect(listeners()).toHaveLength(10);
		const writes = emu.callsTo('setWebhook').length;
		const eleventh = await workflow({ updates: ['*'], options: {} });
		const refusal = await eleventh.activate().then(
			() => new Error('published'),
			(error: unknown) => error as Error,
		);
		expect(refusal.message).toBe(
			'10 workflows already listen to this bot, the most one bot can serve here (every update is sent once to each). Unpublish one, or stop its test, then publish this workflow again',
		);
		// It holds until a person acts: n8n 2.41 does not try it again (5 attempts over 15 s otherwise).
		expect(n8nRetries(refusal)).toBe(false);
		expect(emu.callsTo('setWebhook')).toHaveLength(writes);
		expect(listeners()).toEqual(ten.map((harness) => entry('p', harness.webhookUrl)));
	});

	test('a workflow that is down misses its updates alone: the others get theirs, the service is answered and sends nothing again, the log names it', async () => {
		const up = await workflow({ updates: ['*'], options: {} });
		const down = await workflow({ updates: ['*'], options: {} });
		await serve(up, down);
		await up.activate();
		await down.activate();
		// n8n no longer serves the second workflow's path (its process is gone, or it was deleted without unpublishing).
		await serve(up);
		const updates = [await say('a'), await say('b')];
		await emu.idle();
		expect(ran(up)).toEqual(updates);
		expect(emu.webhookOf()).toMatchObject({ pendingUpdateCount: 0, lastError: null });
		expect(emu.callsTo('setWebhook')).toHaveLength(2);
		await until(() => logs.messages('warn').some((message) => message.includes('answered 404')));
		const warned = logs.messages('warn').join('\n');
		expect(warned).toContain(`the workflow listening to this bot at ${new URL(down.webhookUrl).pathname} answered 404, also when sent the update again`);
		expect(warned.split('answered 404')).toHaveLength(2);
	});

	test("a workflow whose n8n answers 503 (Database is not ready!) for longer than half a minute's attempts still runs the update once it answers; the others run it at once; nothing logged", async () => {
		// The waits shortened: four attempts in the first schedule, then every 20 ms for up to 5 s.
		jest.replaceProperty(FORWARD_TIMING, 'busyRetryEveryMs', 20);
		jest.replaceProperty(FORWARD_TIMING, 'busyRetryForMs', 5_000);
		const [receiver, quick, busy] = [await workflow({ updates: ['*'], options: {} }), await workflow({ updates: ['*'], options: {} }), await workflow({ updates: ['*'], options: {} })];
		await serve(receiver, quick, busy);
		for (const harness of [receiver, quick, busy]) await harness.activate();
		const busyPath = new URL(busy.webhookUrl).pathname;
		let refused = 0;
		// n8n's webhook process answers every request 503 while its database check fails (as under load).
		const refuse = (path: string) => (path === busyPath && refused < 8 ? (refused++, { status: 503, body: { code: 503, message: 'Database is not ready!' } }) : undefined);
		await serve(receiver, quick, busy, { refuse });
		const update = await say('are you busy?');
		await emu.idle();
		expect(ran(receiver)).toEqual([update]);
		expect(ran(quick)).toEqual([update]);
		await until(() => ran(busy).length > 0);
		expect(refused).toBe(8);
		expect(ran(busy)).toEqual([update]);
		expect(emu.webhookOf()).toMatchObject({ pendingUpdateCount: 0, lastError: null });
		expect(logs.messages('warn').filter((message) => message.includes(busyPath))).toEqual([]);
	});

	test("a copy sent again while n8n is still creating the first copy's execution waits for it: the first fails (500), the one sent again runs the update, once", async () => {
		// The receiver stops waiting for a copy after 1 s and sends it again.
		jest.replaceProperty(FORWARD_TIMING, 'timeoutMs', 1_000);
		const [receiver, slow] = [await workflow({ updates: ['*'], options: {} }), await workflow({ updates: ['*'], options: {} })];
		await serve(receiver, slow);
		for (const harness of [receiver, slow]) await harness.activate();
		const slowPath = new URL(slow.webhookUrl).pathname;
		const { released, release } = gate();
		let copies = 0;
		// n8n's database is saturated: the first copy's execution is created only after the receiver gave
		// up on it, and then fails ("Workflow could not be started!").
		const starts = (path: string) => {
			if (path !== slowPath) return undefined;
			copies += 1;
			if (copies === 1) return { startsAfter: released, startFails: true };
			// The first fails a little after the second arrived: answered at once "already received", the
			// second would be done by then and the update lost.
			setTimeout(release, 300);
			return undefined;
		};
		await serve(receiver, slow, { starts });
		const update = await say('one at a time');
		await until(() => (server?.receipts.length ?? 0) >= 3);
		expect(ran(receiver)).toEqual([update]);
		expect(copies).toBe(2);
		expect(server?.receipts.map((receipt) => receipt.status).sort()).toEqual([200, 200, 500]);
		expect(ran(slow)).toEqual([update]);
	});

	test("a copy sent again while the first copy's execution is still not created after the wait is answered 503; sent once more after the first failed, it runs the update once", async () => {
		jest.replaceProperty(FORWARD_TIMING, 'timeoutMs', 1_000);
		jest.replaceProperty(IN_FLIGHT_TIMING, 'waitMs', 100);
		const [receiver, slow] = [await workflow({ updates: ['*'], options: {} }), await workflow({ updates: ['*'], options: {} })];
		await serve(receiver, slow);
		for (const harness of [receiver, slow]) await harness.activate();
		const slowPath = new URL(slow.webhookUrl).pathname;
		const { released, release } = gate();
		let copies = 0;
		const starts = (path: string) => {
			if (path !== slowPath) return undefined;
			copies += 1;
			if (copies === 1) return { startsAfter: released, startFails: true };
			// The third copy (after the second was answered 503) finds the first failing now.
			if (copies === 3) release();
			return undefined;
		};
		await serve(receiver, slow, { starts });
		const update = await say('still there?');
		await until(() => (server?.receipts.length ?? 0) >= 4);
		expect(ran(receiver)).toEqual([update]);
		expect(copies).toBe(3);
		expect(server?.receipts.map((receipt) => receipt.status).sort()).toEqual([200, 200, 500, 503]);
		expect(ran(slow)).toEqual([update]);
	});

	test('a workflow whose n8n stays busy (503) past the longer wait is given up: the log names it, says it missed the update and where to look', async () => {
		jest.replaceProperty(FORWARD_TIMING, 'busyRetryEveryMs', 20);
		jest.replaceProperty(FORWARD_TIMING, 'busyRetryForMs', 300);
		const [receiver, busy] = [await workflow({ updates: ['*'], options: {} }), await workflow({ updates: ['*'], options: {} })];
		await serve(receiver, busy);
		for (const harness of [receiver, busy]) await harness.activate();
		const busyPath = new URL(busy.webhookUrl).pathname;
		let refused = 0;
		const refuse = (path: string) => (path === busyPath ? (refused++, { status: 503, body: { code: 503, message: 'Database is not ready!' } }) : undefined);
		await serve(receiver, busy, { refuse });
		const update = await say('still busy?');
		await emu.idle();
		expect(ran(receiver)).toEqual([update]);
		await until(() => logs.messages('warn').some((message) => message.includes(busyPath)));
		const warned = logs.messages('warn').filter((message) => message.includes(busyPath));
		expect(warned).toHaveLength(1);
		expect(warned[0]).toContain(`the workflow listening to this bot at ${busyPath} answered 503, also when sent the update again for`);
		expect(warned[0]).toContain('so it missed this update. Its n8n was busy or down that long: check that n8n\'s log and its database');
		// More attempts than the half minute's schedule (1 + 3 here): the longer wait was used.
		expect(refused).toBeGreaterThan(4);
		expect(ran(busy)).toEqual([]);
	});
});

describe('a test in the editor beside published workflows', () => {
	test('the test gets the next update it selects; the published workflows get every update before, during and after it', async () => {
		const published = [await workflow({ updates: ['*'], options: {} }), await workflow({ updates: ['*'], options: {} })];
		const edited = await workflow({ updates: ['callback_query'], options: {} });
		await serve(...published, edited);
		for (const harness of published) await harness.activate();
		const before = await say('before');
		await emu.idle();

		// "Listen for test event": no Take Over needed.
		expect(await edited.activate('manual')).toBe(true);
		expect(listeners()).toEqual([entry('p', published[0].webhookUrl), entry('p', published[1].webhookUrl), entry('t', edited.testWebhookUrl)]);
		const during = await say('during');
		const click = await tap('pick');
		await emu.idle();
		expect(ran(edited, 'manual')).toEqual([click]);
		// n8n ends the test once an event started it.
		expect(await edited.delete('manual')).toBe(true);
		expect(listeners()).toEqual([entry('p', published[0].webhookUrl), entry('p', published[1].webhookUrl)]);
		const after = await say('after');
		await emu.idle();

		for (const harness of published) expect(ran(harness).sort()).toEqual([before, during, click, after].sort());
		expect(ran(edited)).toEqual([]);
	});

	test('an update the test showed is not run later by a workflow published afterwards', async () => {
		const edited = await workflow({ updates: ['*'], options: {} });
		const later = await workflow({ updates: ['*'], options: {} });
		await serve(edited, later);
		await edited.activate('manual');
		const shown = await say('for the test');
		await emu.idle();
		expect(ran(edited, 'manual')).toEqual([shown]);
		await edited.delete('manual');
		expect(emu.webhookOf()).toBeNull();

		await later.activate();
		const next = await say('for production');
		await emu.idle();
		expect(ran(later)).toEqual([next]);
	});
});

describe('what only the bot’s service may send', () => {
	test('a copy forwarded with another listener’s secret, or the receiver’s, is refused; a forwarded copy is not forwarded again; a list naming a path outside n8n’s webhooks (/../) is not followed', async () => {
		const a = await workflow({ updates: ['*'], options: {} });
		const b = await workflow({ updates: ['*'], options: {} });
		const c = await workflow({ updates: ['*'], options: {} });
		await serve(a, b, c);
		for (const harness of [a, b, c]) await harness.activate();
		const shared = emu.webhookOf()?.secretToken ?? '';
		const query = { [LISTENERS]: new URL(emu.webhookOf()?.url ?? '').searchParams.get(LISTENERS) ?? '' };
		const body = { update_id: 9001, message: { message_id: 1, date: 1, chat: { id: emu.demo.privateChatId, type: 'private' }, text: 'x' } };

		// The shared secret belongs to the receiver: another listener refuses it.
		expect((await b.receive({ headers: { [SECRET_HEADER]: shared }, body, query })).status).toBe(403);
		// The receiver accepts it, forwards to b and c, and runs itself.
		const receipt = await a.receive({ headers: { [SECRET_HEADER]: shared }, body, query });
		expect(receipt.status).toBe(200);
		expect(ran(b)).toEqual([9001]);
		expect(ran(c)).toEqual([9001]);
		// A list naming a path outside n8n's webhooks (as only a holder of the token could register) is not followed.
		const uuid = randomUUID();
		await a.receive({ headers: { [SECRET_HEADER]: shared }, body: { ...body, update_id: 9002 }, query: { [LISTENERS]: `p/webhook/../rest/${uuid}/webhook,p/webhook/./x/${uuid}/webhook` } });
		expect(logs.messages('warn').filter((message) => message.includes('/.'))).toEqual([]);
		// b and c got one copy each: neither forwarded its copy again (it came with its own secret).
		expect(server?.receipts.map((r) => r.status)).toEqual([200, 200]);
	});
});

describe('a bot token changed in the credential (as after a leak)', () => {
	test('while three workflows share the bot, pushes with the secret registered under the old token still reach all three, whichever workflow registered it', async () => {
		const credentials = credentialsFor(emu);
		const shared = async (): Promise<TriggerHarness> => {
			const harness = await makeHarness(emu, { webhookBaseUrl: base, workflowId: `wf-${randomUUID().slice(0, 8)}`, credentials, parameters: { updates: ['*'], options: {} } });
			made.push(harness);
			return harness;
		};
		const [a, b, c] = [await shared(), await shared(), await shared()];
		await serve(a, b, c);
		// a registers alone; b and c then write the shared registration (a stays the receiver).
		for (const harness of [a, b, c]) await harness.activate();
		expect(listeners()).toEqual([entry('p', a.webhookUrl), entry('p', b.webhookUrl), entry('p', c.webhookUrl)]);

		const oldToken = credentials.accessToken;
		const newToken = '7000000002:changed-after-a-leak-xxxxxxxxxxxxxxxxx';
		emu.changeToken(emu.demo.token, newToken);
		credentials.accessToken = newToken;
		const hello = await say('after the change');
		await emu.idle();

		for (const harness of [a, b, c]) expect(ran(harness)).toEqual([hello]);
		expect(server?.receipts.filter((receipt) => receipt.status !== 200)).toEqual([]);
		// This n8n knows the three as holders of the bot under the token they were published with.
		credentials.accessToken = oldToken;
	});
});

describe('two workflows that both run for the bot’s clicks', () => {
	const ANSWER_CLICK: INodeParameters = { resource: 'callback', operation: 'answerCallbackQuery', callbackQueryId: '={{ $json.callback_query_id }}', additionalFields: {} };
	/** The workflow's Answer Callback Query after its trigger, as the trigger reads its workflow. */
	const answering: HarnessOptions['after'] = [{ nodeType: new ServiceBot(), name: 'Answer Click', parameters: ANSWER_CLICK, typeVersion: 3 }];
	/** A workflow that only records clicks: a Send Message after its trigger, nothing that answers them. */
	const recording: HarnessOptions['after'] = [
		{ nodeType: new ServiceBot(), name: 'Note It', parameters: { resource: 'message', operation: 'sendMessage', chatId: '={{ $json.chat_id }}', text: '=clicked {{ $json.data }}' }, typeVersion: 3 },
	];

	/** Answer Callback Query as a workflow builds it after the trigger: the ID from the trigger's item; run in workflow `workflowId`. */
	async function answerClick(trigger: IDataObject, typeVersion: number, workflowId?: string): Promise<ExecuteNodeResult> {
		return await executeNode({
			nodeType: new ServiceBot(),
			parameters: ANSWER_CLICK,
			items: [trigger],
			credentials: credentialsFor(emu),
			typeVersion,
			workflowId,
		});
	}

	/** The warnings n8n shows on the node's output in the editor (execution hints). */
	const hintsOf = (result: ExecuteNodeResult): unknown[] => Object.values(result.run.data.resultData.runData).flatMap((tasks) => tasks.flatMap((task) => task.hints ?? []));

	const triggerItem = (harness: TriggerHarness): IDataObject => server?.executionsOf(harness, 'trigger')[0][0][0].json as IDataObject;

	/** What the second answer to click `id` says: the click, quoted, and the two workflows. */
	const overlap = (id: unknown): string =>
		`Click "${String(id)}" was already answered, most likely by another workflow on this bot: workflows "Shop bot" and "Click log" both run for its button clicks. Give only one of them Callback Query (the button clicks) in Trigger On, or a Restrict to Chat IDs of its own, or answer the clicks in one of them only`;

	/** The warning Answer Callback Query shows on its output in workflow A's run while workflow B answers the bot's clicks too. */
	const alsoAnswers = (other: string): { message: string; type: string; location: string } => ({
		message: `Workflow "${other}" answers this bot's button clicks too: every click runs each of them, and only the first answer counts (the others are refused). Give only one of them Callback Query (the button clicks) in Trigger On, or a Restrict to Chat IDs of its own, or answer the clicks in one of them only`,
		type: 'warning',
		location: 'outputPane',
	});

	test('both answer every click: n8n\'s log and each Answer Callback Query\'s output name the other at every run; the second answer (version 3) reports on its item that another workflow answered, and the workflow goes on', async () => {
		const shop = await workflow({ updates: ['*'], options: {} }, { workflowId: 'wf-shop', workflowName: 'Shop bot', typeVersion: 2, after: answering });
		const log = await workflow({ updates: ['callback_query'], options: {} }, { workflowId: 'wf-log', workflowName: 'Click log', typeVersion: 2, after: answering });
		await serve(shop, log);
		await shop.activate();
		await log.activate();
		expect(logs.messages('warn')).toContainEqual(
			'Service Bot trigger "Service Bot Trigger" of workflow "Click log": workflow "Shop bot" also answers this bot\'s button clicks; every click runs each of them, and a click can be answered only once. Give only one of them Callback Query (the button clicks) in Trigger On, or a Restrict to Chat IDs of its own, or answer the clicks in one of them only',
		);
		const click = await tap('vote:yes');
		await emu.idle();
		expect(ran(shop)).toEqual([click]);
		expect(ran(log)).toEqual([click]);

		const first = await answerClick(triggerItem(shop), 3, 'wf-shop');
		const second = await answerClick(triggerItem(log), 3, 'wf-log');
		expect(first.error).toBeUndefined();
		expect(first.output[0].json).toMatchObject({ answered: true });
		// Answered, and still told: the next click may go the other way.
		expect(hintsOf(first)).toEqual([alsoAnswers('Click log')]);
		expect(second.error).toBeUndefined();
		// The clicked message stays on the item, for the edit that usually follows.
		const notice = overlap(triggerItem(log).callback_query_id);
		expect(second.output[0].json).toEqual({ answered: false, chat_id: emu.demo.groupChatId, message_id: expect.any(Number), notice });
		expect(hintsOf(second)).toEqual([{ message: notice, type: 'warning', location: 'outputPane' }, alsoAnswers('Shop bot')]);
		expect(emu.callsTo('answerCallbackQuery').map((call) => call.status)).toEqual([200, 400]);

	});

	test('a workflow that takes clicks but does not answer them (a click log) is named nowhere: no warning in n8n\'s log, none on the Answer Callback Query of the other', async () => {
		const shop = await workflow({ updates: ['*'], options: {} }, { workflowId: 'wf-shop', workflowName: 'Shop bot', typeVersion: 2, after: answering });
		const log = await workflow({ updates: ['callback_query'], options: {} }, { workflowId: 'wf-log', workflowName: 'Click log', typeVersion: 2, after: recording });
		await serve(shop, log);
		await shop.activate();
		await log.activate();
		const click = await tap('vote:yes');
		await emu.idle();
		expect(ran(shop)).toEqual([click]);
		expect(ran(log)).toEqual([click]);
		const answered = await answerClick(triggerItem(shop), 3, 'wf-shop');
		expect(answered.output[0].json).toMatchObject({ answered: true });
		expect(hintsOf(answered)).toEqual([]);
		expect(logs.messages('warn').filter((message) => message.includes('button clicks'))).toEqual([]);
	});

	test('node versions 1 and 2 still fail on the second answer, with the message naming the two workflows', async () => {
		const shop = await workflow({ updates: ['*'], options: {} }, { workflowId: 'wf-shop', workflowName: 'Shop bot', typeVersion: 2 });
		const log = await workflow({ updates: ['*'], options: {} }, { workflowId: 'wf-log', workflowName: 'Click log', typeVersion: 2 });
		await serve(shop, log);
		await shop.activate();
		await log.activate();
		await tap('vote:no');
		await emu.idle();
		await answerClick(triggerItem(shop), 2);
		const second = await answerClick(triggerItem(log), 2);
		expect(second.error?.message).toBe(overlap(triggerItem(log).callback_query_id));
		expect(second.error?.description).toMatch(/^The service said: Bad Request: query is too old and response timeout expired or query ID is invalid\./);
	});

	test('a workflow alone on the bot answering a click twice (version 3): reported with the click\'s ID as already answered, too old or not a click of the bot, with the advice to answer once', async () => {
		const shop = await workflow({ updates: ['*'], options: {} }, { workflowId: 'wf-shop', workflowName: 'Shop bot', typeVersion: 2 });
		await serve(shop);
		await shop.activate();
		await tap('vote:yes');
		await emu.idle();
		await answerClick(triggerItem(shop), 3);
		const again = await answerClick(triggerItem(shop), 3);
		expect(again.output[0].json).toMatchObject({
			answered: false,
			notice: `The service refused to answer click "${String(triggerItem(shop).callback_query_id)}": it was already answered, or it is too old to answer (the service takes one answer per click, within seconds of the tap), or the ID is not one of a click this bot received. Answer Callback Query once, right after the trigger, with {{ $json.callback_query_id }} after a Service Bot trigger`,
		});
	});
});
