/**
 * A small local stand-in for OpenAI's model APIs (test-only), so n8n's own AI nodes run offline (the
 * OpenAI credential's Base URL points here). It speaks what n8n 2.41's nodes call:
 *
 * - `POST /v1/responses`, the Responses API (a fresh OpenAI Chat Model 1.3 calls it by default), as JSON
 *   or as server-sent events (`response.created` … `response.output_text.delta` … `response.completed`,
 *   function calls as `function_call` items with their argument deltas);
 * - `POST /v1/chat/completions` (OpenAI Chat Model 1.2, or 1.3 with *Use Responses API* off), as JSON or
 *   as `chat.completion.chunk` events;
 * - `POST /v1/audio/transcriptions` (the OpenAI node's *Transcribe a Recording*: multipart with the
 *   audio in `file`, model `whisper-1`): `{text}` with `transcriptionOf(<bytes>, <MIME type>)`;
 * - `GET /v1/models` (the model list of the editor).
 *
 * What it answers depends on the conversation (both APIs are read into one form, Chat Completions'
 * messages, which `requests` records). The turn is every user message since the model last spoke (n8n's
 * AI Agent sends a turn's images as a user message of its own after the text):
 *
 * - after a tool's result: "I sent the note to the chat.";
 * - a question about plans or prices: a Markdown answer with a heading, a table, bold and code;
 * - "what did I … before": the first user message of an earlier turn (so the memory shows);
 * - "note": a call of the first tool offered, its arguments from the tool's schema, nested objects
 *   too (a property named like a chat id gets the first UUID of the system message, any other
 *   string a note);
 * - anything else: "You said: <the turn's text>" (lines joined with " | ");
 * - with images in the turn: "I see a picture (<MIME type>, <bytes> bytes)." for each, from the image's
 *   data URL, then the answer to the turn's text if it has any (a photo's caption and a text sent with
 *   it are answered together).
 *
 * Streams are cut at token-like boundaries (a word's first letters, one punctuation mark: Markdown
 * arrives half-written). By default they go out at once; `pace` makes every text answer `tokens` long
 * (the scripted answer, then Markdown as models write it) and sends it at `tokensPerSecond`, streamed
 * or not (an unstreamed answer comes whole after the same time): issue 41's "800 tokens at ~40/s".
 *
 * One file: the script and the wire shapes of the routes that carry it are one stand-in, read together.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

import { parseMultipart, UploadedFile } from '../emulator/multipart';

export interface ChatMessage {
	role: string;
	content?: unknown;
	tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
	tool_call_id?: string;
}

export interface ChatTool {
	type: string;
	function: { name: string; description?: string; parameters?: Schema };
}

/** A request as the script reads it: Chat Completions' form, whichever API it came by. */
export interface ChatRequest {
	/** The API it came by: `chat.completions` or `responses`. */
	api: 'chat.completions' | 'responses';
	model?: string;
	messages: ChatMessage[];
	tools?: ChatTool[];
	stream?: boolean;
	/** The request's body as it arrived. */
	body: Record<string, unknown>;
}

/** A transcription request as it arrived. */
export interface TranscriptionRequest {
	model?: string;
	/** The multipart field that carried the audio. */
	field: string;
	fileName?: string;
	mimeType?: string;
	bytes: number;
	/** The text fields (model, language, response_format, …). */
	fields: Record<string, string>;
}

/** Long answers at a steady rate (issue 41's measurements). */
export interface Pace {
	/** Every text answer is made this many tokens long (the scripted answer first; one already longer stays whole). */
	tokens: number;
	/** The rate they are sent at, streamed or not. */
	tokensPerSecond: number;
}

export interface ChatModelOptions {
	port?: number;
	pace?: Pace;
}

export interface ChatModel {
	/** For the OpenAI credential's Base URL: `http://127.0.0.1:<port>/v1`. */
	readonly baseUrl: string;
	/** Every chat request (Responses and Chat Completions), in arrival order. */
	readonly requests: ChatRequest[];
	/** Every transcription request, in arrival order. */
	readonly transcriptions: TranscriptionRequest[];
	close(): Promise<void>;
}

