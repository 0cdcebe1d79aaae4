/**
 * The stand-in model (test/real-n8n/chat-model.ts) read by the clients n8n reads it with: OpenAI's
 * official `openai` client (its wire shapes: Responses, Chat Completions, transcriptions, each event
 * type of a stream), and LangChain's ChatOpenAI (`@langchain/openai` 1.4.4, the version n8n 2.41.1's
 * OpenAI Chat Model runs, with `useResponsesApi` as version 1.3 sets it at its default). What the
 * answers say is the script written in the stand-in's header, written out here.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import OpenAI, { toFile } from 'openai';

import { parsePace, startChatModel, type ChatModel } from './chat-model';

const PLANS = ['## Our plans', '', '| Plan | Price |', '|---|---:|', '| **Pro** | 12 € |', '| Basic | 5 € |', '', 'Reply `pro` & we switch you.'].join('\n');
/** A tool as n8n hands the agent's tools to the model: a JSON schema of its arguments. */
const NOTE_TOOL = { name: 'send_note', description: 'Sends the customer a note', parameters: { type: 'object', properties: { chat_id: { type: 'string' }, text: { type: 'string' } }, required: ['chat_id', 'text'] } };
const CHAT = '0f8e2a6c-5b1d-4c3e-9a7f-2d4b6e8c1a3f';
/** A JPEG's first bytes and some more: the stand-in answers with its MIME type and size. */
const PHOTO = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(996, 7)]);
const PHOTO_URL = `data:image/jpeg;base64,${PHOTO.toString('base64')}`;

let model: ChatModel;
let client: OpenAI;

beforeEach(async () => {
	model = await startChatModel();
	client = new OpenAI({ apiKey: 'stand-in', baseURL: model.baseUrl, maxRetries: 0 });
});
afterEach(async () => await model.close());

