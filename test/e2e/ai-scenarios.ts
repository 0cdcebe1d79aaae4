/**
 * An AI chat bot in real n8n with n8n's own AI nodes: the example workflow of `npm run dev`
 * (test/dev/workflows/ai-support-bot.json) — Service Bot Polling Trigger → AI Agent with an OpenAI
 * Chat Model (pointed at the local stand-in, test/real-n8n/chat-model.ts), Simple Memory and the
 * Service Bot as a tool behind n8n's generated "Human Review" variant of our Send and Wait → Service
 * Bot Send Message with Parse Mode "Markdown From AI". Then the voice bot example
 * (test/dev/workflows/voice-bot.json): Service Bot Trigger → the OpenAI node's Transcribe a Recording
 * → AI Agent on Define below with an OpenAI Chat Model at its defaults (1.3: the Responses API) and
 * Simple Memory keyed by the trigger's chat, on the same stand-in.
 */
import assert from 'node:assert/strict';

import { DEMO_CREDENTIAL_ID, MODEL_CREDENTIAL_ID, VOICE_EXAMPLE, aiExampleWorkflow, modelCredential } from '../dev/demo';
import { SAMPLES, jpeg } from '../harness/sample-files';
import { NOTE_TEXT, TOOL_DONE_ANSWER, pictureAnswer, startChatModel, textOf, type ChatModelOptions } from '../real-n8n/chat-model';
import type { ScenarioContext } from './lib/context';
import { watchChatPage } from './lib/chat-page-watch';
import { askAndCheckStreamedAnswer, describeStreamedAnswer, streamingAgentWorkflow } from './lib/streamed-answer';
import type { StoredMessage } from '../real-n8n/emulator-process';
import type { Json } from '../real-n8n/n8n';
import type { Scenario } from './lib/runner';
import { exampleCopy, webhookTrigger } from './lib/workflow';
import { sleep, waitFor } from '../real-n8n/processes';

/** The AI scenarios' start: the emulator, the stand-in model, n8n with its owner, the demo credential and the model's. */
async function withChatModel(ctx: ScenarioContext, options: ChatModelOptions = {}) {
	const emulator = await ctx.emulator();
	const model = await startChatModel(options);
	ctx.defer(() => model.close());
	const n8n = await ctx.n8n();
	await n8n.start();
	await n8n.setupOwner();
	const { credentialId } = await ctx.createDemo(n8n, emulator);
	const credential = modelCredential(model.baseUrl);
	delete credential.id;
	const modelCredentialId = String((await n8n.request('POST', '/rest/credentials', credential)).id);
	return { emulator, model, n8n, credentialId, modelCredentialId };
}

