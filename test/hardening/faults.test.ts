/**
 * Fault injection through the emulator. Every fault gives a clear error; retries
 * happen only where a repeat cannot act twice (read-only methods, or nothing reached the service)
 * and are bounded; and the bot token, one full of regex and URL metacharacters, appears nowhere:
 * not in an error's message, description, stack or cause chain, not in an output item or the run
 * data, not in n8n's error reports, not in a line logged through the n8n logger or LoggerProxy, and
 * not in anything written to the console, stdout or stderr during the whole file.
 *
 * The action node runs through n8n-core's WorkflowExecute (harness `executeNode`); the timeout case
 * uses the harness's MethodCaller test node, because the Service Bot node's request timeout is 30 s
 * and not configurable.
 */
import { HookContext } from 'n8n-core';
import type { IDataObject, INodeParameters, Logger } from 'n8n-workflow';
import { LoggerProxy } from 'n8n-workflow';

import { ServiceBot } from '../../nodes/ServiceBot/ServiceBot.node';
import { WRITE_TIMING } from '../../nodes/ServiceBotTrigger/webhook/lifecycle';
import type { Emulator } from '../emulator';
import { credentialsFor, startTestEmulator } from '../harness/emulator-suite';
import { errorReports, executeNode, freePort, testCredential, type ExecuteNodeResult } from '../harness';
import { MethodCaller } from '../harness/test-nodes';
import { byId } from '../harness/action-node';
import { specMethod } from '../spec';
import { makeHarness } from '../harness/trigger-nodes';
import fc from 'fast-check';

import { validItem, VARIANTS } from './fuzz-model';
import { findLeak, HOSTILE_TOKEN, quotedPaths, safeJson, sleep, startCapture, startPathEcho, textsOf, tokenForms, type Capture, type PathEcho } from './secrecy';

const TOKEN = HOSTILE_TOKEN;
/** Not registered with the emulator: the service answers 401. It must not leak either. */
const UNKNOWN_TOKEN = '5550123:Qq.w*e+r?t(y)[u]{i}|o^p$a\\s%d&f=g#h~j';

let emu: Emulator;
let chatId: string;
let capture: Capture;
/** Every text read off every result of the file, scanned at the end. */
const seen: string[] = [];

interface RunError {
	message: string;
	description?: string | null;
	httpCode?: string | null;
	name?: string;
	messages?: string[];
}

function errorOf(result: ExecuteNodeResult): RunError {
	expect(result.error).toBeDefined();
	return result.error as unknown as RunError;
}

function keep(result: ExecuteNodeResult): ExecuteNodeResult {
	seen.push(...textsOf(result.error), safeJson(result.run), safeJson(result.output));
	return result;
}

const sendParameters = (text: string, target = chatId): INodeParameters => ({
	resource: 'message',
	operation: 'sendMessage',
	chatId: byId(target),
	text,
});
const readParameters = (): INodeParameters => ({ resource: 'chat', operation: 'getChat', chatId: byId(chatId) });

async function node(
	parameters: INodeParameters,
	options: { token?: string; baseUrl?: string; continueOnFail?: boolean; items?: IDataObject[] } = {},
): Promise<ExecuteNodeResult> {
	return keep(
		await executeNode({
			nodeType: new ServiceBot(),
			parameters,
			items: options.items,
			credentials: { accessToken: options.token ?? TOKEN, baseUrl: options.baseUrl ?? emu.baseUrl },
			continueOnFail: options.continueOnFail,
		}),
	);
}

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
	const started = performance.now();
	const value = await run();
	return { value, ms: performance.now() - started };
}

const delivered = (text: string): number => emu.history(chatId).filter((message) => message.text === text).length;
const callCount = (method: string): number => emu.callsTo(method).length;

/** Polls until `condition` holds (the test's time limit ends a wait that never does). */
async function waitFor(condition: () => boolean): Promise<void> {
	while (!condition()) await sleep(20);
}

/** A loopback URL where nothing listens: a port that was free a moment ago. */
async function closedPortUrl(): Promise<string> {
	return `http://127.0.0.1:${await freePort()}`;
}

