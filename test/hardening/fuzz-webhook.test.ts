/**
 * Webhook fuzzing of the Service Bot Trigger.
 *
 * Generated requests to the trigger's production webhook: no secret header, a wrong secret (random,
 * same length, truncated, padded, case-flipped, repeated, the test URL's or another workflow's
 * secret, the right secret in the wrong header), and with the right secret bodies that are not an
 * update (truncated or non-JSON text, JSON that is not an object, a missing or non-integer
 * update_id, huge bodies, wrong content types) and replays of updates already delivered. None may
 * start an execution. Valid updates interleaved with them must each start exactly one execution.
 *
 * Most requests go through the harness's `receive()` (n8n-core's WebhookContext, a fresh context and
 * workflow per request, as n8n builds them); a share goes over real HTTP to `startWebhookServer`.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';
import { randomUUID } from 'node:crypto';
import http from 'node:http';

import type { Emulator } from '../emulator';
import { startWebhookServer, type TriggerHarness, type WebhookReceipt, type WebhookRequest } from '../harness';
import { makeHarness, messageUpdate } from '../harness/trigger-nodes';
import { useEmulator } from '../harness/emulator-suite';
import { findLeak, startCapture, type Capture } from './secrecy';

const HEADER = 'x-service-bot-api-secret-token';
const SECRET_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';
/** Runs of the receive() property, each on a fresh trigger (fresh secret, fresh duplicate window). */
const RUNS = 10;
const REQUESTS_PER_RUN = 1100;

let emu: Emulator;
let capture: Capture;
useEmulator({ started: (started) => (emu = started) });
const totals = { invalid: 0, valid: 0, executions: 0, overHttp: 0 };

beforeAll(() => {
	capture = startCapture();
});

afterAll(() => {
	capture.stop();
	console.log(`webhook fuzzing: ${JSON.stringify(totals)}`);
});

// ------------------------------------------------------------------ what a request is made of

/** A body as bytes, a content type, and whether it is a well-formed update (a fresh one is made at send time). */
type BodyRecipe =
	| { kind: 'update'; callback: boolean }
	| { kind: 'raw'; text: string }
	| { kind: 'json'; value: unknown }
	| { kind: 'huge'; megabytes: number; update: boolean };

type SecretRecipe =
	| { kind: 'none'; otherHeader?: string }
	| { kind: 'random'; value: string }
	| { kind: 'sameLength'; changes: Array<[number, number]> }
	| { kind: 'truncated'; keep: number }
	| { kind: 'padded'; before: string; after: string }
	| { kind: 'prefixed'; extra: string; atEnd: boolean }
	| { kind: 'caseFlipped'; at: number }
	| { kind: 'repeated' }
	| { kind: 'testUrl' }
	| { kind: 'otherWorkflow' }
	| { kind: 'otherBot' }
	| { kind: 'wrongHeaderName'; name: string };

type Recipe =
	| { kind: 'badSecret'; secret: SecretRecipe; body: BodyRecipe; contentType: string }
	| { kind: 'badBody'; body: BodyRecipe; contentType: string }
	| { kind: 'replay'; pick: number }
	| { kind: 'valid'; callback: boolean };

const CONTENT_TYPES = [
	'application/json',
	'application/json; charset=utf-8',
	'text/plain',
	'application/x-www-form-urlencoded',
	'multipart/form-data; boundary=x',
	'application/xml',
	'',
];
const contentType = fc.constantFrom(...CONTENT_TYPES);

const anyUpdateBody: fc.Arbitrary<BodyRecipe> = fc.boolean().map((callback) => ({ kind: 'update', callback }));

