/**
 * Stream AI Answers through n8n-core: the emulator pushes a user's message to the Service Bot Trigger
 * (a live webhook server on n8n-core's WebhookContext); n8n's response mode is evaluated from the
 * webhook description as n8n evaluates it; then the test writes the Agent's chunks on the push's
 * response exactly as n8n's WorkflowRunner does (`JSON.stringify(chunk) + '\n'`, `flush()`,
 * keep-alive lines, `end()` when the execution is finalized). What the chat got is read from the
 * emulator: one sendMessage at the first words, then edits, requests at least the interval apart
 * (shortened), a 429 waited out without losing text, and the final message exactly what Send Message
 * with Markdown From AI sends for the whole answer. With the option off nothing changes.
 */
import { ServiceBot } from '../../../../../nodes/ServiceBot/ServiceBot.node';
import { STREAM_TIMING } from '../../../../../nodes/shared/trigger/stream/pushStream';
import type { Emulator } from '../../../../emulator';
import { byId } from '../../../../harness/action-node';
import { credentialsFor, useEmulator, type Running } from '../../../../harness/emulator-suite';
import { executeNode } from '../../../../harness';
import type { WebhookReceipt } from '../../../../harness/trigger-harness';
import { liveTrigger, type LiveTrigger } from '../../../../harness/trigger-nodes';

let emu: Emulator;
const live: Running[] = [];
useEmulator({ running: live, started: (started) => (emu = started) });

const INTERVAL_MS = 200;

beforeEach(() => {
	jest.replaceProperty(STREAM_TIMING, 'intervalMs', INTERVAL_MS);
});

async function streamingTrigger(options: Record<string, boolean | string>): Promise<LiveTrigger> {
	const trigger = await liveTrigger(emu, { parameters: { updates: ['message'], options } });
	live.push(trigger);
	return trigger;
}

/** The push of a user's message, once the trigger has taken it. */
async function pushOf(trigger: LiveTrigger, text: string): Promise<WebhookReceipt> {
	await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text });
	await emu.idle();
	const receipt = trigger.server.receipts.at(-1);
	if (!receipt) throw new Error('the trigger got no push');
	return receipt;
}

const pause = async (ms: number): Promise<void> => await new Promise((resolve) => setTimeout(resolve, ms));

/** n8n's WorkflowRunner, for one Agent item: begin, each delta as an item chunk, end; a keep-alive line between. */
async function writeAnswer(receipt: WebhookReceipt, deltas: string[], gapMs: number, { itemIndex = 0, end = true } = {}): Promise<void> {
	const res = receipt.response as unknown as { write(line: string): boolean; flush(): void; end(): void };
	const metadata = { nodeId: 'agent-node-id', nodeName: 'AI Agent', itemIndex, runIndex: 0, timestamp: Date.now() };
	const write = (chunk: object): void => {
		res.write(`${JSON.stringify(chunk)}\n`);
		res.flush();
	};
	write({ type: 'begin', metadata });
	for (const [index, content] of deltas.entries()) {
		write({ type: 'item', content, metadata });
		if (index === 2) res.write('{"type":"keepalive"}\n');
		await pause(gapMs);
	}
	write({ type: 'end', metadata });
	if (end) res.end();
}

/** The bot's messages in the private chat, as the emulator keeps them (text as sent). */
function botMessages(): string[] {
	return emu
		.history(emu.demo.privateChatId)
		.filter((message) => message.sent_by_bot)
		.map((message) => message.text ?? '');
}

/** Waits until the chat shows `count` bot messages and the last of `texts` (the final edit). */
async function until(check: () => boolean): Promise<void> {
	for (let tries = 0; !check(); tries++) {
		if (tries > 300) throw new Error(`the chat never showed the answer: ${JSON.stringify(botMessages())}`);
		await pause(10);
	}
}

/** The bot's calls in the private chat, with when they arrived. */
function chatCalls(): Array<{ method: string; at: number; status: number; text: string }> {
	return emu.calls
		.filter((call) => call.body.chat_id === emu.demo.privateChatId && ['sendMessage', 'editMessageText', 'deleteMessage'].includes(call.method))
		.map((call) => ({ method: call.method, at: call.at, status: call.status, text: String(call.body.text ?? '') }));
}