/** Default transport policy: 3 transient retries after 300, 600 and 1200 ms. */
const READ_RETRY_MS = 300 + 600 + 1200;

describe('the leak detector itself', () => {
	it('finds every form of the token, and the capture sees console, stdout, stderr and the n8n logger', () => {
		const forms = tokenForms(TOKEN);
		expect(forms).toEqual(
			expect.arrayContaining([TOKEN, encodeURIComponent(TOKEN), '8675309:Zx.y*z%2Bq%3Fw(e)%5Br%5D%7Bt%7D%7Cu%5Ei%24o%5Cp%25a%26b%3Dc%23d~e%24%26']),
		);
		for (const form of forms) expect(findLeak(TOKEN, [`before ${form} after`])).toBeDefined();
		expect(findLeak(TOKEN, [safeJson({ url: `/bot${TOKEN}/getMe` })])).toBeDefined();
		expect(findLeak(TOKEN, ['nothing here', '8675309:***'])).toBeUndefined();

		const probe = startCapture();
		try {
			console.log('via console', { token: TOKEN });
			process.stdout.write(`stdout ${encodeURIComponent(TOKEN)}\n`);
			process.stderr.write(Buffer.from(`stderr ${TOKEN}`));
			(Reflect.get(HookContext.prototype, 'logger') as Logger).error('hook logger', { url: `/bot${TOKEN}/x` });
			LoggerProxy.debug('logger proxy', { token: TOKEN });
		} finally {
			probe.stop();
		}
		expect(probe.lines).toHaveLength(5);
		expect(probe.logged('error')).toHaveLength(1);
		for (const line of probe.lines) expect(findLeak(TOKEN, [line])).toBeDefined();
	});
});