/** JSON that is not an update: not an object, no update_id, or an update_id that is not an integer. */
const notAnUpdate: fc.Arbitrary<unknown> = fc.oneof(
	fc.jsonValue({ maxDepth: 2 }).filter((value) => value === null || typeof value !== 'object' || Array.isArray(value)),
	fc.dictionary(fc.string({ maxLength: 8 }).filter((key) => key !== 'update_id'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
	fc
		.oneof(
			fc.string(),
			fc.double().filter((value) => !Number.isInteger(value)),
			fc.constantFrom(null, true, false, [], {}, '7', ' 7', 7.5, -0.5, 2 ** -1074),
		)
		.map((id) => ({ update_id: id, message: { message_id: 1, chat: { id: 'c', type: 'private' }, text: 'x' } })),
);

const rawNonJson = fc.oneof(
	fc.string({ unit: 'binary', maxLength: 60 }).filter((text) => {
		try {
			JSON.parse(text);
			return false;
		} catch {
			return true;
		}
	}),
	fc.constantFrom('update_id=7', '<update><update_id>7</update_id></update>', '{"update_id": 7', '{update_id: 7}', "{'update_id': 7}", '--x\r\n'),
);

/** A valid update's JSON cut short: never parseable. */
const truncatedUpdate: fc.Arbitrary<BodyRecipe> = fc.integer({ min: 1, max: 80 }).map((cut) => {
	const text = JSON.stringify(messageUpdate(1, 'chat', 'user'));
	return { kind: 'raw', text: text.slice(0, Math.min(cut, text.length - 1)) };
});

const badBody: fc.Arbitrary<BodyRecipe> = fc.oneof(
	{ weight: 3, arbitrary: notAnUpdate.map((value): BodyRecipe => ({ kind: 'json', value })) },
	{ weight: 2, arbitrary: rawNonJson.map((text): BodyRecipe => ({ kind: 'raw', text })) },
	{ weight: 2, arbitrary: truncatedUpdate },
	{
		weight: 1,
		arbitrary: fc.constantFrom<BodyRecipe>(
			{ kind: 'raw', text: '' },
			{ kind: 'raw', text: '{"update_id": 1e400, "message": {"text": "Infinity"}}' },
			{ kind: 'huge', megabytes: 2, update: false },
		),
	},
);

const anyBody: fc.Arbitrary<BodyRecipe> = fc.oneof(
	{ weight: 4, arbitrary: anyUpdateBody },
	{ weight: 4, arbitrary: badBody },
	{ weight: 1, arbitrary: fc.constant<BodyRecipe>({ kind: 'huge', megabytes: 1, update: true }) },
);

const secretRecipe: fc.Arbitrary<SecretRecipe> = fc.oneof(
	fc.constant<SecretRecipe>({ kind: 'none' }),
	fc.constantFrom('x-service-bot-api-secret', 'x-telegram-bot-api-secret-token', 'authorization', 'x-secret-token').map(
		(name): SecretRecipe => ({ kind: 'wrongHeaderName', name }),
	),
	fc
		.oneof(fc.string({ maxLength: 80 }), fc.string({ unit: 'binary', maxLength: 300 }), fc.stringMatching(/^[A-Za-z0-9_-]{1,256}$/), fc.constant(''))
		.map((value): SecretRecipe => ({ kind: 'random', value })),
	fc
		.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: SECRET_CHARS.length - 1 })), { minLength: 1, maxLength: 4 })
		.map((changes): SecretRecipe => ({ kind: 'sameLength', changes })),
	fc.nat().map((keep): SecretRecipe => ({ kind: 'truncated', keep })),
	fc
		.tuple(fc.constantFrom('', ' ', '\t'), fc.constantFrom(' ', '\t', '\u00a0', '\u200b'))
		.map(([before, after]): SecretRecipe => ({ kind: 'padded', before, after })),
	fc
		.tuple(fc.stringMatching(/^[A-Za-z0-9_-]{1,8}$/), fc.boolean())
		.map(([extra, atEnd]): SecretRecipe => ({ kind: 'prefixed', extra, atEnd })),
	fc.nat().map((at): SecretRecipe => ({ kind: 'caseFlipped', at })),
	fc.constantFrom<SecretRecipe>({ kind: 'repeated' }, { kind: 'testUrl' }, { kind: 'otherWorkflow' }, { kind: 'otherBot' }),
);

const recipe: fc.Arbitrary<Recipe> = fc.oneof(
	{
		weight: 12,
		arbitrary: fc
			.tuple(secretRecipe, anyBody, contentType)
			.map(([secret, body, type]): Recipe => ({ kind: 'badSecret', secret, body, contentType: type })),
	},
	{ weight: 6, arbitrary: fc.tuple(badBody, contentType).map(([body, type]): Recipe => ({ kind: 'badBody', body, contentType: type })) },
	{ weight: 1, arbitrary: fc.nat().map((pick): Recipe => ({ kind: 'replay', pick })) },
	{ weight: 1, arbitrary: fc.boolean().map((callback): Recipe => ({ kind: 'valid', callback })) },
);