/** The Markdown the stand-in answers about plans: what models write, tables and all. */
export const PLANS_ANSWER = ['## Our plans', '', '| Plan | Price |', '|---|---:|', '| **Pro** | 12 € |', '| Basic | 5 € |', '', 'Reply `pro` & we switch you.'].join('\n');

export const TOOL_DONE_ANSWER = 'I sent the note to the chat.';
export const NOTE_TEXT = 'A note from the agent';

/** What the stand-in answers to a picture: proof that the agent passed the image itself, not a description. */
export const pictureAnswer = (image: string): string => `I see a picture (${image}).`;

/** The stand-in's transcription of an audio file: what it is, so a test can predict it. */
export const transcriptionOf = (bytes: number, mimeType: string): string => `transcribed: ${bytes} bytes of ${mimeType}`;

/** The text of a message's content (a string, or a list of parts). */
export function textOf(content: unknown): string {
	if (typeof content === 'string') return content;
	if (Array.isArray(content)) return content.map((part) => (typeof part === 'object' && part !== null && 'text' in part ? String((part as { text: unknown }).text) : '')).join('');
	return '';
}

/** The images of a message's content (`image_url` parts), as `<MIME type>, <bytes> bytes` from their data URLs. */
export function imagesOf(content: unknown): string[] {
	if (!Array.isArray(content)) return [];
	return content.flatMap((part: unknown) => {
		const url = typeof part === 'object' && part !== null && 'image_url' in part ? (part as { image_url?: { url?: unknown } }).image_url?.url : undefined;
		if (typeof url !== 'string') return [];
		const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
		return [match ? `${match[1]}, ${Buffer.from(match[2], 'base64').length} bytes` : 'an image by URL'];
	});
}

/**
 * A text cut where a model's tokens would end: a space with up to four letters or digits after it, one
 * other mark (with its space), or one whitespace character. Joined, the pieces are the text.
 */
export function tokensOf(text: string): string[] {
	return text.match(/[ \t]?[\p{L}\p{N}]{1,4}|[ \t]?[^\s\p{L}\p{N}]|\s/gsu) ?? [];
}

/** `<tokens>@<tokens per second>` (e.g. `800@40`), as `npm run dev` takes it. */
export function parsePace(text: string): Pace {
	const match = /^\s*(\d+)\s*@\s*(\d+(?:\.\d+)?)\s*$/.exec(text);
	const pace = match ? { tokens: Number(match[1]), tokensPerSecond: Number(match[2]) } : undefined;
	if (!pace || pace.tokens < 1 || pace.tokensPerSecond <= 0) throw new Error(`a pace is <tokens>@<tokens per second>, e.g. 800@40 (20 s), not ${JSON.stringify(text)}`);
	return pace;
}

const LONG_PARTS = [
	(part: number) => `\n\n## Part ${part}\n\nHere is **point ${part}**: the answer goes on, with \`code ${part}\` and [a link](https://example.com/${part}).`,
	(part: number) => `\n\n- the first item of part ${part}\n- a second one with *emphasis*\n- and a third, _done_`,
	(part: number) => `\n\n\`\`\`js\nconst part = ${part};\nconsole.log(part * 2);\n\`\`\``,
	(part: number) => `\n\n> A quote in part ${part}, **bold** and *slanted*.`,
];
/** Words of at most four letters: one token each, so the count comes out exact. */
const FILLER = ' so the long text ends here with a few more of them and'.match(/ \w+/g) ?? [];

/** `answer` made `tokens` long: Markdown parts as models write them while one fits, then small words to the exact count. */
export function longAnswer(answer: string, tokens: number): string {
	let text = answer;
	for (let part = 1; ; part++) {
		const fitting = LONG_PARTS.map((_, offset) => text + LONG_PARTS[(part - 1 + offset) % LONG_PARTS.length](part)).find((next) => tokensOf(next).length <= tokens);
		if (fitting === undefined) break;
		text = fitting;
	}
	if (tokens - tokensOf(text).length > 2) text += '\n\n';
	for (let word = 0; tokensOf(text).length < tokens; word++) text += text.endsWith('\n') ? FILLER[word % FILLER.length].trimStart() : FILLER[word % FILLER.length];
	return text;
}

interface Schema {
	type?: string;
	properties?: Record<string, Schema>;
}

type Reply = { content: string } | { toolCall: { name: string; arguments: string } };

