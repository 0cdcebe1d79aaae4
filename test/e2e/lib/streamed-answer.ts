/**
 * Stream AI Answers as users build it, shared by the regular-mode scenario (../ai-scenarios.ts) and the
 * queue-mode one (../queue/scenarios.ts): Service Bot Trigger (Stream AI Answers and Show Typing on) →
 * n8n's AI Agent (Enable Streaming at its default, on) with an OpenAI Chat Model on the stand-in → Send
 * Message with Markdown From AI posting the agent's whole output in another chat, the unstreamed
 * reference. And what the chat must show: one message at the first words, edited as the answer grows,
 * at most one request a second (over five), ending exactly as the reference.
 */
import assert from 'node:assert/strict';

import type { EmulatorProcess } from '../../real-n8n/emulator-process';
import type { Json } from '../../real-n8n/n8n';
import { waitFor } from '../../real-n8n/processes';
import { serviceBotCredentials } from './workflow';

export interface StreamingWorkflowOptions {
	credentialId: string;
	modelCredentialId: string;
	/** the chat the Send Message after the agent posts the whole output in */
	referenceChatId: string;
	/** the AI Agent's version: 3.1 on n8n 2.x, 3 on 1.x */
	agentVersion: number;
}

export function streamingAgentWorkflow({ credentialId, modelCredentialId, referenceChatId, agentVersion }: StreamingWorkflowOptions): Json {
	return {
		name: 'Streamed answers',
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: 'st-trigger',
				name: 'Service Bot Trigger',
				type: 'n8n-nodes-service-bot.serviceBotTrigger',
				typeVersion: 2,
				position: [0, 0],
				parameters: { updates: ['message'], options: { streamAnswers: true, showTyping: true } },
				credentials: serviceBotCredentials(credentialId),
				webhookId: 'a4d0c6e2-5b1f-4c3e-8d7a-9f0e1b2c3d41',
			},
			{ id: 'st-agent', name: 'AI Agent', type: '@n8n/n8n-nodes-langchain.agent', typeVersion: agentVersion, position: [240, 0], parameters: { promptType: 'define', text: '={{ $json.chatInput }}', options: {} } },
			{
				id: 'st-model',
				name: 'OpenAI Chat Model',
				type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
				typeVersion: 1.2,
				position: [240, 200],
				parameters: { model: { __rl: true, mode: 'list', value: 'gpt-4o-mini' }, options: {} },
				credentials: { openAiApi: { id: modelCredentialId, name: 'Chat model (local stand-in)' } },
			},
			{
				id: 'st-reference',
				name: 'Reference',
				type: 'n8n-nodes-service-bot.serviceBot',
				typeVersion: 3,
				position: [480, 0],
				parameters: {
					resource: 'message',
					operation: 'sendMessage',
					chatId: { __rl: true, mode: 'id', value: referenceChatId },
					text: '={{ $json.output }}',
					additionalFields: { parseMode: 'markdownFromAi' },
					options: { splitLongText: true },
				},
				credentials: serviceBotCredentials(credentialId),
			},
		],
		connections: {
			'Service Bot Trigger': { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
			'OpenAI Chat Model': { ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]] },
			'AI Agent': { main: [[{ node: 'Reference', type: 'main', index: 0 }]] },
		},
	};
}

export interface StreamedAnswerFigures {
	firstSeenMs: number;
	wholeMs: number;
	chars: number;
	messages: number;
	requests: number;
	edits: number;
	refused: number;
	smallestGapMs: number;
	/** the shortest time from a request's arrival to the fifth after it */
	smallestFiveMs: number;
	typingBefore: number;
	/** each "typing…" the service met in the chat: its arrival relative to the first words, and its answer's status */
	typingSeen: string;
	/** how long before the first words the service met the first "typing…" */
	typingLeadMs: number | undefined;
}

/**
 * The user asks in `chatId` (one edit is refused with 429, retry_after 1, on the way); waits for the
 * answer and asserts what the chat showed: the first words in a first short message, then edits at
 * most one a second (by arrival at the service), the 429 met once, and at the end exactly the
 * reference's messages.
 */