// ------------------------------------------------------------------ turning recipes into requests

const HUGE = new Map<string, Buffer>();

/** A body of `megabytes` MB: an update (with a long text) or an object without update_id. Built once. */
function hugeBody(megabytes: number, update: boolean): Buffer {
	const key = `${megabytes}:${update}`;
	let body = HUGE.get(key);
	if (!body) {
		const filler = 'y'.repeat(megabytes * 1024 * 1024);
		body = Buffer.from(JSON.stringify(update ? messageUpdate(4242, 'chat', 'user', filler) : { padding: filler }));
		HUGE.set(key, body);
	}
	return body;
}

interface Trigger {
	harness: TriggerHarness;
	secret: string;
	testSecret: string;
	otherWorkflowSecret: string;
	otherBotSecret: string;
}

/** The secret a registration leaves at the service (read from the emulator, not computed here). */
async function registeredSecret(harness: TriggerHarness, mode: 'trigger' | 'manual', token = emu.demo.token): Promise<string> {
	await harness.activate(mode);
	const secret = emu.webhookOf(token)?.secretToken;
	await harness.delete(mode);
	if (!secret) throw new Error('the registration set no secret');
	return secret;
}

let otherBots = 0;

async function activeTrigger(): Promise<Trigger> {
	const ids = { workflowId: `wf-${randomUUID()}`, nodeId: randomUUID(), webhookId: randomUUID() };
	const harness = await makeHarness(emu, ids);
	// The secrets a neighbour of this trigger has: they must not open this trigger's door.
	const testSecret = await registeredSecret(harness, 'manual');
	const otherWorkflowSecret = await registeredSecret(await makeHarness(emu, { ...ids, workflowId: `wf-${randomUUID()}` }), 'trigger');
	const otherToken = `7000000${String(++otherBots).padStart(3, '0')}:fuzz-${randomUUID()}`;
	emu.addBot({ token: otherToken });
	const otherBotSecret = await registeredSecret(await makeHarness(emu, { ...ids, token: otherToken }), 'trigger', otherToken);
	await harness.activate();
	const secret = emu.webhookOf()?.secretToken;
	if (!secret) throw new Error('activation set no secret');
	expect(new Set([secret, testSecret, otherWorkflowSecret, otherBotSecret]).size).toBe(4);
	return { harness, secret, testSecret, otherWorkflowSecret, otherBotSecret };
}

function secretHeaders(recipe: SecretRecipe, trigger: Trigger): Record<string, string> {
	const { secret } = trigger;
	const value = ((): string | undefined => {
		switch (recipe.kind) {
			case 'none':
			case 'wrongHeaderName':
				return undefined;
			case 'random':
				return recipe.value;
			case 'sameLength': {
				// Each change at its own position, so no two changes can cancel out.
				const chars = [...secret];
				const changed = new Set<number>();
				for (const [at, shift] of recipe.changes) {
					const index = at % chars.length;
					if (changed.has(index)) continue;
					changed.add(index);
					chars[index] = SECRET_CHARS[(SECRET_CHARS.indexOf(chars[index]) + shift) % SECRET_CHARS.length];
				}
				return chars.join('');
			}
			case 'truncated':
				return secret.slice(0, recipe.keep % secret.length);
			case 'padded':
				return `${recipe.before}${secret}${recipe.after}`;
			case 'prefixed':
				return recipe.atEnd ? `${secret}${recipe.extra}` : `${recipe.extra}${secret}`;
			case 'caseFlipped': {
				const letters = [...secret].map((char, index) => [char, index] as const).filter(([char]) => /[A-Za-z]/.test(char));
				const [char, index] = letters[recipe.at % letters.length];
				const flipped = char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase();
				return `${secret.slice(0, index)}${flipped}${secret.slice(index + 1)}`;
			}
			case 'repeated':
				// Two header lines with the secret, as a proxy may join them.
				return `${secret}, ${secret}`;
			case 'testUrl':
				return trigger.testSecret;
			case 'otherWorkflow':
				return trigger.otherWorkflowSecret;
			case 'otherBot':
				return trigger.otherBotSecret;
		}
	})();
	if (recipe.kind === 'wrongHeaderName') return { [recipe.name]: secret };
	if (value === undefined) return {};
	if (value === secret) throw new Error(`the recipe ${JSON.stringify(recipe)} produced the real secret`);
	return { [HEADER]: value };
}