describe('the Responses API (POST /v1/responses), as the openai client reads it', () => {
	it('answers a message as a completed response with one output_text message and its usage', async () => {
		const response = await client.responses.create({ model: 'gpt-5-mini', input: [{ role: 'user', content: 'hello there' }] });
		expect(response.object).toBe('response');
		expect(response.status).toBe('completed');
		expect(response.id).toMatch(/^resp_/);
		expect(response.output_text).toBe('You said: hello there');
		expect(response.output).toEqual([
			{ id: expect.stringMatching(/^msg_/), type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'You said: hello there', annotations: [], logprobs: [] }] },
		]);
		expect(response.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number), total_tokens: expect.any(Number) });
		expect(model.requests.map((request) => request.api)).toEqual(['responses']);
	});

	it('streams the Responses events in order, the deltas adding up to the text of output_text.done and response.completed', async () => {
		const stream = await client.responses.create({ model: 'gpt-5-mini', instructions: 'Be brief.', input: 'Which plans do you have?', stream: true });
		const events = [];
		for await (const event of stream) events.push(event);
		const types = events.map((event) => event.type);
		const deltas = types.filter((type) => type === 'response.output_text.delta').length;
		expect(deltas).toBeGreaterThan(10);
		expect(types).toEqual([
			'response.created',
			'response.in_progress',
			'response.output_item.added',
			'response.content_part.added',
			...Array<string>(deltas).fill('response.output_text.delta'),
			'response.output_text.done',
			'response.content_part.done',
			'response.output_item.done',
			'response.completed',
		]);
		expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
		const text = events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : [])).join('');
		expect(text).toBe(PLANS);
		const done = events.find((event) => event.type === 'response.output_text.done');
		expect(done?.type === 'response.output_text.done' && done.text).toBe(PLANS);
		const completed = events.at(-1);
		expect(completed?.type === 'response.completed' && completed.response.output).toEqual([expect.objectContaining({ type: 'message', content: [expect.objectContaining({ type: 'output_text', text: PLANS })] })]);
		// The pieces end where tokens would: Markdown arrives half-written (a table row's bar, bold's stars on their own).
		const pieces = events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : []));
		expect(pieces).toContain(' |');
		expect(pieces).toContain('*');
		expect(model.requests[0].messages).toEqual([
			{ role: 'system', content: 'Be brief.' },
			{ role: 'user', content: 'Which plans do you have?' },
		]);
	});

	it('calls the function tool offered when asked for a note: a function_call item with its call id and JSON arguments', async () => {
		const response = await client.responses.create({
			model: 'gpt-5-mini',
			input: [
				{ role: 'developer', content: `You talk with chat ${CHAT}.` },
				{ role: 'user', content: [{ type: 'input_text', text: 'Please send me a note' }] },
			],
			tools: [{ type: 'function', strict: false, ...NOTE_TOOL }],
		});
		expect(response.output).toEqual([
			{ id: expect.stringMatching(/^fc_/), type: 'function_call', status: 'completed', call_id: expect.stringMatching(/^call_/), name: 'send_note', arguments: expect.any(String) },
		]);
		const call = response.output[0];
		expect(call.type === 'function_call' && JSON.parse(call.arguments)).toEqual({ chat_id: CHAT, text: 'A note from the agent' });
	});

	it("streams a function call as the item added with empty arguments, the arguments' delta and done, then the completed response", async () => {
		const stream = await client.responses.create({ model: 'gpt-5-mini', input: 'note please', tools: [{ type: 'function', strict: false, ...NOTE_TOOL }], stream: true });
		const events = [];
		for await (const event of stream) events.push(event);
		expect(events.map((event) => event.type)).toEqual([
			'response.created',
			'response.in_progress',
			'response.output_item.added',
			'response.function_call_arguments.delta',
			'response.function_call_arguments.done',
			'response.output_item.done',
			'response.completed',
		]);
		const added = events[2];
		expect(added.type === 'response.output_item.added' && added.item).toMatchObject({ type: 'function_call', name: 'send_note', arguments: '' });
		const delta = events[3];
		expect(delta.type === 'response.function_call_arguments.delta' && JSON.parse(delta.delta)).toEqual({ chat_id: '', text: 'A note from the agent' });
	});

	it('reads a function_call_output as the tool having run, and answers that the note was sent', async () => {
		const response = await client.responses.create({
			model: 'gpt-5-mini',
			input: [
				{ role: 'user', content: 'Please send me a note' },
				{ type: 'function_call', call_id: 'call_1', name: 'send_note', arguments: '{}' },
				{ type: 'function_call_output', call_id: 'call_1', output: '{"ok":true}' },
			],
		});
		expect(response.output_text).toBe('I sent the note to the chat.');
	});

	it('answers a photo and the text of the same turn together (the caption, a text sent with it)', async () => {
		const response = await client.responses.create({
			model: 'gpt-5-mini',
			input: [
				{ role: 'user', content: 'What is this?\nand the price please' },
				{ role: 'user', content: [{ type: 'input_image', image_url: PHOTO_URL, detail: 'auto' }] },
			],
		});
		expect(response.output_text).toBe(`I see a picture (image/jpeg, 1000 bytes). ${PLANS}`);
	});
});