/** Arguments for a tool's JSON schema, nested objects too (n8n's human review wraps the tool's own). */
function argumentsFor(schema: Schema | undefined, chat: string): Record<string, unknown> {
	return Object.fromEntries(
		Object.entries(schema?.properties ?? {}).map(([name, property]) => [
			name,
			property.type === 'object' ? argumentsFor(property, chat) : /chat/i.test(name) ? chat : property.type === 'number' ? 1 : NOTE_TEXT,
		]),
	);
}

function reply(request: ChatRequest): Reply {
	const messages = request.messages;
	if (messages.at(-1)?.role === 'tool') return { content: TOOL_DONE_ANSWER };
	let start = messages.length;
	while (start > 0 && messages[start - 1].role === 'user') start--;
	const turn = messages.slice(start);
	const pictures = turn.flatMap((message) => imagesOf(message.content)).map(pictureAnswer);
	const said = turn.map((message) => textOf(message.content)).filter((text) => text !== '').join('\n');
	const earlier = messages.slice(0, start).filter((message) => message.role === 'user').map((message) => textOf(message.content)).filter((text) => text !== '');
	const answer = (text: string): Reply => ({ content: [...pictures, text].join(' ') });
	if (said === '' && pictures.length > 0) return { content: pictures.join(' ') };
	const lower = said.toLowerCase();
	if (/plan|price/.test(lower)) return answer(PLANS_ANSWER);
	if (/before|earlier/.test(lower)) return answer(earlier.length > 0 ? `Earlier you wrote: ${earlier[0]}` : 'You wrote nothing before.');
	const tool = request.tools?.[0]?.function;
	if (/note/.test(lower) && tool && pictures.length === 0) {
		const system = messages.filter((message) => message.role === 'system').map((message) => textOf(message.content)).join('\n');
		const chat = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i.exec(system)?.[0] ?? '';
		return { toolCall: { name: tool.name, arguments: JSON.stringify(argumentsFor(tool.parameters, chat)) } };
	}
	return answer(`You said: ${said.split('\n').join(' | ')}`);
}

// ---- Reading the two APIs into one form -------------------------------------------------------------

/** A Responses API content part in Chat Completions' form (`input_text`/`output_text` → text, `input_image` → image_url). */
function partOf(part: unknown): unknown {
	if (typeof part !== 'object' || part === null) return part;
	const { type, text, image_url: imageUrl } = part as { type?: string; text?: unknown; image_url?: unknown };
	if (type === 'input_text' || type === 'output_text') return { type: 'text', text };
	if (type === 'input_image') return { type: 'image_url', image_url: { url: typeof imageUrl === 'string' ? imageUrl : 'an image by file id' } };
	return part;
}

/** A Responses API request (its `instructions`, `input` items and function tools) as Chat Completions messages and tools. */
export function fromResponses(body: Record<string, unknown>): ChatRequest {
	const messages: ChatMessage[] = [];
	if (typeof body.instructions === 'string') messages.push({ role: 'system', content: body.instructions });
	const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : Array.isArray(body.input) ? (body.input as Array<Record<string, unknown>>) : [];
	for (const item of input) {
		if (item.type === 'function_call') {
			const call = { id: String(item.call_id), type: 'function', function: { name: String(item.name), arguments: String(item.arguments) } };
			const previous = messages.at(-1);
			if (previous?.role === 'assistant' && previous.tool_calls) previous.tool_calls.push(call);
			else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
		} else if (item.type === 'function_call_output') {
			messages.push({ role: 'tool', tool_call_id: String(item.call_id), content: Array.isArray(item.output) ? item.output.map(partOf) : item.output });
		} else if ((item.type === undefined || item.type === 'message') && typeof item.role === 'string') {
			// Reasoning models get the system message as `developer`.
			const role = item.role === 'developer' ? 'system' : item.role;
			messages.push({ role, content: Array.isArray(item.content) ? item.content.map(partOf) : item.content });
		}
	}
	const tools = ((body.tools ?? []) as Array<{ type?: string; name?: string; description?: string; parameters?: Schema }>)
		.filter((tool) => tool.type === 'function' && typeof tool.name === 'string')
		.map((tool) => ({ type: 'function', function: { name: String(tool.name), description: tool.description, parameters: tool.parameters } }));
	return { api: 'responses', model: body.model as string | undefined, messages, tools, stream: body.stream === true, body };
}