function bodyBytes(body: BodyRecipe, updateId: () => number): Buffer {
	switch (body.kind) {
		case 'update': {
			const id = updateId();
			const update = body.callback
				? {
						update_id: id,
						callback_query: {
							id: `cb-${id}`,
							from: { id: emu.demo.userId, is_bot: false, first_name: 'Demo' },
							message: { message_id: 1, chat: { id: emu.demo.privateChatId, type: 'private' } },
							data: 'fuzz',
						},
					}
				: messageUpdate(id, emu.demo.privateChatId, emu.demo.userId, `fuzz ${id}`);
			return Buffer.from(JSON.stringify(update));
		}
		case 'raw':
			return Buffer.from(body.text, 'utf8');
		case 'json':
			return Buffer.from(JSON.stringify(body.value) ?? 'null', 'utf8');
		case 'huge':
			return hugeBody(body.megabytes, body.update);
	}
}

interface Planned {
	request: WebhookRequest;
	/** The update_id that must run exactly once, for valid requests. */
	validId?: number;
	/** For invalid requests: what n8n answers. */
	expectStatus?: number[];
}

/** Plans the requests of one run: ids are fresh per run; replays pick an update already sent. */
function plan(recipes: readonly Recipe[], trigger: Trigger): Planned[] {
	let nextId = 1_000_000 + Math.floor(Math.random() * 1_000_000);
	const freshId = (): number => nextId++;
	const sent: Buffer[] = [];
	const planned: Planned[] = [];
	const correct = { [HEADER]: trigger.secret };
	for (const item of recipes) {
		switch (item.kind) {
			case 'valid': {
				const rawBody = bodyBytes({ kind: 'update', callback: item.callback }, freshId);
				sent.push(rawBody);
				const validId = (JSON.parse(rawBody.toString('utf8')) as { update_id: number }).update_id;
				planned.push({ request: { headers: correct, rawBody }, validId });
				break;
			}
			case 'replay': {
				const rawBody = sent.length > 0 ? sent[item.pick % sent.length] : bodyBytes({ kind: 'update', callback: false }, freshId);
				planned.push({
					request: { headers: sent.length > 0 ? correct : {}, rawBody },
					expectStatus: sent.length > 0 ? [200] : [403],
				});
				break;
			}
			case 'badBody':
				planned.push({
					request: {
						headers: { ...correct, 'content-type': item.contentType },
						rawBody: bodyBytes(item.body, freshId),
					},
					expectStatus: [200, 400],
				});
				break;
			case 'badSecret':
				planned.push({
					request: {
						headers: { ...secretHeaders(item.secret, trigger), 'content-type': item.contentType },
						rawBody: bodyBytes(item.body, freshId),
					},
					expectStatus: [403, 400],
				});
				break;
		}
	}
	return planned;
}

function describeRequest(planned: Planned): string {
	const body = planned.request.rawBody?.toString('utf8') ?? '';
	return `${JSON.stringify(planned.request.headers)} ${body.length > 200 ? `${body.slice(0, 200)}… (${body.length} bytes)` : body}`;
}

/** Checks one run: every valid update ran exactly once; nothing else ran; answers as n8n gives them. */
function check(planned: readonly Planned[], receipts: readonly WebhookReceipt[]): void {
	const ran = new Map<number, number>();
	planned.forEach((item, index) => {
		const receipt = receipts[index];
		const items = receipt.workflowData?.[0] ?? [];
		if (item.validId === undefined) {
			if (receipt.workflowData !== undefined || receipt.error) {
				throw new Error(`request ${index} started an execution or failed: ${describeRequest(item)} → ${JSON.stringify(receipt.status)}`);
			}
			if (item.expectStatus && !item.expectStatus.includes(receipt.status)) {
				throw new Error(`request ${index} was answered ${receipt.status}, expected ${item.expectStatus.join(' or ')}: ${describeRequest(item)}`);
			}
			totals.invalid++;
			return;
		}
		if (receipt.status !== 200 || items.length !== 1 || items[0].json.update_id !== item.validId) {
			throw new Error(`valid request ${index} (update ${item.validId}) did not run once: ${receipt.status} ${JSON.stringify(items.map((entry) => entry.json.update_id))}`);
		}
		ran.set(item.validId, (ran.get(item.validId) ?? 0) + 1);
		totals.valid++;
		totals.executions++;
	});
	for (const [id, times] of ran) if (times !== 1) throw new Error(`update ${id} ran ${times} times`);
}