const aiSupportBot: Scenario = {
	name: "AI chat bot: n8n's AI Agent with memory and the Service Bot as a tool, fed by the polling trigger, answers with a formatted table, remembers the chat, sends a note through the tool (on n8n 2.x once the customer approves it in the chat: Human Review), answers a photo and a text sent with it together, and three quick messages are one run; then a voice note through n8n's Transcribe + AI Agent on the stand-in model, and a typed text straight to the agent (the voice bot example)",
	async run(ctx: ScenarioContext) {
		const { emulator, model, n8n, credentialId, modelCredentialId } = await withChatModel(ctx);
		const text = JSON.stringify(aiExampleWorkflow()).split(DEMO_CREDENTIAL_ID).join(credentialId).split(MODEL_CREDENTIAL_ID).join(modelCredentialId);
		// n8n 1.x makes no human-review tool of Send and Wait: there the agent gets the Service Bot tool itself.
		const humanReview = n8n.options.install.major >= 2;
		const workflow = humanReview ? (JSON.parse(text) as Json) : withoutHumanReview(JSON.parse(text) as Json);
		delete workflow.id;
		delete workflow.active;
		const workflowId = String((await n8n.createWorkflow(workflow)).id);
		await n8n.activate(workflowId);
		await waitFor('the trigger to poll', async () => ((await emulator.calls('getUpdates')).length > 0 ? true : undefined), { limitMs: 60_000 });
		ctx.log(`published the AI support bot example (chat model: the stand-in at ${model.baseUrl})`);

		const chat = emulator.demo.privateChatId;
		const botMessages = async (): Promise<StoredMessage[]> => (await emulator.history(chat)).filter((message) => message.from?.is_bot === true);
		/** The user writes; resolves with the bot's next message. */
		const ask = async (...texts: string[]): Promise<StoredMessage> => {
			const before = (await botMessages()).length;
			for (const line of texts) await emulator.userSends(line);
			return await waitFor(`an answer to ${JSON.stringify(texts)}`, async () => (await botMessages())[before], { limitMs: 60_000 });
		};

		const plans = await ask('Which plans do you have?');
		// The service's HTML (the emulator keeps a text as it was sent, after checking its formatting).
		assert.equal(
			plans.text,
			['<b>Our plans</b>', '', '<pre>Plan  | Price', '------+------', 'Pro   | 12 €', 'Basic | 5 €</pre>', '', 'Reply <code>pro</code> &amp; we switch you.'].join('\n'),
		);
		const sent = (await emulator.calls('sendMessage')).find((call) => call.body.text === plans.text);
		assert.equal(sent?.body.parse_mode, 'HTML');
		assert.equal(sent?.status, 200);
		const first = model.requests[0];
		assert.equal(textOf(first.messages.filter((message) => message.role === 'user').at(-1)?.content), 'Which plans do you have?', 'the agent got chatInput');
		assert.ok(first.messages.some((message) => message.role === 'system' && textOf(message.content).includes(chat)), 'the system message names the chat');
		ctx.log('a question → one agent run with chatInput; the Markdown answer arrived as the service\'s HTML (bold heading, the table monospaced, code), accepted with parse_mode HTML');

		const recalled = await ask('What did I ask before?');
		assert.equal(recalled.text, 'Earlier you wrote: Which plans do you have?');
		ctx.log('a second message continued the same memory (sessionId = the chat)');

		if (humanReview) {
			// The tool is gated by Human Review (n8n's "human review" variant of Send and Wait): the agent's
			// call asks in the chat first, and the note goes out only once the customer approves.
			// Waited for with its buttons: the question is sent first and its keyboard added by an edit right after.
			const asked = (await botMessages()).length;
			await emulator.userSends('Please send me a note');
			const question = await waitFor(
				'the approval question with its buttons',
				async () => (await botMessages()).slice(asked).find((message) => message.reply_markup !== undefined),
				{ limitMs: 60_000 },
			);
			const approve = question.reply_markup?.inline_keyboard?.flat().find((button) => button.text === '✅ Approve');
			assert.ok(approve?.callback_data, `the tool call is asked for approval first: ${JSON.stringify(question)}`);
			// The question names what the tool would send (the example's `{{ $tool.parameters.text }}`).
			assert.equal(question.text, `The bot wants to send you a note: ${NOTE_TEXT}`);
			assert.equal((await botMessages()).some((message) => message.text === NOTE_TEXT), false, 'nothing sent before the approval');
			await emulator.userClicks(question.message_id, approve.callback_data);
			const final = await waitFor('the final answer', async () => (await botMessages()).find((message) => message.text === TOOL_DONE_ANSWER), { limitMs: 60_000 });
			const texts = (await botMessages()).map((message) => message.text);
			assert.ok(texts.indexOf(NOTE_TEXT) > texts.indexOf(question.text) && texts.indexOf(NOTE_TEXT) < texts.indexOf(final.text), `approval, note, answer: ${JSON.stringify(texts)}`);
			// The question (an expression of the tool call) shows the answer once n8n accepted it, and loses its buttons.
			const answered = await waitFor(
				'the approval question to show its answer',
				async () => (await botMessages()).find((message) => message.message_id === question.message_id && message.reply_markup === undefined),
				{ limitMs: 60_000 },
			);
			assert.equal(answered.text, `The bot wants to send you a note: ${NOTE_TEXT}\n\n✅ Approve — Demo`);
			ctx.log('the agent called the Service Bot as a tool behind Human Review: asked in the chat, approved with a tap, the note arrived, then the answer');
		} else {
			const note = await ask('Please send me a note');
			assert.equal(note.text, NOTE_TEXT, 'the tool sent the note');
			const final = await waitFor('the final answer', async () => (await botMessages()).find((message) => message.text === TOOL_DONE_ANSWER), { limitMs: 60_000 });
			ctx.log(`the agent called the Service Bot as a tool (n8n ${n8n.options.install.n8nVersion}: no human review): the note arrived, then "${String(final.text)}"`);
		}

		// A photo with a caption and a text right after it (Download Files is on in the example, and Group
		// Messages Within gathers both): n8n's agent passes the image itself to the model, the texts as chatInput.
		const photo = jpeg(640, 480, 9, 5000);
		const before = (await botMessages()).length;
		await emulator.userSendsFile('photo', photo, { caption: 'What is this?' });
		await emulator.userSends('And which colour?');
		const described = await waitFor('the answer to a photo and a text', async () => (await botMessages())[before], { limitMs: 60_000 });
		// The stand-in's script: each picture of the turn (its MIME type and size), then the answer to the turn's text.
		assert.equal(described.text, `${pictureAnswer(`image/jpeg, ${photo.length} bytes`)} You said: What is this? | And which colour?`, 'the model got the whole photo and both texts, in one turn');
		const asked = model.requests.at(-1);
		// n8n's agent sends the images of its input item as a user message of their own, after chatInput's.
		const userTexts = (asked?.messages ?? []).filter((message) => message.role === 'user').map((message) => textOf(message.content));
		assert.ok(userTexts.includes('What is this?\nAnd which colour?'), `the caption and the text are chatInput: the user messages were ${JSON.stringify(userTexts)}`);
		ctx.log(`a photo with a caption and a text within 2 s → one agent run with the ${photo.length}-byte JPEG as an image and both texts: "${String(described.text)}"`);

		const runsBefore = model.requests.length;
		const executionsBefore = (await n8n.executions(workflowId)).length;
		const grouped = await ask('one', 'two', 'three');
		assert.equal(grouped.text, 'You said: one | two | three');
		await emulator.idle();
		// Ended: a run's end (stoppedAt) bounds its renewals of "typing…" below.
		const executions = await n8n.endedExecutions(workflowId);
		assert.equal(executions.length, executionsBefore + 1, 'three quick messages, one execution');
		assert.equal(model.requests.length, runsBefore + 1, 'three quick messages, one agent run');
		const typing = (await emulator.calls('sendChatAction')).filter((call) => call.body.action === 'typing' && call.body.chat_id === chat);
		const userMessages = (await emulator.history(chat)).filter((message) => message.from?.is_bot !== true).length;
		// With Group Messages Within, as each message is gathered and again as they run; then renewed every
		// 4 s while a run goes on (the service shows a chat action for five seconds). On a loaded machine a
		// run can outlast 4 s (CI once: 14 for 13), so the renewals are bounded by each run's length, with
		// one more for the moment between the trigger handing the run over and n8n starting it.
		const renewalsAtMost = executions.reduce((sum, execution) => sum + Math.ceil((Date.parse(String(execution.stoppedAt)) - Date.parse(String(execution.startedAt))) / 4_000), 0);
		assert.ok(typing.length >= userMessages + executions.length, `Show Typing: "typing…" for each of ${userMessages} messages and ${executions.length} executions: ${typing.length}`);
		assert.ok(
			typing.length <= userMessages + executions.length + renewalsAtMost,
			`Show Typing: no more "typing…" than one for each message and execution and a renewal each 4 s a run took (${renewalsAtMost}): ${typing.length}`,
		);
		ctx.log(`three quick messages → one execution and one agent run ("${grouped.text}"); ${executions.length} executions in all, "typing…" ${typing.length}× for ${userMessages} messages (renewals at most ${renewalsAtMost})`);

		// The voice bot example (a webhook trigger on the same bot: the polling workflow goes first).
		await n8n.deactivate(workflowId);
		const voiceCopy = exampleCopy(VOICE_EXAMPLE, { [DEMO_CREDENTIAL_ID]: credentialId, [MODEL_CREDENTIAL_ID]: modelCredentialId }) as Json;
		const voiceBot = humanReview ? voiceCopy : withN8n1Versions(voiceCopy);
		const voiceId = String((await n8n.createWorkflow(voiceBot)).id);
		await n8n.activate(voiceId);
		await waitFor('the voice bot to register its webhook', async () => (await emulator.webhook()) ?? undefined, { limitMs: 60_000 });
		const requestsBefore = model.requests.length;
		/** The user sends a voice note of `bytes`; resolves with the bot's next message. */
		const speak = async (bytes: Buffer): Promise<StoredMessage> => {
			const count = (await botMessages()).length;
			await emulator.userSendsFile('voice', bytes, { mimeType: 'audio/ogg' });
			return await waitFor('the answer to a voice note', async () => (await botMessages())[count], { limitMs: 60_000 });
		};
		const voice = SAMPLES.voice.bytes;
		const heard = await speak(voice);
		// The stand-in transcribes as "transcribed: <bytes> bytes of <MIME type>", and the agent echoes it.
		assert.equal(heard.text, `You said: transcribed: ${voice.length} bytes of audio/ogg`);
		assert.deepEqual(
			model.transcriptions.map(({ model: name, field, mimeType, bytes }) => ({ name, field, mimeType, bytes })),
			[{ name: 'whisper-1', field: 'file', mimeType: 'audio/ogg', bytes: voice.length }],
			'Transcribe a Recording posted the whole voice note as multipart',
		);
		const voiceRequest = model.requests[requestsBefore];
		assert.equal(voiceRequest?.api, 'responses', 'OpenAI Chat Model 1.3 at its defaults calls /v1/responses');
		assert.equal(voiceRequest?.model, 'gpt-5-mini');
		const secondVoice = Buffer.concat([Buffer.from('OggS'), Buffer.alloc(400, 3)]);
		const again = await speak(secondVoice);
		assert.equal(again.text, `You said: transcribed: ${secondVoice.length} bytes of audio/ogg`);
		// Simple Memory's Session ID is mapped from the trigger: the second run sees the first.
		const remembered = model.requests.at(-1)?.messages.map((message) => textOf(message.content)) ?? [];
		assert.ok(remembered.includes(`transcribed: ${voice.length} bytes of audio/ogg`) && remembered.includes(heard.text ?? ''), `the memory holds the first voice note's turn: ${JSON.stringify(remembered)}`);
		const voiceRuns = await n8n.endedExecutions(voiceId, 2);
		assert.deepEqual(voiceRuns.map((execution) => execution.status), ['success', 'success']);
		// A typed text: the trigger's Messages output goes to the agent directly, no transcription.
		const countBeforeText = (await botMessages()).length;
		await emulator.userSends('hello');
		const typed = await waitFor('the answer to a typed text', async () => (await botMessages())[countBeforeText], { limitMs: 60_000 });
		assert.equal(typed.text, 'You said: hello', 'the voice bot answers a typed text too');
		assert.equal(model.transcriptions.length, 2, 'a typed text is not transcribed');
		ctx.log(`the voice bot example: two voice notes → Transcribe (whisper-1, multipart) → AI Agent on /v1/responses with memory → "${String(again.text)}"; a text → "${String(typed.text)}"`);
	},
};

