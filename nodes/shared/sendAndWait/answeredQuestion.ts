/**
 * A question of Send and Wait for Response once answered, as this n8n process knows it: which answer
 * counted (claimed while n8n resumes the execution, remembered once it has), and the update that shows
 * the answer in the question. The waiting execution (actions/sendAndWait/answerWebhook.ts) claims and
 * sends; the trigger (trigger/answerDelivery.ts) tells a later answer which one counted, and sends
 * again an update that could not be sent (protocol.ts says why both sides need this).
 */
import type { IDataObject } from 'n8n-workflow';

import { apiRequest } from '../transport/client';
import { failureOf, messageOf } from '../transport/failure';
import type { ServiceBotContext } from '../transport/types';

/**
 * The decisions this n8n process has seen resume an execution, so that a person whose answer lost
 * can be told which answer won (when the winning answer went through this process). Bounded.
 */
const DECISIONS_KEPT = 1000;
const decisions = new Map<string, string>();

function decisionKey(executionId: string, messageId: number): string {
	return `${executionId}:${messageId}`;
}

function keepBounded(map: Map<string, unknown>): void {
	if (map.size < DECISIONS_KEPT) return;
	const oldest = map.keys().next().value;
	if (oldest !== undefined) map.delete(oldest);
}

export function rememberDecision(executionId: string, messageId: number, decision: string): void {
	const key = decisionKey(executionId, messageId);
	claims.delete(key);
	keepBounded(decisions);
	decisions.set(key, decision);
}

/**
 * Answers this process is resuming and n8n has not accepted yet. n8n 1.x has no guard of its own:
 * two answers at once would both resume the execution (the rest of the workflow twice), until it has
 * marked the execution running (milliseconds; then it refuses answers before the node sees them). A
 * claim lapses after `CLAIM_LAPSE_MS`, so that a question whose resume failed can be answered again.
 */
const CLAIM_LAPSE_MS = 5_000;
const claims = new Map<string, { at: number; decision: string }>();

/**
 * Claims the question for an answer with `decision`. Returns the decision of the answer that holds or
 * resumed it instead, if any: then this answer must not resume the execution.
 */
export function claimQuestion(executionId: string, messageId: number, decision: string): string | undefined {
	const key = decisionKey(executionId, messageId);
	const taken = decisions.get(key) ?? claims.get(key);
	if (typeof taken === 'string') return taken;
	if (taken !== undefined && Date.now() - taken.at < CLAIM_LAPSE_MS) return taken.decision;
	claims.delete(key);
	keepBounded(claims);
	claims.set(key, { at: Date.now(), decision });
	return undefined;
}

export function rememberedDecision(executionId: string, messageId: number): string | undefined {
	return decisions.get(decisionKey(executionId, messageId));
}

/**
 * The edit that shows the answer in the question (or only removes its buttons), made when the answer
 * arrives and sent once n8n has accepted it.
 */
export interface QuestionUpdate {
	readonly method: 'editMessageText' | 'editMessageReplyMarkup';
	readonly body: IDataObject;
}

/** Which question an update is for, and who sends it, as log lines name it (`Service Bot "Ask"`). */
export interface QuestionRef {
	readonly executionId: string;
	readonly messageId: number;
	readonly by: string;
}

/**
 * An edit is sent again after a network error or a 5xx more patiently than a node's request: nobody
 * waits for it (the workflow has gone on), and a question that keeps its buttons after its answer
 * resumed the workflow misleads everyone in the chat. Repeating it cannot act twice.
 */
const QUESTION_UPDATE_RETRY = { transientRetries: 5, backoffBaseMs: 500 } as const;

/** Updates this process could not send: the next tap on such a question sends it again. Bounded. */
const unsentUpdates = new Map<string, QuestionUpdate>();

/** Telegram's answer to an edit that changes nothing: the question already shows the answer. */
function alreadyShown(error: unknown): boolean {
	const failure = failureOf(error);
	return failure?.kind === 'refused' && failure.status === 400 && /message is not modified/i.test(failure.description);
}

/**
 * Sends the question's update. A failure changes nothing else (the answer has resumed the workflow):
 * it is logged and kept, so that the next tap on the question sends it again (`resendQuestionUpdate`).
 */
export async function sendQuestionUpdate(ctx: ServiceBotContext, question: QuestionRef, update: QuestionUpdate): Promise<boolean> {
	const key = decisionKey(question.executionId, question.messageId);
	try {
		await apiRequest(ctx, update.method, update.body, { idempotent: true, retry: QUESTION_UPDATE_RETRY });
	} catch (error) {
		if (!alreadyShown(error)) {
			keepBounded(unsentUpdates);
			unsentUpdates.set(key, update);
			ctx.logger.warn(
				`${question.by}: the answer resumed the workflow, but the question (message ${question.messageId}) could not be updated: ${messageOf(error)}. It is updated at the next tap on it.`,
			);
			return false;
		}
	}
	unsentUpdates.delete(key);
	return true;
}

/**
 * Sends again the update of an answered question that this process could not send before (a tap on
 * its buttons shows they are still there). False when there is none.
 */
export async function resendQuestionUpdate(ctx: ServiceBotContext, question: QuestionRef): Promise<boolean> {
	const update = unsentUpdates.get(decisionKey(question.executionId, question.messageId));
	return update === undefined ? false : await sendQuestionUpdate(ctx, question, update);
}