describe('Chat Completions (POST /v1/chat/completions), as the openai client reads it', () => {
	it('answers a chat.completion with the assistant message, stop, and usage', async () => {
		const completion = await client.chat.completions.create({ model: 'stand-in', messages: [{ role: 'user', content: 'hi' }] });
		expect(completion.object).toBe('chat.completion');
		expect(completion.choices).toEqual([{ index: 0, message: { role: 'assistant', content: 'You said: hi', refusal: null }, logprobs: null, finish_reason: 'stop' }]);
		expect(completion.usage?.total_tokens).toBeGreaterThan(0);
	});

	it('streams chunks whose content deltas add up to the answer, then stop, the usage chunk when asked and [DONE]', async () => {
		const stream = await client.chat.completions.create({ model: 'stand-in', messages: [{ role: 'user', content: 'Which plans do you have?' }], stream: true, stream_options: { include_usage: true } });
		const chunks = [];
		for await (const chunk of stream) chunks.push(chunk);
		expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
		expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(PLANS);
		expect(chunks.length).toBeGreaterThan(10);
		expect(chunks.at(-2)?.choices[0].finish_reason).toBe('stop');
		expect(chunks.at(-1)?.choices).toEqual([]);
		expect(chunks.at(-1)?.usage?.completion_tokens).toBeGreaterThan(10);
	});

	it('answers a photo and the text of the same turn together (n8n sends the images as a user message after the text)', async () => {
		const completion = await client.chat.completions.create({
			model: 'stand-in',
			messages: [
				{ role: 'system', content: 'You are a bot.' },
				{ role: 'user', content: 'one' },
				{ role: 'assistant', content: 'You said: one' },
				{ role: 'user', content: 'What is this?\nA text within 2 s' },
				{ role: 'user', content: [{ type: 'image_url', image_url: { url: PHOTO_URL } }] },
			],
		});
		expect(completion.choices[0].message.content).toBe('I see a picture (image/jpeg, 1000 bytes). You said: What is this? | A text within 2 s');
	});
});

describe('transcriptions (POST /v1/audio/transcriptions)', () => {
	const voice = Buffer.concat([Buffer.from('OggS'), Buffer.alloc(900, 5)]);

	it('answers {text} with the scripted transcription of the file the openai client uploads', async () => {
		const transcription = await client.audio.transcriptions.create({ file: await toFile(voice, 'voice.ogg', { type: 'audio/ogg' }), model: 'whisper-1' });
		expect(transcription).toEqual({ text: 'transcribed: 904 bytes of audio/ogg' });
		expect(model.transcriptions).toEqual([{ model: 'whisper-1', field: 'file', fileName: 'voice.ogg', mimeType: 'audio/ogg', bytes: 904, fields: { model: 'whisper-1' } }]);
	});

	it("takes the audio in another field too (n8n's binary property name), and answers plain text for response_format text", async () => {
		const form = new FormData();
		form.append('model', 'whisper-1');
		form.append('response_format', 'text');
		form.append('data', new Blob([voice], { type: 'audio/ogg' }), 'voice.oga');
		const response = await fetch(`${model.baseUrl}/audio/transcriptions`, { method: 'POST', body: form });
		expect(response.status).toBe(200);
		expect(await response.text()).toBe('transcribed: 904 bytes of audio/ogg\n');
		expect(model.transcriptions[0]).toMatchObject({ field: 'data', fileName: 'voice.oga' });
	});

	it('refuses a request without a file with 400 and an invalid_request_error naming the file field', async () => {
		const form = new FormData();
		form.append('model', 'whisper-1');
		const response = await fetch(`${model.baseUrl}/audio/transcriptions`, { method: 'POST', body: form });
		expect(response.status).toBe(400);
		expect(await response.json()).toMatchObject({ error: { type: 'invalid_request_error', param: 'file' } });
	});
});