/** The voice bot for n8n 1.x: the AI Agent and OpenAI node versions 1.x has (3 and 2.1). */
function withN8n1Versions(workflow: Json): Json {
	const versions: Record<string, number> = { '@n8n/n8n-nodes-langchain.agent': 3, '@n8n/n8n-nodes-langchain.openAi': 2.1 };
	return { ...workflow, nodes: (workflow.nodes as Json[]).map((node) => (node.type in versions ? { ...node, typeVersion: versions[node.type] } : node)) };
}

/** The example for n8n 1.x: the Service Bot tool goes to the agent directly, and the agent is a version 1.x has (3). */
function withoutHumanReview(workflow: Json): Json {
	const nodes = (workflow.nodes as Json[]).filter((node) => node.type !== 'n8n-nodes-service-bot.serviceBotHitlTool');
	const review = (workflow.nodes as Json[]).find((node) => node.type === 'n8n-nodes-service-bot.serviceBotHitlTool');
	const agent = nodes.find((node) => node.type === '@n8n/n8n-nodes-langchain.agent');
	agent.typeVersion = 3;
	const connections: Json = {};
	for (const [from, outputs] of Object.entries(workflow.connections as Json)) {
		if (from === review.name) continue;
		connections[from] = JSON.parse(JSON.stringify(outputs).split(`"node":"${review.name}"`).join(`"node":"${agent.name}"`));
	}
	return { ...workflow, nodes, connections };
}