function fromChatCompletions(body: Record<string, unknown>): ChatRequest {
	return { api: 'chat.completions', model: body.model as string | undefined, messages: (body.messages ?? []) as ChatMessage[], tools: body.tools as ChatTool[] | undefined, stream: body.stream === true, body };
}

// ---- Writing answers --------------------------------------------------------------------------------

const id = (prefix: string): string => `${prefix}${randomBytes(12).toString('hex')}`;
const now = (): number => Math.floor(Date.now() / 1000);

/** The request's text, counted as tokens (usage only). */
const inputTokens = (request: ChatRequest): number => request.messages.reduce((sum, message) => sum + tokensOf(textOf(message.content)).length, 0);

/** The pieces of a text answer as they are sent: one token at a time, at the pace's rate when there is one. */
async function* pieces(text: string, pace: Pace | undefined, gone: () => boolean): AsyncGenerator<string> {
	const tokens = tokensOf(text);
	const start = Date.now();
	let sent = 0;
	while (sent < tokens.length && !gone()) {
		// A late timer sends what is due at once, so the rate holds on a busy machine.
		const due = pace ? Math.max(sent + 1, Math.floor(((Date.now() - start) / 1000) * pace.tokensPerSecond) + 1) : sent + 1;
		const next = Math.min(tokens.length, due);
		yield tokens.slice(sent, next).join('');
		sent = next;
		if (pace && sent < tokens.length) await delay(Math.max(0, start + (sent / pace.tokensPerSecond) * 1000 - Date.now()));
	}
}

function openStream(response: ServerResponse): { gone: () => boolean } {
	let closed = false;
	response.on('close', () => {
		closed = true;
	});
	response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
	return { gone: () => closed };
}

function chatCompletion(request: ChatRequest, answer: Reply, outputTokens: number): Record<string, unknown> {
	const message =
		'content' in answer
			? { role: 'assistant', content: answer.content, refusal: null }
			: { role: 'assistant', content: null, tool_calls: [{ id: id('call_'), type: 'function', function: answer.toolCall }] };
	const prompt = inputTokens(request);
	return {
		id: id('chatcmpl-'),
		object: 'chat.completion',
		created: now(),
		model: request.model ?? 'stand-in',
		choices: [{ index: 0, message, logprobs: null, finish_reason: 'content' in answer ? 'stop' : 'tool_calls' }],
		usage: { prompt_tokens: prompt, completion_tokens: outputTokens, total_tokens: prompt + outputTokens },
	};
}