describe('webhook fuzzing through receive()', () => {
	it(`${RUNS} triggers × ${REQUESTS_PER_RUN} generated requests: no invalid one runs, every valid one runs once`, async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(recipe, { minLength: REQUESTS_PER_RUN, maxLength: REQUESTS_PER_RUN }), async (recipes) => {
				const trigger = await activeTrigger();
				try {
					const planned = plan(recipes, trigger);
					const receipts: WebhookReceipt[] = [];
					for (const item of planned) receipts.push(await trigger.harness.receive(item.request));
					check(planned, receipts);
				} finally {
					// A bot has one webhook: hand it back for the next trigger.
					await trigger.harness.delete();
				}
			}),
			{ numRuns: RUNS, endOnFailure: true },
		);
		expect(totals.invalid).toBeGreaterThanOrEqual(10_000);
		expect(totals.valid).toBeGreaterThanOrEqual(200);
	}, 180_000);

	it('every kind of bad request is generated (the fuzzing reaches them all)', () => {
		const seen = new Set<string>();
		for (const item of fc.sample(recipe, { numRuns: 20_000, seed: 7 })) {
			seen.add(item.kind === 'badSecret' ? `secret:${item.secret.kind}` : item.kind);
			if (item.kind === 'badBody') seen.add(`body:${item.body.kind}`);
		}
		expect([...seen].sort()).toEqual(
			[
				'badBody',
				'body:huge',
				'body:json',
				'body:raw',
				'replay',
				'secret:caseFlipped',
				'secret:none',
				'secret:otherBot',
				'secret:otherWorkflow',
				'secret:padded',
				'secret:prefixed',
				'secret:random',
				'secret:repeated',
				'secret:sameLength',
				'secret:testUrl',
				'secret:truncated',
				'secret:wrongHeaderName',
				'valid',
			].sort(),
		);
	});
});

// ------------------------------------------------------------------ over real HTTP

interface HttpRequest {
	method: string;
	path: string;
	headers: http.OutgoingHttpHeaders;
	body: Buffer;
}

async function send(url: string, request: HttpRequest, agent: http.Agent): Promise<number> {
	const target = new URL(url);
	return await new Promise<number>((resolve, reject) => {
		const req = http.request(
			{ host: target.hostname, port: target.port, method: request.method, path: request.path, headers: request.headers, agent },
			(res) => {
				res.resume();
				res.on('end', () => resolve(res.statusCode ?? 0));
			},
		);
		req.on('error', reject);
		req.end(request.body);
	});
}

/**
 * HTTP itself drops spaces and tabs around a header value (so a padded secret is the secret) and
 * refuses header values outside printable Latin-1: those recipes only make sense for receive().
 */
function httpSafe(item: Recipe): boolean {
	if (item.kind !== 'badSecret') return true;
	if (item.secret.kind === 'padded') return false;
	if (item.secret.kind === 'random') return /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$|^$/.test(item.secret.value);
	return true;
}