/**
 * The AI example with its Reply as the editor adds a Service Bot node today (version 4) and its Chat
 * left at its default (From Trigger): the AI Agent's answer goes to the chat the question came from,
 * followed back through the agent's paired items to the polling trigger.
 */
/** The AI example without Human Review, its Reply at version 4 with Chat at its default, ready to create. */
function exampleWithDefaultReply(credentialId: string, modelCredentialId: string): Json {
	const text = JSON.stringify(aiExampleWorkflow()).split(DEMO_CREDENTIAL_ID).join(credentialId).split(MODEL_CREDENTIAL_ID).join(modelCredentialId);
	const workflow = withoutHumanReview(JSON.parse(text) as Json);
	const reply = (workflow.nodes as Json[]).find((node: Json) => node.name === 'Reply');
	assert.ok(reply, 'the example has its Reply node');
	reply.typeVersion = 4;
	delete reply.parameters.chatId;
	delete workflow.id;
	delete workflow.active;
	return workflow;
}

const replyAfterTheAgent: Scenario = {
	name: "a reply after n8n's AI Agent with its Chat left at its default: the agent's answer goes to the chat the question came from",
	async run(ctx: ScenarioContext) {
		const { emulator, n8n, credentialId, modelCredentialId } = await withChatModel(ctx);
		const workflow = exampleWithDefaultReply(credentialId, modelCredentialId);
		const workflowId = String((await n8n.createWorkflow(workflow)).id);
		await n8n.activate(workflowId);
		await waitFor('the trigger to poll', async () => ((await emulator.calls('getUpdates')).length > 0 ? true : undefined), { limitMs: 60_000 });
		const chat = emulator.demo.privateChatId;
		await emulator.userSends('Which plans do you have?', chat);
		const answer = await waitFor(
			"the agent's answer in the chat the question came from",
			async () => (await emulator.history(chat)).find((message) => message.from?.is_bot === true),
			{ limitMs: 60_000 },
		);
		assert.match(String(answer.text), /^<b>Our plans<\/b>/);
		const runs = await n8n.endedExecutions(workflowId);
		assert.ok(runs.every((run: Json) => run.status === 'success'), `the execution ends in success: ${JSON.stringify(runs).slice(0, 300)}`);
		ctx.log(`Polling Trigger → AI Agent → Reply (version 4, Chat not set): the answer arrived in the private chat ("${String(answer.text).slice(0, 30)}…")`);
	},
};