describe('fault injection (the whole describe is captured and scanned)', () => {
	beforeAll(async () => {
		emu = await startTestEmulator();
		const { botId } = emu.addBot({ token: TOKEN, name: 'Hostile Token Bot' });
		({ chatId } = emu.addChat({
			type: 'group',
			title: 'Fault tests',
			members: [
				{ userId: botId, status: 'administrator' },
				{ userId: emu.demo.userId, status: 'member' },
			],
		}));
		errorReports.length = 0;
		MethodCaller.thrown.length = 0;
		capture = startCapture();
	});

	afterAll(async () => {
		capture.stop();
		await emu.close();
	});

	beforeEach(() => {
		emu.clearFaults();
		emu.calls.length = 0;
	});

	describe('refused connection', () => {
		it('a send is retried because nothing reached the service (backoff 300 + 600 + 1200 ms), then gives up', async () => {
			const baseUrl = await closedPortUrl();
			const { value: result, ms } = await timed(async () => await node(sendParameters('refused'), { baseUrl }));
			const error = errorOf(result);
			// n8n's NodeApiError words a refused connection itself; our text stays in `messages`.
			expect(error.message).toBe('The service refused the connection - perhaps it is offline');
			expect(error.messages?.join(' ')).toMatch(/Could not reach the service for sendMessage/);
			expect(error.description).toMatch(/Check the base URL/);
			// It waited out the three backoff steps before giving up (an endless retry would never return).
			expect(ms).toBeGreaterThanOrEqual(READ_RETRY_MS);
		});
	});

	describe('reset in the middle of the answer', () => {
		it('a send is not repeated (it may have acted), and the message exists once', async () => {
			emu.injectFault({ kind: 'reset', method: 'sendMessage', execute: true });
			const error = errorOf(await node(sendParameters('reset once')));
			expect(error.message).toMatch(/^Could not reach the service for sendMessage/);
			expect(error.description).toMatch(/not repeated/);
			expect(error.httpCode).toBe('503');
			expect(callCount('sendMessage')).toBe(1);
			expect(delivered('reset once')).toBe(1);
		});

		it('a read is retried a bounded number of times: a lasting fault gives up after 4 attempts', async () => {
			emu.injectFault({ kind: 'reset', method: 'getChat', count: 50 });
			const error = errorOf(await node(readParameters()));
			expect(error.message).toMatch(/^Could not reach the service for getChat/);
			expect(error.description).toBe('Gave up after 4 attempts.');
			expect(callCount('getChat')).toBe(4);
		});

		it('a read survives one reset', async () => {
			emu.injectFault({ kind: 'reset', method: 'getChat' });
			const result = await node(readParameters());
			expect(result.error).toBeUndefined();
			expect(result.output[0].json).toMatchObject({ id: chatId });
			expect(callCount('getChat')).toBe(2);
		});
	});

	describe('timeout (MethodCaller: the node timeout is 30 s)', () => {
		async function call(method: string, body: IDataObject): Promise<ExecuteNodeResult> {
			return keep(
				await executeNode({
					nodeType: new MethodCaller(),
					parameters: {
						method,
						body: JSON.stringify(body),
						timeoutMs: 200,
						retry: JSON.stringify({ backoffBaseMs: 20 }),
						// What the node marks safe to repeat: the methods that only read.
						idempotent: specMethod(method).readsOnly,
					},
					credentials: credentialsFor(emu, TOKEN),
				}),
			);
		}

		it('a send that times out is not repeated; the late answer still delivers it exactly once', async () => {
			emu.injectFault({ kind: 'delay', delayMs: 1500, method: 'sendMessage' });
			const error = errorOf(await call('sendMessage', { chat_id: chatId, text: 'slow send' }));
			expect(error.message).toBe('The service did not answer sendMessage in time');
			expect(error.httpCode).toBe('504');
			expect(error.description).toMatch(/not repeated/);
			// It gave up before the service acted (the delayed call has not sent it yet), and sent nothing again.
			expect(delivered('slow send')).toBe(0);
			// The late answer still sends it, once: the node did not send it a second time.
			await waitFor(() => delivered('slow send') > 0);
			await sleep(100);
			expect(callCount('sendMessage')).toBe(1);
			expect(delivered('slow send')).toBe(1);
		});

		it('a read that keeps timing out is retried 3 times, then gives up', async () => {
			emu.injectFault({ kind: 'delay', delayMs: 600, method: 'getChat', count: 4 });
			const error = errorOf(await call('getChat', { chat_id: chatId }));
			expect(error.message).toBe('The service did not answer getChat in time');
			expect(error.description).toBe('Gave up after 4 attempts.');
			expect(callCount('getChat')).toBe(4);
			await sleep(700);
		});
	});

	describe('HTTP errors of the service', () => {
		it('401 (token refused): clear error, one call, nothing retried', async () => {
			const error = errorOf(await node(sendParameters('x'), { token: UNKNOWN_TOKEN }));
			expect(error).toMatchObject({ message: 'Unauthorized', httpCode: '401' });
			expect(error.description).toMatch(/access token was not accepted/);
			expect(emu.calls).toHaveLength(1);

			emu.injectFault({ kind: 'status', status: 401, method: 'getChat' });
			const read = errorOf(await node(readParameters()));
			expect(read).toMatchObject({ message: 'Unauthorized', httpCode: '401' });
			expect(callCount('getChat')).toBe(1);
		});

		it('403 (bot not in the chat): the service description, one call', async () => {
			const error = errorOf(await node(sendParameters('x', emu.demo.foreignChatId)));
			expect(error).toMatchObject({ message: 'Forbidden: bot is not a member of the chat. Add the bot to the chat (as an administrator where posting needs it, such as a channel), then run the workflow again', httpCode: '403' });
			expect(error.description).toMatch(/not a member/);
			expect(callCount('sendMessage')).toBe(1);
		});

		it('404 (unknown method, wrong base URL): says what to check, one call', async () => {
			const error = errorOf(await node({ resource: 'other', operation: 'callMethod', method: 'noSuchMethod', body: '{}' }));
			expect(error).toMatchObject({ message: 'Not Found: method not found', httpCode: '404' });
			expect(error.description).toMatch(/Check the base URL and the token/);
			expect(callCount('noSuchMethod')).toBe(1);

			const wrongBase = errorOf(await node(sendParameters('x'), { baseUrl: `${emu.baseUrl}/api` }));
			expect(wrongBase.httpCode).toBe('404');
			expect(wrongBase.description).toMatch(/Nothing answered sendMessage/);
		});

		it('409 (polling while a webhook is set): what to do in the message, the service description in the details, a read not retried on 4xx', async () => {
			const set = await node({ resource: 'webhook', operation: 'setWebhook', url: 'http://127.0.0.1:9/hook' });
			expect(set.error).toBeUndefined();
			emu.calls.length = 0;
			try {
				const error = errorOf(await node({ resource: 'update', operation: 'getUpdates' }));
				expect(error.message).toMatch(/^Get Updates can't be used while the bot has a webhook\. Remove it with .*Delete Webhook/);
				expect(error.httpCode).toBe('409');
				expect(error.description).toMatch(/Conflict: can't use getUpdates method while webhook is active/);
				expect(error.description).toMatch(/polling while a webhook is set/);
				expect(callCount('getUpdates')).toBe(1);
			} finally {
				expect((await node({ resource: 'webhook', operation: 'deleteWebhook' })).error).toBeUndefined();
			}
		});

		it('429 storm: waited out 5 times, then a clear error; nothing is sent twice', async () => {
			emu.injectFault({ kind: 'status', status: 429, retryAfter: 0, method: 'sendMessage', count: 100 });
			const error = errorOf(await node(sendParameters('storm')));
			expect(error.message).toMatch(/^Too Many Requests/);
			expect(error.httpCode).toBe('429');
			expect(error.description).toMatch(/rate-limiting/);
			expect(callCount('sendMessage')).toBe(6);
			expect(delivered('storm')).toBe(0);
		});

		it('429 that passes: retry_after is honoured and the message is delivered once', async () => {
			emu.injectFault({ kind: 'status', status: 429, retryAfter: 1, method: 'sendMessage', count: 2 });
			const { value: result, ms } = await timed(async () => await node(sendParameters('after the storm')));
			expect(result.error).toBeUndefined();
			expect(ms).toBeGreaterThanOrEqual(2000);
			const calls = emu.callsTo('sendMessage');
			expect(calls.map((call) => call.status)).toEqual([429, 429, 200]);
			expect(calls[2].at - calls[1].at).toBeGreaterThanOrEqual(1000);
			expect(delivered('after the storm')).toBe(1);
		});

		it('429 asking for a longer wait than allowed is not waited out: one call, the 429 thrown', async () => {
			emu.injectFault({ kind: 'status', status: 429, retryAfter: 3600, method: 'sendMessage' });
			// Waiting out the hour would outlast the test's time limit; the node returns instead.
			const result = await node(sendParameters('x'));
			expect(errorOf(result).httpCode).toBe('429');
			expect(callCount('sendMessage')).toBe(1);
		});

		it('500: a send is not repeated (it may have acted) and exists once; a read is retried, bounded', async () => {
			emu.injectFault({ kind: 'status', status: 500, method: 'sendMessage', execute: true });
			const error = errorOf(await node(sendParameters('acted anyway')));
			expect(error).toMatchObject({ httpCode: '500' });
			expect(error.description).toMatch(/may have acted/);
			expect(callCount('sendMessage')).toBe(1);
			expect(delivered('acted anyway')).toBe(1);

			emu.injectFault({ kind: 'status', status: 500, method: 'getChat', count: 50 });
			const { value: read, ms } = await timed(async () => await node(readParameters()));
			expect(errorOf(read).httpCode).toBe('500');
			expect(callCount('getChat')).toBe(4);
			expect(ms).toBeGreaterThanOrEqual(READ_RETRY_MS);

			emu.calls.length = 0;
			emu.clearFaults();
			emu.injectFault({ kind: 'status', status: 500, method: 'getChat' });
			expect((await node(readParameters())).error).toBeUndefined();
			expect(callCount('getChat')).toBe(2);
		});
	});

	describe('answers that are not the expected JSON', () => {
		it('malformed JSON: a send is not repeated, a read is retried and bounded', async () => {
			emu.injectFault({ kind: 'malformed', method: 'sendMessage', execute: true });
			const error = errorOf(await node(sendParameters('half an answer')));
			expect(error.message).toBe('The service sent an answer to sendMessage that is not the expected JSON (HTTP 200)');
			expect(error.httpCode).toBe('502');
			// It answered 200: the message was most likely sent, and the user must be told so.
			expect(error.description).toMatch(/probably acted/);
			expect(callCount('sendMessage')).toBe(1);
			expect(delivered('half an answer')).toBe(1);

			emu.injectFault({ kind: 'malformed', method: 'getChat', count: 50 });
			expect(errorOf(await node(readParameters())).message).toMatch(/not the expected JSON/);
			expect(callCount('getChat')).toBe(4);
		});

		it('an HTML error page: the page title in the description, a send not repeated, a read retried once', async () => {
			emu.injectFault({ kind: 'html', method: 'sendMessage' });
			const error = errorOf(await node(sendParameters('x')));
			expect(error.message).toBe('The service sent an answer to sendMessage that is not the expected JSON (HTTP 502)');
			expect(error.httpCode).toBe('502');
			expect(error.description).toMatch(/may have acted anyway.*502 Bad Gateway/);
			expect(callCount('sendMessage')).toBe(1);

			emu.injectFault({ kind: 'html', method: 'getChat' });
			expect((await node(readParameters())).error).toBeUndefined();
			expect(callCount('getChat')).toBe(2);
		});

		it('a dropped connection: a send is not repeated', async () => {
			emu.injectFault({ kind: 'drop', method: 'sendMessage' });
			const error = errorOf(await node(sendParameters('x')));
			expect(error.description).toMatch(/not repeated/);
			expect(callCount('sendMessage')).toBe(1);
		});
	});

	describe('Continue On Fail: the errors become output items', () => {
		it('every fault kind in one bulk run: one paired error item each, nothing sent twice', async () => {
			const kinds = [
				{ kind: 'status', status: 500 },
				{ kind: 'status', status: 401 },
				{ kind: 'status', status: 409 },
				{ kind: 'reset' },
				{ kind: 'malformed' },
				{ kind: 'html' },
				{ kind: 'drop' },
				{ kind: 'status', status: 429, retryAfter: 3600 },
			] as const;
			for (const fault of kinds) emu.injectFault({ ...fault, method: 'sendMessage' });
			const items = kinds.map((_, index) => ({ text: `bulk ${index}` }));
			const result = await node(
				{ ...sendParameters('={{ $json.text }}'), options: { concurrency: 1 } },
				{ items, continueOnFail: true },
			);
			expect(result.error).toBeUndefined();
			expect(result.output.map((item) => (item.pairedItem as { item: number }).item)).toEqual(items.map((_, index) => index));
			for (const item of result.output) expect(typeof item.json.error).toBe('string');
			expect(callCount('sendMessage')).toBe(kinds.length);
		});
	});

	describe('the trigger and the credential test under faults', () => {
		it('activation and deactivation fail clearly and report (not throw) on deactivation', async () => {
			jest.replaceProperty(WRITE_TIMING, 'retry', { transientRetries: 5, backoffBaseMs: 2 });
			jest.replaceProperty(WRITE_TIMING, 'removalRetryDelaysMs', [10]);
			const harness = await makeHarness(emu, { token: TOKEN });
			// A write of the webhook is repeated after a 5xx (it is idempotent): 1 + 5 attempts fail.
			emu.injectFault({ kind: 'status', status: 500, method: 'setWebhook', count: 6 });
			const failure = await harness.activate().then(
				() => undefined,
				(error: unknown) => error as Error & { description?: string },
			);
			seen.push(...textsOf(failure));
			expect(failure?.message).toBe('Internal Server Error');
			expect(failure?.description).toMatch(/may have acted/);

			// Another system's webhook with the token in its URL (a common habit): refused, then taken over;
			// both the error and the warning name that URL, and neither may carry the token.
			const foreign = `http://127.0.0.1:9/hook/${encodeURIComponent(TOKEN)}/x?token=${encodeURIComponent(TOKEN)}`;
			const set = await node({ resource: 'webhook', operation: 'setWebhook', url: foreign });
			expect(set.error).toBeUndefined();
			const refused = await harness.activate().then(
				() => undefined,
				(error: unknown) => error as Error & { description?: string },
			);
			seen.push(...textsOf(refused));
			expect(refused?.message).toMatch(/^The bot's webhook belongs to someone else: it delivers to http:\/\/127\.0\.0\.1:9\/hook\/\*\*\*\/x\?…\. /);
			const takeOver = await makeHarness(emu, {
				token: TOKEN,
				parameters: { updates: ['*'], options: { takeOverExistingWebhook: true } },
			});
			await takeOver.activate();
			expect(capture.logged('warn').join('\n')).toMatch(/taking over the bot's webhook from http:\/\/127\.0\.0\.1:9\/hook\/\*\*\*/);
			await expect(takeOver.delete()).resolves.toBe(true);

			await harness.activate();
			emu.injectFault({ kind: 'status', status: 401, method: 'getWebhookInfo' });
			await expect(harness.delete()).resolves.toBe(false);
			expect(capture.logged('warn').join('\n')).toMatch(/could not remove this trigger from the bot's webhook.*Unauthorized/);
			await expect(harness.delete()).resolves.toBe(true);
			expect(emu.webhookOf(TOKEN)).toBeNull();
		});

		it('the credential test gives a clear message for every fault', async () => {
			const cases: Array<[() => void, string | RegExp, string?]> = [
				// n8n-core repeats a request once after a 401 (to refresh a credential), so two 401s.
				[() => emu.injectFault({ kind: 'status', status: 401, count: 2 }), /rejected the access token/],
				[() => emu.injectFault({ kind: 'status', status: 500 }), 'Internal Server Error'],
				[() => emu.injectFault({ kind: 'html' }), 'Bad Gateway'],
				[() => emu.injectFault({ kind: 'reset' }), /aborted/],
				[() => emu.injectFault({ kind: 'drop' }), /./],
				[() => undefined, /Nothing answered/, `${emu.baseUrl}/api`],
				[() => undefined, 'ECONNREFUSED', await closedPortUrl()],
				[() => undefined, /must start with https:\/\/ or http:\/\//, 'not a url'],
			];
			for (const [inject, expected, baseUrl] of cases) {
				emu.clearFaults();
				inject();
				const result = await testCredential({ accessToken: TOKEN, baseUrl: baseUrl ?? emu.baseUrl });
				expect(result.status).toBe('Error');
				expect(result.message).toMatch(expected);
				seen.push(safeJson(result));
			}
		});
	});

	describe('answers that quote the request path (the token in it), for every operation of the node', () => {
		/** Refusals as a service may word them, each quoting the path; the first words match what the node explains. */
		const REFUSALS = [
			{ status: 400, said: 'Bad Request: invalid file_id' },
			{ status: 400, said: 'Bad Request: query is too old and response timeout expired or query ID is invalid' },
			{ status: 400, said: 'Bad Request: chat not found' },
			{ status: 403, said: 'Forbidden: bot was blocked by the user' },
			{ status: 409, said: 'Conflict: can\'t use getUpdates method while webhook is active' },
			{ status: 429, said: 'Too Many Requests: retry after 3600', retryAfter: 3600 },
		] as const;
		const ECHOES: readonly PathEcho[] = ['redirectPage', 'redirectJson'];

		it('a refusal, a redirect page and a redirect with a JSON body: each operation fails or reports with the service\'s words, the token in none of its texts', async () => {
			const echo = await startPathEcho(emu.baseUrl);
			const runs: Array<{ name: string; result: ExecuteNodeResult; texts: string[] }> = [];
			/** One valid item per operation: the fuzz model's (from the spec), and those the spec has no method for. */
			const operations = [
				...VARIANTS.map((variant) => ({ ...variant, item: fc.sample(validItem(variant), { numRuns: 1, seed: 39 })[0] })),
				{ name: 'getFile', resource: 'file', operation: 'getFile', parameters: { resource: 'file', operation: 'getFile', fileId: '={{ $json.file_id }}' }, item: { file_id: '6f1e2d3c-4b5a-4968-8776-655443322110' } },
				{
					name: 'sendAndWait',
					resource: 'message',
					operation: 'sendAndWait',
					parameters: { resource: 'message', operation: 'sendAndWait', chatId: byId(chatId), message: '={{ $json.question }}' },
					item: { question: 'Approve the refund?' },
				},
			];
			const offered = new ServiceBot().description.properties
				.filter((property) => property.name === 'operation')
				.flatMap((property) => ((property.displayOptions?.show?.resource ?? []) as string[]).flatMap((resource) => (property.options ?? []).map((option) => `${resource}.${String((option as { value: unknown }).value)}`)));
			expect(offered.filter((operation) => !operations.some((row) => `${row.resource}.${row.operation}` === operation))).toEqual([]);

			const runOperation = async (name: string, row: (typeof operations)[number], options: { baseUrl?: string; continueOnFail: boolean; typeVersion?: number }): Promise<void> => {
				const result = keep(
					await executeNode({
						nodeType: new ServiceBot(),
						parameters: row.parameters,
						items: [row.item],
						credentials: { accessToken: TOKEN, baseUrl: options.baseUrl ?? emu.baseUrl },
						continueOnFail: options.continueOnFail,
						typeVersion: options.typeVersion,
					}),
				);
				runs.push({ name, result, texts: [...textsOf(result.error), safeJson(result.run), safeJson(result.output)] });
			};
			try {
				for (const row of operations) {
					const versions = row.operation === 'answerCallbackQuery' ? [2, 3] : [undefined];
					for (const typeVersion of versions) {
						const name = `${row.name}${typeVersion ? ` v${typeVersion}` : ''}`;
						for (const refusal of REFUSALS) {
							emu.clearFaults();
							const description = `${refusal.said} (request ${quotedPaths(TOKEN, emu.baseUrl, row.operation).join(' ; ')})`;
							emu.injectFault({ kind: 'status', status: refusal.status, description, ...('retryAfter' in refusal ? { retryAfter: refusal.retryAfter } : {}), count: 1000 });
							for (const continueOnFail of [false, true]) await runOperation(`${name}, ${refusal.said}`, row, { continueOnFail, typeVersion });
						}
						emu.clearFaults();
						for (const kind of ECHOES) {
							echo.echo = kind;
							for (const continueOnFail of [false, true]) await runOperation(`${name}, ${kind}`, row, { baseUrl: echo.baseUrl, continueOnFail, typeVersion });
						}
						echo.echo = 'none';
					}
				}
			} finally {
				emu.clearFaults();
				await echo.close();
			}
			// Every run failed or reported on its item: nothing was mistaken for a success.
			for (const { name, result } of runs) {
				const reported = result.output.some((item) => item.json.error !== undefined || item.json.notice !== undefined);
				expect([name, result.error !== undefined || reported]).toEqual([name, true]);
			}
			expect(runs.length).toBeGreaterThanOrEqual(operations.length * (REFUSALS.length + ECHOES.length) * 2);
			// Each leaking run by name (the first text of each), so one failure shows every path that leaks.
			const leaks = runs.flatMap(({ name, texts }) => {
				const leak = findLeak(TOKEN, texts);
				return leak ? [`${name}: ${leak.slice(0, 400)}`] : [];
			});
			expect(leaks).toEqual([]);
		}, 120_000);
	});

	describe('the token appears nowhere', () => {
		it('in any error, output item, run data, error report or captured line of the whole file', () => {
			const reports = errorReports.flatMap((report) => textsOf(report));
			const thrown = MethodCaller.thrown.flatMap((error) => textsOf(error));
			const everything = [...seen, ...reports, ...thrown, ...capture.lines];
			// The scan had material: errors of every kind, reports, and log lines.
			expect(seen.length).toBeGreaterThan(100);
			expect(errorReports.length).toBeGreaterThan(10);
			expect(capture.lines.length).toBeGreaterThan(10);
			for (const token of [TOKEN, UNKNOWN_TOKEN]) {
				const leak = findLeak(token, everything);
				if (leak) throw new Error(`the token leaked as ${leak}`);
			}
		});
	});
});