export async function askAndCheckStreamedAnswer(
	emulator: EmulatorProcess,
	chatId: string,
	referenceChatId: string,
	/** How the user writes the question (default: through the emulator's control API, as the demo user). */
	ask: (text: string) => Promise<void> = async (text) => {
		await emulator.userSends(text, chatId);
	},
): Promise<StreamedAnswerFigures> {
	const botTexts = async (chat: string): Promise<string[]> => (await emulator.history(chat)).filter((message) => message.from?.is_bot === true).map((message) => String(message.text));
	// One edit is refused with 429 (retry_after 1): the next carries everything written meanwhile.
	await emulator.failCalls('editMessageText', 429, 1);
	const asked = Date.now();
	await ask('Tell me about the plans');
	await waitFor('the first words in the chat', async () => (await botTexts(chatId))[0], { limitMs: 60_000, intervalMs: 50 });
	const firstSeenMs = Date.now() - asked;
	const expected = await waitFor('the reference answer', async () => {
		const texts = await botTexts(referenceChatId);
		return texts.length > 0 ? texts : undefined;
	}, { limitMs: 120_000 });
	await waitFor('the streamed answer to end as the reference', async () => (JSON.stringify(await botTexts(chatId)) === JSON.stringify(expected) ? true : undefined), { limitMs: 30_000 });
	const wholeMs = Date.now() - asked;
	const calls = (await emulator.calls())
		.filter((call) => call.body.chat_id === chatId && ['sendMessage', 'editMessageText'].includes(call.method))
		.map((call) => ({ method: call.method, status: call.status, at: Number(call.at), text: String(call.body.text) }));
	assert.equal(calls[0].method, 'sendMessage');
	assert.ok(calls[0].text.length < expected.join('').length / 4, `the first message showed the first words: ${JSON.stringify(calls[0].text)}`);
	assert.ok(calls.slice(1).every((call) => call.method === 'editMessageText' || call.method === 'sendMessage'));
	const refused = calls.filter((call) => call.status === 429);
	assert.equal(refused.length, 1, 'the 429 was met once');
	const gaps = calls.slice(1).map((call, index) => call.at - calls[index].at);
	// Arrivals at the emulator, not starts: a request slowed on its way (a loaded machine: 1,325 ms, then
	// 840 ms to the next, seen once) moves one arrival, not the rate. So the rate is read over five
	// requests, which take at least 5 s when each starts a second after the last: at least 4.5 s between
	// a request's arrival and the fifth after it (a limiter that did not wait would give a few
	// hundred ms). The spacing of the starts themselves is tested through n8n-core.
	const spans = calls.slice(5).map((call, index) => call.at - calls[index].at);
	assert.ok(spans.every((span) => span >= 4_500), `one request a second at most: five requests took ${JSON.stringify(spans)} ms (single gaps ${JSON.stringify(gaps)})`);
	const typingCalls = (await emulator.calls('sendChatAction')).filter((call) => call.body.chat_id === chatId);
	const typingBefore = typingCalls.filter((call) => Number(call.at) < calls[0].at).length;
	// When and how the service met "typing…", relative to the first words: what a failure needs to be read.
	const typingSeen = typingCalls.map((call) => `${Number(call.at) - calls[0].at} ms: ${call.status}`).join(', ');
	const firstTyping = typingCalls.find((call) => Number(call.at) < calls[0].at);
	return {
		firstSeenMs,
		wholeMs,
		chars: expected.join('').length,
		messages: expected.length,
		requests: calls.length,
		edits: calls.filter((call) => call.method === 'editMessageText').length,
		refused: refused.length,
		smallestGapMs: Math.min(...gaps),
		smallestFiveMs: Math.min(...spans),
		typingBefore,
		typingSeen,
		typingLeadMs: firstTyping ? calls[0].at - Number(firstTyping.at) : undefined,
	};
}

/** The figures as the scenarios log them. */
export function describeStreamedAnswer(figures: StreamedAnswerFigures): string {
	return (
		`first words after ${figures.firstSeenMs} ms, the whole answer (${figures.chars} chars, ${figures.messages} message) after ${figures.wholeMs} ms; ` +
		`${figures.requests} requests (${figures.edits} edits, ${figures.refused} 429), smallest gap ${figures.smallestGapMs} ms, five requests in ${figures.smallestFiveMs} ms at the least; "typing…" ${figures.typingBefore}× before the first words (at ${figures.typingSeen || "no time"} from them)`
	);
}