export const AI_SCENARIOS: Scenario[] = [aiSupportBot];

/** Replies with nothing mapped (Service Bot version 4): after the other scenarios, so their numbers stay. */
export const NOTHING_MAPPED_AI_SCENARIOS: Scenario[] = [replyAfterTheAgent];

/**
 * Stream AI Answers in real n8n: Service Bot Trigger (the option on, Show Typing on) → AI Agent (Enable
 * Streaming at its default, on) with an OpenAI Chat Model on the stand-in, which writes an answer of 800
 * tokens at 40 a second (20 s), streamed as server-sent events; after the agent, Send Message with
 * Markdown From AI posts the agent's whole output in the group chat as the unstreamed reference. The
 * private chat gets one message at the first words, edited as the answer grows (one 429 on the way,
 * waited out), and it ends exactly as the reference. Measured: time to the first visible text,
 * requests, their spacing, "typing…" before it.
 */
/** How often the emulator's chat page asks for what is new (test/emulator/chat-page.ts). */
const PAGE_POLL_MS = 250;

const streamedAnswer: Scenario = {
	name: 'Stream AI Answers: a 20 s answer of the AI Agent appears in the chat at its first words and grows in place (one 429 waited out), ending exactly as the unstreamed answer',
	async run(ctx: ScenarioContext) {
		const { emulator, model, n8n, credentialId, modelCredentialId } = await withChatModel(ctx, { pace: { tokens: 800, tokensPerSecond: 40 } });
		const referenceChatId = emulator.demo.groupChatId;
		const agentVersion = n8n.options.install.major >= 2 ? 3.1 : 3;
		const workflowId = String((await n8n.createWorkflow(streamingAgentWorkflow({ credentialId, modelCredentialId, referenceChatId, agentVersion }))).id);
		await n8n.activate(workflowId);
		await waitFor('the trigger to register its webhook', async () => (await emulator.webhook()) ?? undefined, { limitMs: 60_000 });

		// The person asks on the emulator's chat page and watches it, as with `npm run dev`.
		const chatId = emulator.demo.privateChatId;
		const watch = await watchChatPage(ctx, emulator.baseUrl, chatId);
		let growingShot: Promise<string> | undefined;
		const figures = await askAndCheckStreamedAnswer(emulator, chatId, referenceChatId, async (text) => {
			await watch.write(text);
			growingShot = sleep(6_000).then(async () => await watch.screenshot('chat-page-streaming-growing.png'));
		});
		await growingShot;
		await watch.screenshot('chat-page-streaming-done.png');
		const runs = await n8n.endedExecutions(workflowId, 1);
		assert.equal(runs[0].status, 'success');
		ctx.log(`n8n ${n8n.options.install.n8nVersion}: ${describeStreamedAnswer(figures)}; model requests ${model.requests.length}, streamed: ${String(model.requests[0]?.stream)}`);

		// What the page showed: "typing…" until the first words, then one message growing in place.
		const samples = await watch.samples();
		const first = samples.findIndex((sample) => sample.bots.length > 0);
		assert.ok(first > 0, `the page showed the bot's answer after the question (${samples.length} samples)`);
		const typingBefore = samples.slice(0, first).filter((sample) => sample.typing.includes('is typing'));
		// The service met "typing…" before the first words (askAndCheckStreamedAnswer counts it by arrival).
		assert.ok(figures.typingBefore > 0, `the service met "typing…" before the first words: ${figures.typingSeen || 'never'}`);
		// The page polls every 250 ms and the service clears "typing…" at the bot's next message, as
		// clients do: the page can show it only when it led the words by a poll or more. It leads by
		// about a second (0.84–1.08 s measured); on a loaded machine n8n once sent it 71 ms before them.
		const pageCouldSee = (figures.typingLeadMs ?? 0) >= PAGE_POLL_MS * 2;
		assert.ok(
			!pageCouldSee || typingBefore.length > 0,
			`the page showed "is typing…" before the first words: ${JSON.stringify(samples.slice(0, first).map((sample) => sample.typing))}; the service met "typing…" at ${figures.typingSeen || 'no time'}`,
		);
		const answerId = samples[first].bots[0].id;
		const shown = samples.slice(first);
		assert.ok(
			shown.every((sample) => sample.bots[0]?.id === answerId),
			`the answer grew in one message (#${answerId}), never replaced: ${JSON.stringify([...new Set(shown.map((sample) => sample.bots.map((bot) => bot.id).join(',')))])}`,
		);
		const lengths = shown.map((sample) => sample.bots[0].length);
		const changes = lengths.filter((length, index) => index > 0 && length !== lengths[index - 1]).length;
		assert.ok(changes >= 5, `the message grew on the page while the model wrote (${changes} changes): ${JSON.stringify([...new Set(lengths)])}`);
		assert.equal(Math.max(...lengths), lengths[lengths.length - 1], `the page ends with the whole answer: ${JSON.stringify([...new Set(lengths)])}`);
		const answerOnPage = await watch.botTexts(chatId);
		const referenceOnPage = await watch.botTexts(referenceChatId);
		assert.deepEqual(answerOnPage, referenceOnPage, 'the page shows the streamed answer exactly as the unstreamed reference');
		assert.deepEqual(watch.scriptErrors(), [], 'the chat page ran without script errors');
		ctx.log(
			`the chat page: "is typing…" in ${typingBefore.length} of ${first} samples before the first words (${samples[first].at} ms after the watch began; the service had it ${figures.typingLeadMs ?? '–'} ms before them), ` +
				`then message #${answerId} changed ${changes} times in place to ${lengths[lengths.length - 1]} characters as shown, the same text as the reference; screenshots chat-page-streaming-*.png`,
		);
	},
};