async function streamChatCompletion(response: ServerResponse, request: ChatRequest, answer: Reply, pace: Pace | undefined): Promise<void> {
	const { gone } = openStream(response);
	const base = { id: id('chatcmpl-'), object: 'chat.completion.chunk', created: now(), model: request.model ?? 'stand-in' };
	const send = (choice: Record<string, unknown>): void => {
		response.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, logprobs: null, ...choice }] })}\n\n`);
	};
	let outputTokens = 1;
	if ('content' in answer) {
		send({ delta: { role: 'assistant', content: '' }, finish_reason: null });
		for await (const piece of pieces(answer.content, pace, gone)) send({ delta: { content: piece }, finish_reason: null });
		outputTokens = tokensOf(answer.content).length;
		send({ delta: {}, finish_reason: 'stop' });
	} else {
		send({ delta: { role: 'assistant', content: null, tool_calls: [{ index: 0, id: id('call_'), type: 'function', function: answer.toolCall }] }, finish_reason: null });
		send({ delta: {}, finish_reason: 'tool_calls' });
	}
	const options = request.body.stream_options as { include_usage?: boolean } | undefined;
	if (options?.include_usage === true) {
		const prompt = inputTokens(request);
		response.write(`data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: prompt, completion_tokens: outputTokens, total_tokens: prompt + outputTokens } })}\n\n`);
	}
	response.end('data: [DONE]\n\n');
}

type OutputItem = Record<string, unknown>;

/** A Responses API response object (`status` and `output` as given; the rest as OpenAI sends it). */
function responseObject(request: ChatRequest, responseId: string, createdAt: number, status: string, output: OutputItem[], outputTokens?: number): Record<string, unknown> {
	const prompt = inputTokens(request);
	const body = request.body;
	return {
		id: responseId,
		object: 'response',
		created_at: createdAt,
		status,
		error: null,
		incomplete_details: null,
		instructions: body.instructions ?? null,
		max_output_tokens: body.max_output_tokens ?? null,
		model: request.model ?? 'stand-in',
		output,
		parallel_tool_calls: body.parallel_tool_calls ?? true,
		previous_response_id: body.previous_response_id ?? null,
		reasoning: { effort: null, summary: null },
		store: body.store ?? true,
		temperature: body.temperature ?? 1,
		text: body.text ?? { format: { type: 'text' } },
		tool_choice: body.tool_choice ?? 'auto',
		tools: body.tools ?? [],
		top_p: body.top_p ?? 1,
		truncation: 'disabled',
		usage:
			outputTokens === undefined
				? null
				: {
						input_tokens: prompt,
						input_tokens_details: { cached_tokens: 0 },
						output_tokens: outputTokens,
						output_tokens_details: { reasoning_tokens: 0 },
						total_tokens: prompt + outputTokens,
					},
		user: null,
		metadata: {},
	};
}

const messageItem = (itemId: string, status: string, text?: string): OutputItem => ({
	id: itemId,
	type: 'message',
	status,
	role: 'assistant',
	content: text === undefined ? [] : [{ type: 'output_text', text, annotations: [], logprobs: [] }],
});

const functionCallItem = (itemId: string, callId: string, status: string, call: { name: string; arguments: string }): OutputItem => ({
	id: itemId,
	type: 'function_call',
	status,
	arguments: call.arguments,
	call_id: callId,
	name: call.name,
});

function outputOf(answer: Reply): { output: OutputItem[]; outputTokens: number } {
	if ('content' in answer) return { output: [messageItem(id('msg_'), 'completed', answer.content)], outputTokens: tokensOf(answer.content).length };
	return { output: [functionCallItem(id('fc_'), id('call_'), 'completed', answer.toolCall)], outputTokens: tokensOf(answer.toolCall.arguments).length };
}

/** The Responses API's events for one answer: created, in progress, the item added, its deltas, done, completed. */
async function streamResponse(response: ServerResponse, request: ChatRequest, answer: Reply, pace: Pace | undefined): Promise<void> {
	const { gone } = openStream(response);
	const responseId = id('resp_');
	const createdAt = now();
	let sequence = 0;
	const send = (type: string, fields: Record<string, unknown>): void => {
		response.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`);
	};
	send('response.created', { response: responseObject(request, responseId, createdAt, 'in_progress', []) });
	send('response.in_progress', { response: responseObject(request, responseId, createdAt, 'in_progress', []) });
	let done: OutputItem;
	let outputTokens: number;
	if ('content' in answer) {
		const itemId = id('msg_');
		const where = { item_id: itemId, output_index: 0, content_index: 0 };
		send('response.output_item.added', { output_index: 0, item: messageItem(itemId, 'in_progress') });
		send('response.content_part.added', { ...where, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } });
		for await (const piece of pieces(answer.content, pace, gone)) send('response.output_text.delta', { ...where, delta: piece, logprobs: [] });
		send('response.output_text.done', { ...where, text: answer.content, logprobs: [] });
		send('response.content_part.done', { ...where, part: { type: 'output_text', text: answer.content, annotations: [], logprobs: [] } });
		done = messageItem(itemId, 'completed', answer.content);
		outputTokens = tokensOf(answer.content).length;
	} else {
		const itemId = id('fc_');
		const callId = id('call_');
		send('response.output_item.added', { output_index: 0, item: functionCallItem(itemId, callId, 'in_progress', { ...answer.toolCall, arguments: '' }) });
		send('response.function_call_arguments.delta', { item_id: itemId, output_index: 0, delta: answer.toolCall.arguments });
		send('response.function_call_arguments.done', { item_id: itemId, output_index: 0, name: answer.toolCall.name, arguments: answer.toolCall.arguments });
		done = functionCallItem(itemId, callId, 'completed', answer.toolCall);
		outputTokens = tokensOf(answer.toolCall.arguments).length;
	}
	send('response.output_item.done', { output_index: 0, item: done });
	send('response.completed', { response: responseObject(request, responseId, createdAt, 'completed', [done], outputTokens) });
	response.end();
}

