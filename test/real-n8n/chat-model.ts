/**
 * A small local stand-in for a chat model (test-only): an OpenAI-compatible `POST /v1/chat/completions`
 * with scripted answers, so n8n's own AI Agent and OpenAI Chat Model nodes run offline (the
 * credential's Base URL points here). What it answers depends on the conversation it is sent:
 *
 * - after a tool's result: "I sent the note to the chat.";
 * - a question about plans or prices: a Markdown answer with a heading, a table, bold and code;
 * - "what did I … before": the first earlier user message of the conversation (so the memory shows);
 * - "note": a call of the first tool offered, its arguments from the tool's schema, nested objects
 *   too (a property named like a chat id gets the first UUID of the system message, any other
 *   string a note);
 * - a message with an image (n8n's AI Agent passes the input item's binary images): "I see a picture
 *   (<MIME type>, <bytes> bytes)." from the image's data URL;
 * - anything else: "You said: <the message>" (lines joined with " | ").
 *
 * Streaming requests get the same answer as server-sent events. Every request is recorded.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatMessage {
	role: string;
	content?: unknown;
	tool_calls?: unknown[];
}

export interface ChatRequest {
	model?: string;
	messages: ChatMessage[];
	tools?: Array<{ type: string; function: { name: string; parameters?: Schema } }>;
	stream?: boolean;
}

export interface ChatModel {
	/** For the OpenAI credential's Base URL: `http://127.0.0.1:<port>/v1`. */
	readonly baseUrl: string;
	/** Every chat completion request, in arrival order. */
	readonly requests: ChatRequest[];
	close(): Promise<void>;
}

/** The Markdown the stand-in answers about plans: what models write, tables and all. */
export const PLANS_ANSWER = ['## Our plans', '', '| Plan | Price |', '|---|---:|', '| **Pro** | 12 € |', '| Basic | 5 € |', '', 'Reply `pro` & we switch you.'].join('\n');

export const TOOL_DONE_ANSWER = 'I sent the note to the chat.';
export const NOTE_TEXT = 'A note from the agent';

/** The text of a message's content (a string, or OpenAI's list of parts). */
export function textOf(content: unknown): string {
	if (typeof content === 'string') return content;
	if (Array.isArray(content)) return content.map((part) => (typeof part === 'object' && part !== null && 'text' in part ? String((part as { text: unknown }).text) : '')).join('');
	return '';
}

type Reply = { content: string } | { toolCall: { name: string; arguments: string } };

interface Schema {
	type?: string;
	properties?: Record<string, Schema>;
}

/** Arguments for a tool's JSON schema, nested objects too (n8n's human review wraps the tool's own). */
function argumentsFor(schema: Schema | undefined, chat: string): Record<string, unknown> {
	return Object.fromEntries(
		Object.entries(schema?.properties ?? {}).map(([name, property]) => [
			name,
			property.type === 'object' ? argumentsFor(property, chat) : /chat/i.test(name) ? chat : property.type === 'number' ? 1 : NOTE_TEXT,
		]),
	);
}

/** The images of a message's content (OpenAI's `image_url` parts), as `<MIME type>, <bytes> bytes` from their data URLs. */
export function imagesOf(content: unknown): string[] {
	if (!Array.isArray(content)) return [];
	return content.flatMap((part: unknown) => {
		const url = typeof part === 'object' && part !== null && 'image_url' in part ? (part as { image_url?: { url?: unknown } }).image_url?.url : undefined;
		if (typeof url !== 'string') return [];
		const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
		return [match ? `${match[1]}, ${Buffer.from(match[2], 'base64').length} bytes` : 'an image by URL'];
	});
}

/** What the stand-in answers to a picture: proof that the agent passed the image itself, not a description. */
export const pictureAnswer = (image: string): string => `I see a picture (${image}).`;

