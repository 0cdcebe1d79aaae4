/**
 * nodes/shared/transport/ through real n8n contexts: every call goes through n8n-core's
 * WorkflowExecute, ExecuteContext, httpRequestWithAuthentication (with the real credential class) and
 * n8n's outbound HTTP client, against the service emulator.
 */
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IDataObject } from 'n8n-workflow';

import type { Emulator } from '../../emulator';
import { createTriggerHarness, errorReports, executeNode, freePort, TestCredentialsHelper, type ExecuteNodeResult } from '../../harness';
import { safeJson, textsOf } from '../../hardening/secrecy';
import { MethodCaller, SECRET_HEADER } from '../../harness/test-nodes';
import { credentialsFor, useEmulator } from '../../harness/emulator-suite';
import { run, sendFromItems } from '../../harness/action-node';
import { ServiceBotTrigger } from '../../../nodes/ServiceBotTrigger/ServiceBotTrigger.node';
import { apiRequest } from '../../../nodes/shared/transport/client';
import { failureOf } from '../../../nodes/shared/transport/failure';
import { CREDENTIAL_MAX_AGE_MS, readCredentialOf, rereadToken, tokenOf } from '../../../nodes/shared/transport/token';
import type { ServiceBotContext } from '../../../nodes/shared/transport/types';

/** A loopback URL where nothing listens: a port that was free a moment ago. */
async function closedPortUrl(): Promise<string> {
	return `http://127.0.0.1:${await freePort()}`;
}

/** Regex metacharacters and URL-special characters: redaction and URL building must treat it literally. */
const TOKEN = '123:a.b*c+d?e(f)[g]{h}|i^j$k';
/** For the 401 case: a wrong token of the same kind, which must not leak either. */
const WRONG_TOKEN = '456:z.y*x+w?v(u)[t]{s}|r^q$p';
const FAST_RETRY = { backoffBaseMs: 20 };

let emulator: Emulator;
let chatId: string;
const suite = useEmulator({ started: (started) => (emulator = started) });

beforeEach(() => {
	// The emulator was reset after the last test: the bot of the hostile token and its chat, again.
	const { botId } = emulator.addBot({ token: TOKEN, name: 'Meta Bot' });
	({ chatId } = emulator.addChat({
		type: 'group',
		title: 'Transport tests',
		members: [{ userId: botId, status: 'administrator' }],
	}));
	MethodCaller.thrown.length = 0;
	errorReports.length = 0;
});

interface CallOptions {
	body?: IDataObject;
	timeoutMs?: number;
	retry?: IDataObject;
	accessToken?: string;
	baseUrl?: string;
	continueOnFail?: boolean;
}

async function call(method: string, options: CallOptions = {}): Promise<ExecuteNodeResult> {
	return await executeNode({
		nodeType: new MethodCaller(),
		parameters: {
			method,
			body: JSON.stringify(options.body ?? {}),
			timeoutMs: options.timeoutMs ?? 0,
			retry: JSON.stringify({ ...FAST_RETRY, ...options.retry }),
			// The spec's get… methods only read, so the node marks them safe to repeat.
			idempotent: method.startsWith('get'),
		},
		credentials: { accessToken: options.accessToken ?? TOKEN, baseUrl: options.baseUrl ?? emulator.baseUrl },
		continueOnFail: options.continueOnFail,
	});
}

function thrownError(): NodeApiError {
	expect(MethodCaller.thrown).toHaveLength(1);
	const [error] = MethodCaller.thrown;
	expect(error).toBeInstanceOf(NodeApiError);
	return error as NodeApiError;
}

/**
 * Every form a token can take in a text: raw, URL-encoded (both ways), the secret part after the bot id,
 * and the secret's start (what is left in a URL cut at a '?').
 */
function tokenForms(token: string): string[] {
	const secret = token.slice(token.indexOf(':') + 1);
	const start = secret.slice(0, 7);
	return [...new Set([token, encodeURIComponent(token), encodeURI(token), secret, encodeURIComponent(secret), start, encodeURIComponent(start)])];
}