describe('webhook fuzzing over real HTTP', () => {
	it('1,700 requests to the webhook server (repeated headers, chunked, huge, wrong methods and paths): only the valid ones run, once each', async () => {
		const trigger = await activeTrigger();
		const server = await startWebhookServer(trigger.harness);
		try {
			const path = new URL(trigger.harness.webhookUrl).pathname;
			const recipes = fc.sample(fc.array(recipe.filter(httpSafe), { minLength: 1000, maxLength: 1000 }), { numRuns: 1 })[0];
			const planned = plan(recipes, trigger);
			const requests: Array<{ http: HttpRequest; validId?: number }> = planned.map((item) => {
				const headers: http.OutgoingHttpHeaders = { ...item.request.headers };
				if (headers['content-type'] === '') delete headers['content-type'];
				return { http: { method: 'POST', path, headers, body: item.request.rawBody ?? Buffer.alloc(0) }, validId: item.validId };
			});
			// What only HTTP can carry: the secret twice as two header lines, chunked bodies, other
			// methods and paths, a 5 MB body.
			const update = (id: number): Buffer => Buffer.from(JSON.stringify(messageUpdate(id, emu.demo.privateChatId, emu.demo.userId)));
			for (let index = 0; index < 100; index++) {
				const id = 9_000_000 + index;
				const extra: HttpRequest[] = [
					{ method: 'POST', path, headers: { [HEADER]: [trigger.secret, trigger.secret], 'content-type': 'application/json' }, body: update(id) },
					{ method: 'POST', path, headers: { [HEADER]: [trigger.secret, 'x'], 'content-type': 'application/json' }, body: update(id) },
					{ method: 'GET', path, headers: { [HEADER]: trigger.secret }, body: Buffer.alloc(0) },
					{ method: 'PUT', path, headers: { [HEADER]: trigger.secret, 'content-type': 'application/json' }, body: update(id) },
					{ method: 'POST', path: `${path}/x`, headers: { [HEADER]: trigger.secret, 'content-type': 'application/json' }, body: update(id) },
					{ method: 'POST', path: path.replace('/webhook/', '/webhook-test/'), headers: { [HEADER]: trigger.secret, 'content-type': 'application/json' }, body: update(id) },
					{ method: 'POST', path, headers: { [HEADER]: `${trigger.secret.slice(0, -1)}!`, 'transfer-encoding': 'chunked' }, body: update(id) },
				];
				requests.splice((index * 10) % requests.length, 0, ...extra.map((request) => ({ http: request })));
			}
			requests.push({ http: { method: 'POST', path, headers: { 'content-type': 'application/json' }, body: hugeBody(5, true) } });
			// One valid update after all that, to show the trigger still works.
			requests.push({ http: { method: 'POST', path, headers: { [HEADER]: trigger.secret, 'content-type': 'application/json' }, body: update(8_888_888) }, validId: 8_888_888 });

			const statuses: number[] = [];
			const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
			try {
				for (let start = 0; start < requests.length; start += 8) {
					const batch = requests.slice(start, start + 8);
					statuses.push(...(await Promise.all(batch.map(async (request) => await send(server.url, request.http, agent)))));
				}
			} finally {
				agent.destroy();
			}
			totals.overHttp += requests.length;

			const expected = requests.filter((request) => request.validId !== undefined).map((request) => request.validId);
			const ran = server.executions.map((run) => run[0][0].json.update_id);
			expect([...ran].sort()).toEqual([...expected].sort());
			expect(new Set(ran).size).toBe(ran.length);
			requests.forEach((request, index) => {
				if (request.validId !== undefined) expect(statuses[index]).toBe(200);
			});
			expect(statuses.filter((status) => status === 403).length).toBeGreaterThan(800);
			// GET, PUT and a wrong path, 100 each: n8n's "webhook is not registered".
			expect(statuses.filter((status) => status === 404)).toHaveLength(300);
			expect(requests.length).toBeGreaterThanOrEqual(1700);
		} finally {
			await server.close();
			await trigger.harness.delete();
		}
	}, 120_000);
});

describe('nothing secret in what the trigger logged', () => {
	it('neither the bot token nor the webhook secret appears in a log line', async () => {
		const trigger = await activeTrigger();
		await trigger.harness.receive({ headers: { [HEADER]: 'wrong' }, body: messageUpdate(1, 'c', 'u') });
		await trigger.harness.receive({ headers: { [HEADER]: trigger.secret }, body: [1, 2] as unknown as IDataObject });
		await trigger.harness.delete();
		expect(capture.lines.length).toBeGreaterThan(100);
		expect(findLeak(emu.demo.token, capture.lines)).toBeUndefined();
		const secretLeak = capture.lines.find((line) => line.includes(trigger.secret));
		expect(secretLeak).toBeUndefined();
	});
});