// ---- The server -------------------------------------------------------------------------------------

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of request) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
	response.writeHead(status, { 'content-type': 'application/json' });
	response.end(JSON.stringify(body));
}

const invalid = (message: string, param: string | null = null): Record<string, unknown> => ({ error: { message, type: 'invalid_request_error', param, code: null } });

/** `POST /v1/audio/transcriptions`: the audio in `file` (or any file part), answered as `response_format` asks (json by default). */
function transcribe(response: ServerResponse, raw: Buffer, contentType: string, transcriptions: TranscriptionRequest[]): void {
	let parts: Record<string, unknown>;
	try {
		parts = parseMultipart(raw, contentType);
	} catch (error) {
		return sendJson(response, 400, invalid(`a transcription is multipart/form-data: ${error instanceof Error ? error.message : String(error)}`));
	}
	const fields = Object.fromEntries(Object.entries(parts).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
	const field = 'file' in parts && parts.file instanceof UploadedFile ? 'file' : Object.keys(parts).find((name) => parts[name] instanceof UploadedFile);
	const file = field === undefined ? undefined : (parts[field] as UploadedFile);
	if (field === undefined || file === undefined) return sendJson(response, 400, invalid("the audio file is missing: send it in the multipart field 'file'", 'file'));
	if (!fields.model) return sendJson(response, 400, invalid("the model is missing: send 'model' (whisper-1)", 'model'));
	transcriptions.push({ model: fields.model, field, fileName: file.fileName, mimeType: file.mimeType, bytes: file.size, fields });
	const text = transcriptionOf(file.size, file.mimeType ?? 'application/octet-stream');
	const format = fields.response_format ?? 'json';
	if (format === 'text') {
		response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
		return void response.end(`${text}\n`);
	}
	if (format === 'verbose_json') return sendJson(response, 200, { task: 'transcribe', language: 'english', duration: 1, text, segments: [] });
	sendJson(response, 200, { text });
}

export async function startChatModel(options: ChatModelOptions | number = {}): Promise<ChatModel> {
	const { port = 0, pace } = typeof options === 'number' ? { port: options } : options;
	const requests: ChatRequest[] = [];
	const transcriptions: TranscriptionRequest[] = [];
	const server: Server = createServer((request, response) => {
		void (async () => {
			const path = (request.url ?? '').split('?')[0];
			if (request.method === 'GET' && path.endsWith('/models')) {
				return sendJson(response, 200, { object: 'list', data: [{ id: 'stand-in', object: 'model', created: 0, owned_by: 'test' }] });
			}
			const api = request.method !== 'POST' ? undefined : path.endsWith('/chat/completions') ? 'chat' : path.endsWith('/responses') ? 'responses' : path.endsWith('/audio/transcriptions') ? 'transcriptions' : undefined;
			if (api === undefined) return sendJson(response, 404, invalid(`the stand-in model has no ${request.method} ${path}`));
			const raw = await bodyOf(request);
			if (api === 'transcriptions') return transcribe(response, raw, request.headers['content-type'] ?? '', transcriptions);
			const body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
			const chat = api === 'responses' ? fromResponses(body) : fromChatCompletions(body);
			requests.push(chat);
			let answer = reply(chat);
			if (pace && 'content' in answer) answer = { content: longAnswer(answer.content, pace.tokens) };
			if (chat.stream === true) return await (api === 'responses' ? streamResponse : streamChatCompletion)(response, chat, answer, pace);
			if (pace && 'content' in answer) await delay((tokensOf(answer.content).length / pace.tokensPerSecond) * 1000);
			if (api === 'chat') return sendJson(response, 200, chatCompletion(chat, answer, 'content' in answer ? tokensOf(answer.content).length : 1));
			const { output, outputTokens } = outputOf(answer);
			sendJson(response, 200, responseObject(chat, id('resp_'), now(), 'completed', output, outputTokens));
		})().catch((error: unknown) => {
			if (response.headersSent) return void response.destroy();
			sendJson(response, 500, { error: { message: String(error), type: 'server_error', param: null, code: null } });
		});
	});
	await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
	const address = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${address.port}/v1`,
		requests,
		transcriptions,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