function expectNoToken(token: string, result: ExecuteNodeResult): void {
	const texts = [
		...MethodCaller.thrown.flatMap((error) => textsOf(error)),
		...textsOf(result.error),
		safeJson(result.run),
		safeJson(result.output),
		...errorReports.flatMap((report) => textsOf(report)),
	];
	for (const form of tokenForms(token)) {
		for (const text of texts) {
			if (text.includes(form)) throw new Error(`The token (as "${form}") leaked into: ${text.slice(0, 500)}`);
		}
	}
}

describe('apiRequest through real n8n contexts', () => {
	it('reaches the service with the token intact and unwraps the {ok, result} envelope', async () => {
		const { output, error } = await call('getMyName');
		// The credential must put the token into the path as one encoded segment ('?' would cut it).
		expect(emulator.calls.map((recorded) => recorded.token)).toEqual([TOKEN]);
		expect(emulator.calls[0]).toMatchObject({ method: 'getMyName', httpMethod: 'POST' });
		expect(error).toBeUndefined();
		expect(output).toEqual([{ json: { result: { name: 'Meta Bot' } }, pairedItem: { item: 0 } }]);

		const chat = await call('getChat', { body: { chat_id: chatId } });
		expect(chat.output[0].json.result).toMatchObject({ id: chatId, type: 'group', title: 'Transport tests' });
	});

	it('turns ok:false into a NodeApiError with the service description, HTTP code and error_code', async () => {
		const { error, output } = await call('sendMessage', {
			body: { chat_id: '00000000-0000-4000-8000-000000000000', text: 'hello' },
		});
		expect(output).toEqual([]);
		const thrown = thrownError();
		expect(thrown.message).toBe("Bad Request: chat not found. Check the Chat ID: use the chat_id of an update the bot received (the trigger's chat_id field) or the @username of a public group or channel; the bot must be in that chat");
		expect(thrown.httpCode).toBe('400');
		expect(thrown.errorResponse).toMatchObject({ error_code: 400, description: 'Bad Request: chat not found' });
		expect(thrown.context.itemIndex).toBe(0);
		// What n8n stores on the execution (and shows in the editor) says the same.
		expect(error).toMatchObject({ name: 'NodeApiError', message: "Bad Request: chat not found. Check the Chat ID: use the chat_id of an update the bot received (the trigger's chat_id field) or the @username of a public group or channel; the bot must be in that chat", httpCode: '400' });
		expect(emulator.callsTo('sendMessage')).toHaveLength(1);
	});

	it('puts the service description into the item with "On Error: Continue"', async () => {
		const { output, error } = await call('getChat', {
			body: { chat_id: emulator.demo.foreignChatId },
			continueOnFail: true,
		});
		expect(error).toBeUndefined();
		expect(output).toEqual([{ json: { error: 'Forbidden: bot is not a member of the chat. Add the bot to the chat (as an administrator where posting needs it, such as a channel), then run the workflow again' }, pairedItem: { item: 0 } }]);
	});

	it('waits out a 429 for retry_after seconds, then succeeds with exactly two calls', async () => {
		emulator.injectFault({ kind: 'status', status: 429, retryAfter: 1, method: 'getMyName' });
		const started = performance.now();
		const { output, error } = await call('getMyName');
		const elapsed = performance.now() - started;
		expect(error).toBeUndefined();
		expect(output[0].json.result).toEqual({ name: 'Meta Bot' });
		expect(elapsed).toBeGreaterThanOrEqual(1000);
		const calls = emulator.callsTo('getMyName');
		expect(calls.map((recorded) => recorded.status)).toEqual([429, 200]);
		expect(calls[1].at - calls[0].at).toBeGreaterThanOrEqual(1000);
	});

	it('gives up clearly when the 429s outlast the retry budget', async () => {
		emulator.injectFault({ kind: 'status', status: 429, retryAfter: 0, method: 'sendMessage', count: 50 });
		const { error } = await call('sendMessage', {
			body: { chat_id: chatId, text: 'hello' },
			retry: { rateLimitRetries: 2 },
		});
		const thrown = thrownError();
		expect(thrown.message).toMatch(/Too Many Requests/);
		expect(thrown.httpCode).toBe('429');
		expect(thrown.description).toMatch(/rate-limiting/);
		expect(error?.message).toMatch(/Too Many Requests/);
		expect(emulator.callsTo('sendMessage')).toHaveLength(3);
		expect(emulator.history(chatId).filter((message) => message.text === 'hello')).toHaveLength(0);
	});

	it('does not wait when the service asks for a longer wait than allowed: one call, the 429 thrown', async () => {
		emulator.injectFault({ kind: 'status', status: 429, retryAfter: 3600, method: 'getMyName' });
		// Waiting out the hour would outlast the test's time limit; the call returns instead.
		await call('getMyName');
		const thrown = thrownError();
		expect(thrown.httpCode).toBe('429');
		expect(thrown.errorResponse).toMatchObject({ parameters: { retry_after: 3600 } });
		expect(emulator.callsTo('getMyName')).toHaveLength(1);
	});

	it('does not repeat a send after a 500 (it may have acted)', async () => {
		emulator.injectFault({ kind: 'status', status: 500, method: 'sendMessage' });
		await call('sendMessage', { body: { chat_id: chatId, text: 'once' } });
		const thrown = thrownError();
		expect(thrown.httpCode).toBe('500');
		expect(thrown.description).toMatch(/may have acted/);
		expect(emulator.callsTo('sendMessage')).toHaveLength(1);
	});

	it('retries a read-only method after a 500 and succeeds', async () => {
		emulator.injectFault({ kind: 'status', status: 500, method: 'getChat' });
		const { output, error } = await call('getChat', { body: { chat_id: chatId } });
		expect(error).toBeUndefined();
		expect(output[0].json.result).toMatchObject({ id: chatId });
		expect(emulator.callsTo('getChat').map((recorded) => recorded.status)).toEqual([500, 200]);
	});

	it('retries a read-only method after a dropped connection and succeeds', async () => {
		emulator.injectFault({ kind: 'drop', method: 'getChat' });
		const { output, error } = await call('getChat', { body: { chat_id: chatId } });
		expect(error).toBeUndefined();
		expect(output[0].json.result).toMatchObject({ id: chatId });
		expect(emulator.callsTo('getChat')).toHaveLength(2);
	});
});