const ANSWER = ['## Your plan\n\n', 'The **Pro', '** plan costs *12 €* a month', ' — `yes` & <no>.\n\n', '| Plan | Price |\n', '|---|---:|\n', '| Pro | 12 |\n\n', 'Reply [here](https://example.com/a?x=1&y=2).'];
/** The whole answer as the service's HTML (spec: parse_mode HTML; tables as monospaced columns, as Markdown From AI writes them). */
const ANSWER_HTML = [
	'<b>Your plan</b>',
	'',
	'The <b>Pro</b> plan costs <i>12 €</i> a month — <code>yes</code> &amp; &lt;no&gt;.',
	'',
	'<pre>Plan | Price',
	'-----+------',
	'Pro  | 12</pre>',
	'',
	'Reply <a href="https://example.com/a?x=1&amp;y=2">here</a>.',
].join('\n');

test('the option makes n8n stream to the push: answered at once, then the answer is posted at its first words and edited as it grows, at most one request per interval, ending as the whole answer', async () => {
	const trigger = await streamingTrigger({ streamAnswers: true });
	const receipt = await pushOf(trigger, 'what does Pro cost?');
	expect(receipt.responseMode).toBe('streaming');
	expect({ status: receipt.status, body: receipt.responseBody }).toEqual({ status: 200, body: { message: 'Workflow was started' } });
	expect(trigger.emitted()).toHaveLength(1);

	await writeAnswer(receipt, ANSWER, 60);
	await until(() => botMessages().at(-1) === ANSWER_HTML);
	await pause(INTERVAL_MS * 2);
	const calls = chatCalls();
	expect(calls[0].method).toBe('sendMessage');
	expect(calls.slice(1).every((call) => call.method === 'editMessageText')).toBe(true);
	expect(calls.length).toBeGreaterThan(2);
	expect(calls.every((call) => call.status === 200)).toBe(true);
	// The emulator records arrivals, which each request's own latency moves a little either way (under
	// load one arrived 141 ms after the one before, delayed on its way, the next then sooner): so the
	// rate is read over two gaps, at least 1.5 intervals (unlimited, the answer's 60 ms chunks would give
	// about 120 ms). The starts themselves are proven apart by the model test (answerStream.test.ts).
	const twoGaps = calls.slice(2).map((call, index) => call.at - calls[index].at);
	expect(twoGaps.filter((span) => span < INTERVAL_MS * 1.5)).toEqual([]);
	// Each edit shows more than the one before: the newest text, never an older one.
	const visible = calls.map((call) => call.text.replace(/<[^>]*>/g, '').length);
	expect(visible.slice(1).every((length, index) => length >= visible[index])).toBe(true);
	expect(botMessages()).toEqual([ANSWER_HTML]);
	expect(emu.history(emu.demo.privateChatId).filter((message) => message.sent_by_bot).map((message) => message.parse_mode)).toEqual(['HTML']);

	// Send Message with Markdown From AI, fed the Agent's whole output by an expression, sends the same.
	await executeNode({
		nodeType: new ServiceBot(),
		parameters: { resource: 'message', operation: 'sendMessage', chatId: byId(emu.demo.groupChatId), text: '={{ $json.output }}', additionalFields: { parseMode: 'markdownFromAi' }, options: { splitLongText: true } },
		items: [{ output: ANSWER.join('') }],
		credentials: credentialsFor(emu),
	});
	expect(emu.history(emu.demo.groupChatId).filter((message) => message.sent_by_bot).map((message) => message.text)).toEqual([ANSWER_HTML]);
});

test('a 429 during streaming is waited out as long as it says, and the next edit carries all text written meanwhile', async () => {
	const trigger = await streamingTrigger({ streamAnswers: true });
	const receipt = await pushOf(trigger, 'tell me');
	emu.injectFault({ kind: 'status', status: 429, retryAfter: 1, method: 'editMessageText', count: 1 });
	const words = Array.from({ length: 30 }, (_, index) => `word${index} `);
	await writeAnswer(receipt, words, 25);
	const whole = words.join('');
	await until(() => botMessages().at(-1) === whole);
	await pause(INTERVAL_MS * 2);
	const calls = chatCalls();
	const refused = calls.findIndex((call) => call.status === 429);
	expect(refused).toBeGreaterThan(0);
	// The service said one second: the next request comes no sooner.
	expect(calls[refused + 1].at - calls[refused].at).toBeGreaterThanOrEqual(1000);
	expect(calls.filter((call) => call.status !== 200)).toHaveLength(1);
	expect(botMessages()).toEqual([whole]);
});