function reply(request: ChatRequest): Reply {
	const messages = request.messages;
	const last = messages[messages.length - 1];
	if (last?.role === 'tool') return { content: TOOL_DONE_ANSWER };
	const pictures = last?.role === 'user' ? imagesOf(last.content) : [];
	if (pictures.length > 0) return { content: pictureAnswer(pictures[0]) };
	const users = messages.filter((message) => message.role === 'user').map((message) => textOf(message.content));
	const said = users[users.length - 1] ?? '';
	const lower = said.toLowerCase();
	if (/plan|price/.test(lower)) return { content: PLANS_ANSWER };
	if (/before|earlier/.test(lower)) return { content: users.length > 1 ? `Earlier you wrote: ${users[0]}` : 'You wrote nothing before.' };
	const tool = request.tools?.[0]?.function;
	if (/note/.test(lower) && tool) {
		const system = messages.filter((message) => message.role === 'system').map((message) => textOf(message.content)).join('\n');
		const chat = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i.exec(system)?.[0] ?? '';
		return { toolCall: { name: tool.name, arguments: JSON.stringify(argumentsFor(tool.parameters, chat)) } };
	}
	return { content: `You said: ${said.split('\n').join(' | ')}` };
}

function completion(request: ChatRequest, answer: Reply): Record<string, unknown> {
	const message =
		'content' in answer
			? { role: 'assistant', content: answer.content }
			: { role: 'assistant', content: null, tool_calls: [{ id: `call_${randomUUID().slice(0, 8)}`, type: 'function', function: answer.toolCall }] };
	return {
		id: `chatcmpl-${randomUUID()}`,
		object: 'chat.completion',
		created: Math.floor(Date.now() / 1000),
		model: request.model ?? 'stand-in',
		choices: [{ index: 0, message, finish_reason: 'content' in answer ? 'stop' : 'tool_calls' }],
		usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
	};
}

function stream(response: ServerResponse, request: ChatRequest, answer: Reply): void {
	response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
	const base = { id: `chatcmpl-${randomUUID()}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: request.model ?? 'stand-in' };
	const send = (choice: Record<string, unknown>): void => {
		response.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, ...choice }] })}\n\n`);
	};
	if ('content' in answer) {
		send({ delta: { role: 'assistant', content: answer.content }, finish_reason: null });
		send({ delta: {}, finish_reason: 'stop' });
	} else {
		send({ delta: { role: 'assistant', content: null, tool_calls: [{ index: 0, id: `call_${randomUUID().slice(0, 8)}`, type: 'function', function: answer.toolCall }] }, finish_reason: null });
		send({ delta: {}, finish_reason: 'tool_calls' });
	}
	response.end('data: [DONE]\n\n');
}

async function bodyOf(request: IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	for await (const chunk of request) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks).toString('utf8');
}

export async function startChatModel(port = 0): Promise<ChatModel> {
	const requests: ChatRequest[] = [];
	const server: Server = createServer((request, response) => {
		void (async () => {
			const path = (request.url ?? '').split('?')[0];
			if (request.method === 'GET' && path.endsWith('/models')) {
				response.writeHead(200, { 'content-type': 'application/json' });
				response.end(JSON.stringify({ object: 'list', data: [{ id: 'stand-in', object: 'model', created: 0, owned_by: 'test' }] }));
				return;
			}
			if (request.method !== 'POST' || !path.endsWith('/chat/completions')) {
				response.writeHead(404, { 'content-type': 'application/json' });
				response.end(JSON.stringify({ error: { message: `the stand-in model has no ${request.method} ${path}` } }));
				return;
			}
			const chat = JSON.parse(await bodyOf(request)) as ChatRequest;
			requests.push(chat);
			const answer = reply(chat);
			if (chat.stream === true) return stream(response, chat, answer);
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end(JSON.stringify(completion(chat, answer)));
		})().catch((error: unknown) => {
			response.writeHead(500, { 'content-type': 'application/json' });
			response.end(JSON.stringify({ error: { message: String(error) } }));
		});
	});
	await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
	const address = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${address.port}/v1`,
		requests,
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	};
}