/** Stream AI Answers: after the others, so their numbers stay. */
export const STREAMING_AI_SCENARIOS: Scenario[] = [streamedAnswer];

/**
 * Placeholder While Thinking in real n8n: the AI example (Polling Trigger → AI Agent on the stand-in →
 * Reply, version 4, Chat at its default) with the option on and an If before the agent that sends a
 * text with "fail" to Stop and Error. A question: "Thinking…" is posted, then edited into the answer,
 * no second message, nothing deleted. A failing run: its "Thinking…" is deleted when the run has ended.
 */
const placeholderWhileThinking: Scenario = {
	name: 'Placeholder While Thinking: the polling trigger posts "Thinking…", the Reply after the AI Agent edits it into the answer; a failed run\'s placeholder is deleted',
	async run(ctx: ScenarioContext) {
		const { emulator, n8n, credentialId, modelCredentialId } = await withChatModel(ctx);
		const workflow = exampleWithDefaultReply(credentialId, modelCredentialId);
		const nodes = workflow.nodes as Json[];
		const trigger = nodes.find((node: Json) => node.type === 'n8n-nodes-service-bot.serviceBotPollingTrigger');
		assert.ok(trigger, 'the example has its trigger');
		trigger.parameters.options = { ...trigger.parameters.options, placeholderWhileThinking: 'Thinking…' };
		nodes.push(
			{
				id: 'ph-if',
				name: 'Asked to Fail?',
				type: 'n8n-nodes-base.if',
				typeVersion: 2,
				position: [120, 200],
				parameters: {
					conditions: {
						options: { caseSensitive: true, leftValue: '', typeValidation: 'loose' },
						conditions: [{ id: 'ph-if-1', leftValue: '={{ $json.text }}', rightValue: 'fail', operator: { type: 'string', operation: 'contains' } }],
						combinator: 'and',
					},
					options: {},
				},
			},
			{ id: 'ph-stop', name: 'Fail', type: 'n8n-nodes-base.stopAndError', typeVersion: 1, position: [360, 300], parameters: { errorMessage: 'Asked to fail' } },
		);
		const agent = nodes.find((node: Json) => node.type === '@n8n/n8n-nodes-langchain.agent');
		workflow.connections[trigger.name] = { main: [[{ node: 'Asked to Fail?', type: 'main', index: 0 }]] };
		workflow.connections['Asked to Fail?'] = { main: [[{ node: 'Fail', type: 'main', index: 0 }], [{ node: agent.name, type: 'main', index: 0 }]] };
		const workflowId = String((await n8n.createWorkflow(workflow)).id);
		await n8n.activate(workflowId);
		await waitFor('the trigger to poll', async () => ((await emulator.calls('getUpdates')).length > 0 ? true : undefined), { limitMs: 60_000 });
		const chat = emulator.demo.privateChatId;
		const inChat = async (method: string): Promise<Json[]> => (await emulator.calls(method)).filter((call) => String(call.body.chat_id) === chat && call.status === 200);

		await emulator.userSends('Which plans do you have?', chat);
		const edit = await waitFor('the answer edited into the placeholder', async () => (await inChat('editMessageText'))[0], { limitMs: 90_000 });
		await n8n.endedExecutions(workflowId, 1);
		const posted = await inChat('sendMessage');
		assert.deepEqual(posted.map((call) => call.body.text), ['Thinking…'], 'one message posted: the placeholder');
		const placeholderId = Number(edit.body.message_id);
		assert.ok(Number(edit.at) > Number(posted[0].at), 'the edit came after the placeholder');
		assert.match(String(edit.body.text), /^<b>Our plans<\/b>/, "the edit carries the agent's answer, converted");
		const bot = (await emulator.history(chat)).filter((message) => message.from?.is_bot === true);
		assert.deepEqual(bot.map((message) => message.message_id), [placeholderId], 'the chat holds one bot message: the placeholder, now the answer');
		assert.match(String(bot[0].text), /^<b>Our plans<\/b>/);
		ctx.log(`a question → "Thinking…" (#${placeholderId}), then edited into the answer ("${String(edit.body.text).slice(0, 24)}…"); one message, nothing deleted`);

		await emulator.userSends('please fail', chat);
		const deleted = await waitFor('the failed run\'s placeholder deleted', async () => (await inChat('deleteMessage'))[0], { limitMs: 90_000 });
		const runs = await n8n.endedExecutions(workflowId, 2);
		assert.deepEqual(runs.map((run: Json) => run.status).sort(), ['error', 'success']);
		const placeholders = (await inChat('sendMessage')).map((call) => call.body.text);
		assert.deepEqual(placeholders, ['Thinking…', 'Thinking…'], 'the failing message got its placeholder, and nothing else was posted');
		assert.notEqual(Number(deleted.body.message_id), placeholderId, 'the answer was not deleted');
		const left = (await emulator.history(chat)).filter((message) => message.from?.is_bot === true);
		assert.deepEqual(left.map((message) => message.message_id), [placeholderId], 'the chat holds the answer only: the failed run left no "Thinking…"');
		ctx.log(`"please fail" → "Thinking…" (#${String(deleted.body.message_id)}), deleted once its run failed; the answer stays`);
	},
};

