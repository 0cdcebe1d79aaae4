/**
 * The demo content that `npm run dev` imports into n8n, and that the e2e tests run: a credential
 * pointing at the emulator and the example workflows in ./workflows.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const DEMO_CREDENTIAL_ID = 'SvcBotDemoCred01';
export const DEMO_CREDENTIAL_NAME = 'Service Bot (emulator)';

/** Example workflows: file name and the id it is imported with. */
export const WORKFLOWS = {
	/** Manual trigger → Service Bot "Send Message" with an inline keyboard to the demo chat. */
	sendKeyboard: { file: 'send-keyboard.json', id: 'SvcBotSendKeybd1' },
	/** Service Bot Trigger (messages and clicks) → Switch → echo with buttons | answer + edit. */
	demoBot: { file: 'demo-bot.json', id: 'SvcBotDemoBot001' },
	/** Manual trigger → Service Bot "Send and Wait for Response" (approval, in the chat) → "Send Message" with the decision. */
	approval: { file: 'approval.json', id: 'SvcBotApproval01' },
	/**
	 * The README's first bot, unpublished: Service Bot Trigger version 3 (Separate Outputs by Kind) → a
	 * message gets a keyboard, a file is described, /start a welcome, a click its answer and the clicked
	 * message edited (no Switch, no If, no trigger named).
	 */
	firstBot: { file: 'first-bot.json', id: 'SvcBotFirstBot01' },
} as const;

/** The demo bot's trigger node: its webhook path is `webhook/<webhookId>/webhook`. */
export const DEMO_TRIGGER = { name: 'Service Bot Trigger', webhookId: '7c1e9a52-4f3b-4d8e-b6a0-2e5d9c8f1b37' };

export interface DemoIds {
	baseUrl: string;
	token: string;
	privateChatId: string;
}

/** The credential, as `n8n import:credentials` takes it (n8n encrypts `data` on import). */
export function demoCredential(demo: DemoIds): Record<string, unknown> {
	return {
		id: DEMO_CREDENTIAL_ID,
		name: DEMO_CREDENTIAL_NAME,
		type: 'serviceBotApi',
		data: { accessToken: demo.token, baseUrl: demo.baseUrl },
	};
}

/** A workflow of ./workflows with its placeholders (`__DEMO_CHAT_ID__`) filled in. */
export function demoWorkflow(key: keyof typeof WORKFLOWS, demo: DemoIds): Record<string, unknown> {
	const text = readFileSync(join(__dirname, 'workflows', WORKFLOWS[key].file), 'utf8');
	return JSON.parse(text.split('__DEMO_CHAT_ID__').join(demo.privateChatId)) as Record<string, unknown>;
}

/**
 * The AI support bot example: Polling Trigger → n8n's AI Agent (OpenAI Chat Model, Simple Memory, the
 * Service Bot as a tool behind Human Review) → Send Message. Its chat model is the local stand-in (test/real-n8n/chat-model.ts),
 * reached through an OpenAI credential whose Base URL points at it.
 */
export const AI_EXAMPLE = { file: 'ai-support-bot.json', id: 'SvcBotAiSupport1' } as const;
export const MODEL_CREDENTIAL_ID = 'SvcBotChatModel1';
export const MODEL_CREDENTIAL_NAME = 'Chat model (local stand-in)';

/** n8n's OpenAI credential, pointed at the stand-in (`baseUrl` ends in /v1). */
export function modelCredential(baseUrl: string): Record<string, unknown> {
	return { id: MODEL_CREDENTIAL_ID, name: MODEL_CREDENTIAL_NAME, type: 'openAiApi', data: { apiKey: 'stand-in', url: baseUrl } };
}

/** Service Bot Trigger (version 3, Separate Outputs by Kind) → a text reversed on Messages; on Files, `file_summary` (a photo's width × height and size, a document's name and size). */
export const FILES_EXAMPLE = { file: 'files-bot.json', id: 'SvcBotFilesBot01' } as const;

/**
 * The voice bot, for voice notes and texts: Service Bot Trigger (version 3, Download Files, Separate
 * Outputs by Kind) → Files → the OpenAI node's Transcribe a Recording → AI Agent; Messages and
 * Commands → the AI Agent directly. The agent is on *Define below* `{{ $json.text }}` (the
 * transcription's `text`, or the trigger item's), with an OpenAI Chat Model at its defaults (version
 * 1.3: the Responses API) and Simple Memory whose Session ID is mapped from the trigger (the
 * transcription's item has no `sessionId`) → Send Message to the trigger's chat. Both OpenAI nodes
 * use the stand-in.
 */
export const VOICE_EXAMPLE = { file: 'voice-bot.json', id: 'SvcBotVoiceBot01' } as const;

/**
 * The README's approval asked from the chat, nothing mapped: Service Bot Trigger at its defaults →
 * Send and Wait for Response ("Approve this {{ $json.text }}?", Approval at its defaults) → Send Message
 * with the outcome; every Chat at From Trigger.
 */
export const APPROVAL_EXAMPLE = { file: 'approval-from-chat.json', id: 'SvcBotApprovChat' } as const;

/** An example workflow of ./workflows that has no placeholders, as saved. */
export function exampleWorkflow(example: { file: string }): Record<string, unknown> {
	return JSON.parse(readFileSync(join(__dirname, 'workflows', example.file), 'utf8')) as Record<string, unknown>;
}

export function aiExampleWorkflow(): Record<string, unknown> {
	return exampleWorkflow(AI_EXAMPLE);
}