describe("LangChain's ChatOpenAI 1.4.4 (n8n 2.41.1's OpenAI Chat Model 1.3: Use Responses API on)", () => {
	const chatModel = (streaming: boolean): ChatOpenAI => new ChatOpenAI({ apiKey: 'stand-in', model: 'gpt-5-mini', useResponsesApi: true, streaming, maxRetries: 0, configuration: { baseURL: model.baseUrl } });

	it.each([false, true])('gets the answer text (streaming %s) from /v1/responses', async (streaming) => {
		const answer = await chatModel(streaming).invoke([new SystemMessage('You are a bot.'), new HumanMessage('Which plans do you have?')]);
		expect(answer.text).toBe(PLANS);
		expect(model.requests.map((request) => [request.api, request.stream])).toEqual([['responses', streaming]]);
		// gpt-5-mini is a reasoning model: LangChain sends the system message as `developer`.
		expect((model.requests[0].body.input as Array<{ role: string }>)[0].role).toBe('developer');
	});

	it.each([false, true])('gets a tool call with parsed arguments (streaming %s), and the final answer after the tool message', async (streaming) => {
		const withTools = chatModel(streaming).bindTools([{ type: 'function', function: NOTE_TOOL }]);
		const history = [new SystemMessage(`The chat is ${CHAT}.`), new HumanMessage('Please send me a note')];
		const call = await withTools.invoke(history);
		expect(call.tool_calls).toEqual([expect.objectContaining({ name: 'send_note', args: { chat_id: CHAT, text: 'A note from the agent' }, id: expect.stringMatching(/^call_/) })]);
		const final = await withTools.invoke([...history, new AIMessage({ content: '', tool_calls: call.tool_calls, response_metadata: call.response_metadata, additional_kwargs: call.additional_kwargs }), new ToolMessage({ content: 'sent', tool_call_id: String(call.tool_calls?.[0].id) })]);
		expect(final.text).toBe('I sent the note to the chat.');
	});

	it("answers the agent's image message and the text before it together", async () => {
		const answer = await chatModel(false).invoke([new HumanMessage('What is this?'), new HumanMessage({ content: [{ type: 'image_url', image_url: { url: PHOTO_URL } }] })]);
		expect(answer.text).toBe('I see a picture (image/jpeg, 1000 bytes). You said: What is this?');
	});
});

describe('pace: long answers at a set rate', () => {
	it('streams an answer of the given length in token-sized pieces, no sooner than the rate allows, the same text in both APIs', async () => {
		await model.close();
		// 120 tokens at 300 per second: 0.4 s at least from the first piece to the last.
		model = await startChatModel({ pace: { tokens: 120, tokensPerSecond: 300 } });
		client = new OpenAI({ apiKey: 'stand-in', baseURL: model.baseUrl, maxRetries: 0 });
		const arrivals: number[] = [];
		const pieces: string[] = [];
		const stream = await client.responses.create({ model: 'gpt-5-mini', input: 'hello', stream: true });
		for await (const event of stream) {
			if (event.type !== 'response.output_text.delta') continue;
			arrivals.push(Date.now());
			pieces.push(event.delta);
		}
		expect(pieces.join('').startsWith('You said: hello\n\n## Part 1\n\nHere is **point 1**')).toBe(true);
		// A busy machine may send what is due together; the pieces are the tokens either way.
		expect(pieces.length).toBeLessThanOrEqual(120);
		expect(pieces.length).toBeGreaterThan(40);
		expect(arrivals.at(-1)! - arrivals[0]).toBeGreaterThanOrEqual(350);

		const chunks = await client.chat.completions.create({ model: 'stand-in', messages: [{ role: 'user', content: 'hello' }], stream: true });
		const texts: string[] = [];
		for await (const chunk of chunks) texts.push(chunk.choices[0]?.delta.content ?? '');
		expect(texts.join('')).toBe(pieces.join(''));
	});

	it('answers an unstreamed request with the same long answer, whole, after the time its tokens take', async () => {
		await model.close();
		model = await startChatModel({ pace: { tokens: 80, tokensPerSecond: 200 } });
		client = new OpenAI({ apiKey: 'stand-in', baseURL: model.baseUrl, maxRetries: 0 });
		const started = Date.now();
		const response = await client.responses.create({ model: 'gpt-5-mini', input: 'hello' });
		expect(Date.now() - started).toBeGreaterThanOrEqual(380);
		expect(response.output_text.startsWith('You said: hello\n\n## Part 1')).toBe(true);
		expect(response.usage?.output_tokens).toBe(80);
	});

	it("reads npm run dev's pace as <tokens>@<tokens per second>, and refuses anything else naming the form", () => {
		expect(parsePace('800@40')).toEqual({ tokens: 800, tokensPerSecond: 40 });
		expect(parsePace(' 100 @ 2.5 ')).toEqual({ tokens: 100, tokensPerSecond: 2.5 });
		for (const bad of ['800', '800@0', '0@40', 'fast']) expect(() => parsePace(bad)).toThrow('a pace is <tokens>@<tokens per second>, e.g. 800@40');
	});
});