/** Placeholder While Thinking: after the others, so their numbers stay. */
export const PLACEHOLDER_AI_SCENARIOS: Scenario[] = [placeholderWhileThinking];

/**
 * Show Typing that lasts, in real n8n: the AI example (Polling Trigger with Show Typing → AI Agent →
 * Reply, version 4, Chat at its default) on a stand-in model that takes 20 s to answer (800 tokens at
 * 40 a second, unstreamed), then the same workflow on Service Bot Trigger version 3 (Confirm Delivery
 * at its default, When the Run Ends: the trigger learns the run's end). The service shows a chat
 * action for 5 s (the emulator as Telegram): shown once, "typing…" would be gone for 15 of the 20 s.
 * The person watches the emulator's chat page: it shows "is typing…" from the question to the answer.
 */
const typingThatLasts: Scenario = {
	name: 'Show Typing lasts for a 20 s AI answer: the polling trigger and the webhook trigger (version 3, its default) renew "typing…" until the answer, and the chat page shows it from the question to the answer',
	async run(ctx: ScenarioContext) {
		const { emulator, n8n, credentialId, modelCredentialId } = await withChatModel(ctx, { pace: { tokens: 800, tokensPerSecond: 40 } });
		const chat = emulator.demo.privateChatId;
		const watch = await watchChatPage(ctx, emulator.baseUrl, chat);
		const pollingWorkflow = exampleWithDefaultReply(credentialId, modelCredentialId);
		const pollingTriggerNode = (pollingWorkflow.nodes as Json[]).find((node: Json) => node.type === 'n8n-nodes-service-bot.serviceBotPollingTrigger');
		assert.equal(pollingTriggerNode?.parameters.options.showTyping, true, 'the AI example shows typing');

		// The same workflow on the webhook trigger, version 3 with Show Typing and nothing else set.
		const webhookWorkflow = exampleWithDefaultReply(credentialId, modelCredentialId);
		webhookWorkflow.name = `${String(webhookWorkflow.name)} (webhook)`;
		const nodes = webhookWorkflow.nodes as Json[];
		const index = nodes.findIndex((node: Json) => node.type === 'n8n-nodes-service-bot.serviceBotPollingTrigger');
		const old = nodes[index];
		nodes[index] = webhookTrigger({
			id: 'typing-webhook',
			name: 'Service Bot Trigger',
			position: old.position,
			credentialId,
			webhookId: '5c1d7e20-4b8a-4f3e-9d61-2a7b3c9e4f10',
			updates: ['message'],
			options: { showTyping: true },
			typeVersion: 3,
		});
		webhookWorkflow.connections['Service Bot Trigger'] = webhookWorkflow.connections[old.name];
		delete webhookWorkflow.connections[old.name];

		let asked = 0;
		const askAndWatch = async (label: string): Promise<string> => {
			asked += 1;
			const before = (await watch.samples()).length;
			const sentAt = Date.now();
			await watch.write(`Which plans do you have? (${label})`);
			// What the person sees halfway through the agent's 20 s.
			const halfway = sleep(10_000).then(async () => await watch.screenshot(`chat-page-typing-${label.split(' ')[0]}.png`));
			const answer = await waitFor(
				`the ${label} answer`,
				async () => (await emulator.history(chat)).filter((message) => message.from?.is_bot === true)[asked - 1],
				{ limitMs: 120_000 },
			);
			const answerAt = Number(answer.date) * 1000;
			// Samples: from the first "is typing…" after the question to the first showing the answer.
			const samples = await waitFor(
				`the page to show the ${label} answer`,
				async () => {
					const since = (await watch.samples()).slice(before);
					return since.some((sample) => sample.bots.length >= asked) ? since : undefined;
				},
				{ limitMs: 30_000 },
			);
			const start = samples.findIndex((sample) => sample.typing.includes('is typing'));
			const end = samples.findIndex((sample) => sample.bots.length >= asked);
			assert.ok(start >= 0 && end > start, `${label}: the page showed "is typing…" before the answer (samples ${start}..${end})`);
			const between = samples.slice(start, end);
			const shown = between.filter((sample) => sample.typing.includes('is typing')).length;
			const share = shown / between.length;
			const tookMs = samples[end].at - samples[start].at;
			// The answer's date is in whole seconds: "before" allows up to one second past it.
			const beforeAnswer = (await emulator.calls('sendChatAction')).filter(
				(call) => call.body.action === 'typing' && String(call.body.chat_id) === chat && Number(call.at) >= sentAt && Number(call.at) < answerAt + 1000,
			);
			// The stand-in took 20 s: shown once, the service's 5 s of "typing…" cover a quarter of it.
			assert.ok(tookMs >= 15_000, `${label}: the answer took the stand-in's 20 s (${tookMs} ms on the page)`);
			assert.ok(beforeAnswer.length >= 4, `${label}: "typing…" renewed while the agent thought: ${beforeAnswer.length} chat actions in ${tookMs} ms`);
			assert.ok(share >= 0.8, `${label}: the page showed "is typing…" in ${shown} of ${between.length} samples between the question and the answer`);
			await halfway;
			ctx.log(`${label}: "is typing…" on the page in ${shown} of ${between.length} samples (${(share * 100).toFixed(0)}%) over ${(tookMs / 1000).toFixed(1)} s until the answer; ${beforeAnswer.length} chat actions`);
			return answer.text as string;
		};

		const pollingId = String((await n8n.createWorkflow(pollingWorkflow)).id);
		await n8n.activate(pollingId);
		await waitFor('the trigger to poll', async () => ((await emulator.calls('getUpdates')).length > 0 ? true : undefined), { limitMs: 60_000 });
		const pollingAnswer = await askAndWatch('polling trigger');
		assert.match(pollingAnswer, /^<b>Our plans<\/b>/);
		await n8n.endedExecutions(pollingId, 1);
		await n8n.deactivate(pollingId);

		const webhookId = String((await n8n.createWorkflow(webhookWorkflow)).id);
		await n8n.activate(webhookId);
		await waitFor('the trigger to register its webhook', async () => (await emulator.webhook()) ?? undefined, { limitMs: 60_000 });
		const webhookAnswer = await askAndWatch('webhook trigger v3');
		assert.match(webhookAnswer, /^<b>Our plans<\/b>/);
		const runs = await n8n.endedExecutions(webhookId, 1);
		assert.equal(runs[0].status, 'success');
		assert.deepEqual(watch.scriptErrors(), [], 'the chat page ran without script errors');
	},
};

/** Show Typing that lasts: after the others, so their numbers stay. */
export const TYPING_AI_SCENARIOS: Scenario[] = [typingThatLasts];