test('two items of one execution stream into two messages; an error chunk leaves the text so far; the execution\'s end closes what is open', async () => {
	const trigger = await streamingTrigger({ streamAnswers: true });
	const receipt = await pushOf(trigger, 'two questions');
	const res = receipt.response as unknown as { write(line: string): boolean; end(): void };
	const metadata = (itemIndex: number): object => ({ nodeId: 'agent', nodeName: 'AI Agent', itemIndex, runIndex: 0, timestamp: 1 });
	res.write(`${JSON.stringify({ type: 'item', content: 'First answer', metadata: metadata(0) })}\n`);
	// Two chunks in one write, the second cut in the middle: n8n flushes lines, a proxy may not.
	const second = `${JSON.stringify({ type: 'item', content: 'Second ', metadata: metadata(1) })}\n${JSON.stringify({ type: 'item', content: 'answer, cut', metadata: metadata(1) })}\n`;
	res.write(second.slice(0, 70));
	res.write(second.slice(70));
	res.write(`${JSON.stringify({ type: 'error', content: 'model failed', metadata: metadata(1) })}\n`);
	res.write(`${JSON.stringify({ type: 'item', content: ' after the error', metadata: metadata(1) })}\n`);
	res.write(`${JSON.stringify({ type: 'item', content: ' and more', metadata: metadata(0) })}\n`);
	res.end();
	await until(() => botMessages().length === 2 && botMessages().includes('First answer and more'));
	await pause(INTERVAL_MS * 3);
	expect(botMessages().sort()).toEqual(['First answer and more', 'Second answer, cut']);
});

test('an answer longer than a message goes on in a new one: the messages are what Split Long Text sends', async () => {
	const trigger = await streamingTrigger({ streamAnswers: true });
	const receipt = await pushOf(trigger, 'write a lot');
	// 40,000 characters in paragraphs: more than the spec's 32,768 a message.
	const paragraphs = Array.from({ length: 400 }, (_, index) => `Paragraph ${index}: ${'lorem ipsum '.repeat(7)}**done**.\n\n`);
	await writeAnswer(receipt, [paragraphs.slice(0, 200).join(''), paragraphs.slice(200).join('')], 50);
	await executeNode({
		nodeType: new ServiceBot(),
		parameters: { resource: 'message', operation: 'sendMessage', chatId: byId(emu.demo.groupChatId), text: '={{ $json.output }}', additionalFields: { parseMode: 'markdownFromAi' }, options: { splitLongText: true } },
		items: [{ output: paragraphs.join('') }],
		credentials: credentialsFor(emu),
	});
	const expected = emu.history(emu.demo.groupChatId).filter((message) => message.sent_by_bot).map((message) => message.text);
	expect(expected.length).toBe(2);
	await until(() => JSON.stringify(botMessages()) === JSON.stringify(expected));
	expect(chatCalls().filter((call) => call.method === 'sendMessage')).toHaveLength(2);
});

test('with the option off the webhook answers as before (n8n answers, responseMode onReceived with Confirm Delivery When the Run Starts) and nothing takes the response', async () => {
	const trigger = await streamingTrigger({ confirmDelivery: 'whenStarted' });
	const receipt = await pushOf(trigger, 'hello');
	expect(receipt.responseMode).toBe('onReceived');
	expect({ status: receipt.status, body: receipt.responseBody }).toEqual({ status: 200, body: { message: 'Workflow was started' } });
	expect(Object.prototype.hasOwnProperty.call(receipt.response ?? {}, 'write')).toBe(false);
	expect(trigger.emitted()).toHaveLength(1);
	expect(chatCalls()).toEqual([]);
});

test('with Show Typing, "typing…" is renewed while the streaming execution runs and stops when the answer is posted', async () => {
	const { TYPING_TIMING } = await import('../../../../../nodes/shared/trigger/typing');
	jest.replaceProperty(TYPING_TIMING, 'renewEveryMs', 40);
	const trigger = await streamingTrigger({ streamAnswers: true, showTyping: true });
	const receipt = await pushOf(trigger, 'think hard');
	await pause(200);
	const typingBefore = emu.chatActions().length;
	expect(typingBefore).toBeGreaterThan(2);
	await writeAnswer(receipt, ['Done.'], 0, { end: false });
	await until(() => botMessages().length === 1);
	await pause(200);
	const typingAfterPost = emu.chatActions().length;
	await pause(200);
	expect(emu.chatActions().length).toBe(typingAfterPost);
	(receipt.response as unknown as { end(): void }).end();
});