describe('the typed failure of each way a call can fail (what the poll loop and the action node decide on)', () => {

	it('a refusal: its HTTP status and the service description', async () => {
		await call('sendMessage', { body: { chat_id: '00000000-0000-4000-8000-000000000000', text: 'hello' } });
		expect(failureOf(thrownError())).toEqual({ kind: 'refused', status: 400, description: 'Bad Request: chat not found' });
	});

	it('a 429: refused with its retry_after', async () => {
		emulator.injectFault({ kind: 'status', status: 429, retryAfter: 3600, method: 'getMyName' });
		await call('getMyName');
		expect(failureOf(thrownError())).toMatchObject({ kind: 'refused', status: 429, retryAfterSeconds: 3600 });
	});

	it('a 500 and a proxy\'s HTML 502 page: server errors', async () => {
		emulator.injectFault({ kind: 'status', status: 500, method: 'sendMessage' });
		await call('sendMessage', { body: { chat_id: chatId, text: 'x' } });
		expect(failureOf(thrownError())).toEqual({ kind: 'serverError', status: 500 });
		MethodCaller.thrown.length = 0;
		emulator.injectFault({ kind: 'html', method: 'sendMessage' });
		await call('sendMessage', { body: { chat_id: chatId, text: 'x' } });
		expect(failureOf(thrownError())).toEqual({ kind: 'serverError', status: 502 });
	});

	it('a 200 whose body is not JSON: malformed', async () => {
		emulator.injectFault({ kind: 'malformed', method: 'sendMessage' });
		await call('sendMessage', { body: { chat_id: chatId, text: 'x' } });
		expect(failureOf(thrownError())).toEqual({ kind: 'malformed', status: 200 });
	});

	it('a refused connection: network, nothing sent; a dropped one: network, maybe sent', async () => {
		await call('getMyName', { baseUrl: await closedPortUrl(), retry: { transientRetries: 0 } });
		expect(failureOf(thrownError())).toEqual({ kind: 'network', code: 'ECONNREFUSED', nothingSent: true });
		MethodCaller.thrown.length = 0;
		emulator.injectFault({ kind: 'drop', method: 'sendMessage' });
		await call('sendMessage', { body: { chat_id: chatId, text: 'x' } });
		expect(failureOf(thrownError())).toMatchObject({ kind: 'network', nothingSent: false });
	});

	it('no answer in time: timeout', async () => {
		emulator.injectFault({ kind: 'hang', method: 'sendMessage' });
		await call('sendMessage', { body: { chat_id: chatId, text: 'slow' }, timeoutMs: 150 });
		expect(failureOf(thrownError())).toEqual({ kind: 'timeout' });
	});

	it('an abort while the call waits out a 429 ends the wait: cancelled, not asked again', async () => {
		const controller = new AbortController();
		const requests: string[] = [];
		// A context whose requests all get a 429 asking for 30 s; the abort comes as the first is answered.
		const context = {
			getNode: () => ({ id: 'node', name: 'Caller', type: 'test', typeVersion: 1, position: [0, 0], parameters: {} }),
			getCredentials: async () => ({ accessToken: TOKEN, baseUrl: emulator.baseUrl }),
			helpers: {
				httpRequestWithAuthentication: async (_type: string, request: { url: string }) => {
					requests.push(request.url);
					setImmediate(() => controller.abort());
					return { statusCode: 429, body: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 30', parameters: { retry_after: 30 } } };
				},
			},
		} as unknown as Parameters<typeof apiRequest>[0];
		const failure = await apiRequest(context, 'getMyName', {}, { abortSignal: controller.signal }).then(
			() => undefined,
			(error: unknown) => failureOf(error),
		);
		expect(failure).toEqual({ kind: 'cancelled' });
		expect(requests).toEqual(['/getMyName']);
	});
});

/** A context whose every request gets `answer` (a stand-in service), for answers the emulator does not give. */
function answeringContext(answer: { statusCode: number; body: unknown }): Parameters<typeof apiRequest>[0] {
	return {
		getNode: () => ({ id: 'node', name: 'Caller', type: 'test', typeVersion: 1, position: [0, 0], parameters: {} }),
		getCredentials: async () => ({ accessToken: TOKEN, baseUrl: emulator.baseUrl }),
		helpers: { httpRequestWithAuthentication: async () => answer },
	} as unknown as Parameters<typeof apiRequest>[0];
}

describe('the token never appears in an error', () => {

	it('a refusal quoting the request path: the typed failure (what callers build texts from) has the token out of the service\'s words, every spelling of it', async () => {
		const segment = encodeURIComponent(TOKEN).replace(/%3A/gi, ':');
		const quoted = [`/bot${TOKEN}/getFile`, `/bot${segment}/getFile`, `/file/bot${segment}/documents/a.pdf`, encodeURIComponent(`https://service.example/bot${segment}/getFile`), `/bot${segment.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase())}/getFile`];
		emulator.injectFault({ kind: 'status', status: 400, description: `Bad Request: invalid file_id (request ${quoted.join(' ; ')})`, method: 'getFile' });
		const result = await call('getFile', { body: { file_id: 'x' } });
		expect(failureOf(thrownError())).toEqual({
			kind: 'refused',
			status: 400,
			description: 'Bad Request: invalid file_id (request /bot***/getFile ; /bot***/getFile ; /file/bot***/documents/a.pdf ; https%3A%2F%2Fservice.example%2Fbot***%2FgetFile ; /bot***/getFile)',
		});
		expectNoToken(TOKEN, result);
	});

	it('an answer that is not the envelope, the token where its excerpt is cut and JSON-escaped: no part of it in the error', async () => {
		for (const body of [`${'x'.repeat(285)} /bot${TOKEN}/getMe`, [`${'y'.repeat(280)}`, `/bot${TOKEN}\\/getMe`]]) {
			const error = await apiRequest(answeringContext({ statusCode: 502, body }), 'getMe', {}, { retry: { transientRetries: 0 } }).then(
				() => undefined,
				(thrown: unknown) => thrown,
			);
			expect(failureOf(error)).toEqual({ kind: 'serverError', status: 502 });
			const texts = textsOf(error);
			for (const form of tokenForms(TOKEN)) for (const text of texts) expect([form, text.includes(form)]).toEqual([form, false]);
		}
	});

	it('self-check: the leak detector finds a token wherever it is', () => {
		const leaky = new Error('no token here', { cause: new Error(`GET /bot${encodeURIComponent(TOKEN)}/getMe failed`) });
		expect(() => expectNoToken(TOKEN, { output: [], errorOutput: [], run: {} as ExecuteNodeResult['run'], error: undefined })).not.toThrow();
		MethodCaller.thrown.push(leaky);
		expect(() => expectNoToken(TOKEN, { output: [], errorOutput: [], run: {} as ExecuteNodeResult['run'], error: undefined })).toThrow(
			/leaked/,
		);
	});

	it('refused connection (base URL points at a closed port)', async () => {
		const result = await call('getMyName', { baseUrl: await closedPortUrl(), retry: { transientRetries: 1 } });
		const thrown = thrownError();
		// n8n's NodeApiError replaces a message naming ECONNREFUSED with its own wording.
		expect(thrown.message).toBe('The service refused the connection - perhaps it is offline');
		expect(thrown.description).toMatch(/Check the base URL/);
		expect(thrown.messages.join(' ')).toMatch(/Could not reach the service for getMyName/);
		expectNoToken(TOKEN, result);
	});

	it('invalid base URL', async () => {
		const result = await call('sendMessage', { baseUrl: 'not a url', body: { chat_id: chatId, text: 'x' } });
		expect(thrownError().message).not.toBe('');
		expectNoToken(TOKEN, result);
	});

	it('timeout (the service holds the request and never answers)', async () => {
		emulator.injectFault({ kind: 'hang', method: 'sendMessage' });
		const result = await call('sendMessage', { body: { chat_id: chatId, text: 'slow' }, timeoutMs: 150 });
		const thrown = thrownError();
		expect(thrown.message).toBe('The service did not answer sendMessage in time');
		expect(thrown.httpCode).toBe('504');
		// One request, which the service never answered: the node gave up on its own timeout.
		expect(emulator.callsTo('sendMessage').map((recorded) => recorded.status)).toEqual([0]);
		expectNoToken(TOKEN, result);
	});

	it('401 (wrong token)', async () => {
		const result = await call('getMyName', { accessToken: WRONG_TOKEN });
		const thrown = thrownError();
		expect(thrown.message).toBe('Unauthorized');
		expect(thrown.httpCode).toBe('401');
		expect(thrown.description).toMatch(/access token was not accepted/);
		expectNoToken(WRONG_TOKEN, result);
	});

	it('404 (unknown method)', async () => {
		const result = await call('noSuchMethod');
		const thrown = thrownError();
		expect(thrown.httpCode).toBe('404');
		expect(thrown.message).toMatch(/Not Found/);
		expectNoToken(TOKEN, result);
	});

	it('500', async () => {
		emulator.injectFault({ kind: 'status', status: 500, method: 'sendMessage', description: 'Internal Server Error' });
		const result = await call('sendMessage', { body: { chat_id: chatId, text: 'x' } });
		expect(thrownError().httpCode).toBe('500');
		expectNoToken(TOKEN, result);
	});

	it('malformed JSON', async () => {
		emulator.injectFault({ kind: 'malformed', method: 'sendMessage' });
		const result = await call('sendMessage', { body: { chat_id: chatId, text: 'x' } });
		const thrown = thrownError();
		expect(thrown.message).toMatch(/not the expected JSON/);
		expectNoToken(TOKEN, result);
	});

	it('HTML 502 page', async () => {
		emulator.injectFault({ kind: 'html', method: 'sendMessage' });
		const result = await call('sendMessage', { body: { chat_id: chatId, text: 'x' } });
		const thrown = thrownError();
		expect(thrown.httpCode).toBe('502');
		expect(thrown.description).toMatch(/502 Bad Gateway/);
		expectNoToken(TOKEN, result);
	});

	it('dropped connection', async () => {
		emulator.injectFault({ kind: 'drop', method: 'sendMessage' });
		const result = await call('sendMessage', { body: { chat_id: chatId, text: 'x' } });
		const thrown = thrownError();
		expect(thrown.description).toMatch(/not repeated/);
		expect(emulator.callsTo('sendMessage')).toHaveLength(1);
		expectNoToken(TOKEN, result);
	});

	it('"On Error: Continue" output', async () => {
		const result = await call('getMyName', { accessToken: WRONG_TOKEN, continueOnFail: true });
		expect(result.output[0].json.error).toBe('Unauthorized');
		expectNoToken(WRONG_TOKEN, result);
	});
});

describe('one token cache for every node of a credential', () => {
	it('a push within 5 s of the action node reading the token is checked with that token, without reading the credential; 6 s later it is read anew', async () => {
		const trigger = createTriggerHarness({
			nodeType: new ServiceBotTrigger(),
			parameters: { updates: ['*'], options: {} },
			credentials: credentialsFor(emulator, TOKEN),
			webhookBaseUrl: `http://127.0.0.1:${await freePort()}/`,
			typeVersion: 1,
		});
		await trigger.activate();
		const secret = emulator.webhookOf(TOKEN)?.secretToken ?? '';
		expect(secret).not.toBe('');
		const push = async (updateId: number): Promise<number> =>
			(
				await trigger.receive({
					headers: { [SECRET_HEADER]: secret },
					body: { update_id: updateId, message: { message_id: updateId, date: 1_700_000_000, chat: { id: chatId, type: 'group' }, text: 'hello' } },
				})
			).status;
		const reads = jest.spyOn(TestCredentialsHelper.prototype, 'getDecrypted');
		// Later than any token the activation (or an earlier test) read.
		const now = Date.now() + 10_000;
		const clock = jest.spyOn(Date, 'now').mockReturnValue(now);
		try {
			await call('getMyName');
			expect(MethodCaller.thrown).toEqual([]);
			reads.mockClear();
			expect(await push(1)).toBe(200);
			expect(reads).not.toHaveBeenCalled();
			clock.mockReturnValue(now + 6_000);
			expect(await push(2)).toBe(200);
			expect(reads).toHaveBeenCalledTimes(1);
		} finally {
			clock.mockRestore();
			reads.mockRestore();
			await trigger.delete();
		}
	});
});

describe('the credential read once per execution', () => {
	it('Send Message of 20 items, each chat and text from its item, reads the credential once and sends 20 messages with its token', async () => {
		const reads = jest.spyOn(TestCredentialsHelper.prototype, 'getDecrypted');
		try {
			const items = Array.from({ length: 20 }, (_, index) => ({ chat: chatId, text: `bulk ${index}` }));
			const result = await run(suite, sendFromItems(), { items, token: TOKEN });
			expect(result.output).toHaveLength(20);
			const sent = emulator.callsTo('sendMessage');
			expect(sent.map((entry) => entry.body.text)).toEqual(items.map((item) => item.text));
			expect(sent.every((entry) => entry.token === TOKEN)).toBe(true);
			// n8n's httpRequestWithAuthentication would read it for every request too (21 reads).
			expect(reads).toHaveBeenCalledTimes(1);
		} finally {
			reads.mockRestore();
		}
	});

	it('n8n failing to read it (its database timing out) is said as that, not as the service, and nothing is sent', async () => {
		const reads = jest.spyOn(TestCredentialsHelper.prototype, 'getDecrypted').mockRejectedValue(new Error('timeout exceeded when trying to connect'));
		try {
			const result = await run(suite, sendFromItems(), { items: [{ chat: chatId, text: 'not sent' }], token: TOKEN });
			expect(result.error?.message).toBe('Could not read the Service Bot API credential: timeout exceeded when trying to connect');
			expect(result.error?.description).toContain('n8n\'s side, not the service');
			expect(emulator.callsTo('sendMessage')).toEqual([]);
		} finally {
			reads.mockRestore();
		}
	});
});

describe('a context that lives long (a poller) and its credential', () => {
	/** A context whose credential reads answer in turn: a credential, or n8n's database failing. */
	function contextReading(...answers: Array<string | Error>): { ctx: ServiceBotContext; reads: jest.Mock } {
		const reads = jest.fn(async () => {
			const answer = answers.shift();
			if (answer instanceof Error) throw answer;
			return { accessToken: answer ?? '', baseUrl: 'http://127.0.0.1:1' };
		});
		const ctx = { getNode: () => ({ name: 'Poller', credentials: { serviceBotApi: { id: 'poller-credential', name: 'Bot' } } }), getCredentials: reads } as unknown as ServiceBotContext;
		return { ctx, reads };
	}

	it('reads the credential once within 60 s and again after, so a token changed in the credential is used', async () => {
		const { ctx, reads } = contextReading('1:first-token', '1:second-token');
		const start = Date.now();
		const clock = jest.spyOn(Date, 'now').mockReturnValue(start);
		try {
			expect(await tokenOf(ctx)).toBe('1:first-token');
			clock.mockReturnValue(start + 59_000);
			expect(await tokenOf(ctx)).toBe('1:first-token');
			expect(reads).toHaveBeenCalledTimes(1);
			clock.mockReturnValue(start + 61_000);
			const { token, authentication } = await readCredentialOf(ctx);
			expect(token).toBe('1:second-token');
			expect(authentication.credentialsDecrypted?.data?.accessToken).toBe('1:second-token');
			expect(reads).toHaveBeenCalledTimes(2);
			expect(CREDENTIAL_MAX_AGE_MS).toBe(60_000);
		} finally {
			clock.mockRestore();
		}
	});

	it('a first read that failed (n8n\'s database timing out) is said as that and not kept: the next call reads again and gets the token', async () => {
		const { ctx, reads } = contextReading(new Error('timeout exceeded when trying to connect'), '1:the-token');
		const failed = await tokenOf(ctx).then(
			() => undefined,
			(error: unknown) => error,
		);
		expect(failed).toBeInstanceOf(NodeOperationError);
		expect((failed as Error).message).toBe('Could not read the Service Bot API credential: timeout exceeded when trying to connect');
		expect(await tokenOf(ctx)).toBe('1:the-token');
		expect(reads).toHaveBeenCalledTimes(2);
	});

	it('reading it again after 60 s fails: the context goes on with the credential it read, and reads again a minute later', async () => {
		const { ctx, reads } = contextReading('1:first-token', new Error('timeout exceeded when trying to connect'), '1:second-token');
		const start = Date.now();
		const clock = jest.spyOn(Date, 'now').mockReturnValue(start);
		try {
			expect(await tokenOf(ctx)).toBe('1:first-token');
			clock.mockReturnValue(start + 61_000);
			expect((await readCredentialOf(ctx)).token).toBe('1:first-token');
			clock.mockReturnValue(start + 62_000);
			expect(await tokenOf(ctx)).toBe('1:first-token');
			expect(reads).toHaveBeenCalledTimes(2);
			clock.mockReturnValue(start + 122_000);
			expect(await tokenOf(ctx)).toBe('1:second-token');
			expect(reads).toHaveBeenCalledTimes(3);
		} finally {
			clock.mockRestore();
		}
	});

	it('n8n\'s own error about the credential (none selected) passes as n8n wrote it', async () => {
		const own = new NodeOperationError({ name: 'Poller' } as never, 'Node "Poller" does not have any credentials set');
		const { ctx } = contextReading(own);
		await expect(tokenOf(ctx)).rejects.toBe(own);
	});

	it('reading the token again (after the service refused it) replaces what the context holds', async () => {
		const { ctx, reads } = contextReading('1:old-token', '1:new-token');
		expect(await tokenOf(ctx)).toBe('1:old-token');
		expect(await rereadToken(ctx)).toBe('1:new-token');
		expect(await tokenOf(ctx)).toBe('1:new-token');
		expect((await readCredentialOf(ctx)).authentication.credentialsDecrypted?.data?.accessToken).toBe('1:new-token');
		expect(reads).toHaveBeenCalledTimes(2);
	});
});
