/**
 * What every delivery shares: one received update in; the item to emit, an answer to bring, or the
 * reason to skip out. The webhook (`ServiceBotTrigger/webhook/receive.ts`) and the poller (`ServiceBotPollingTrigger/poll.ts`) both call
 * `deliverUpdate`, so filters, the duplicate window and the output are one implementation.
 */
import type { IDataObject } from 'n8n-workflow';

import type { AnswerDesk, ChatAnswer } from './answerDelivery';
import { recogniseAnswer } from './answerDelivery';
import { seenBefore } from './duplicates';
import type { FileSettings } from './files';
import type { Filters } from './filters';
import { filteredOut } from './filters';
import type { OutputShape } from './output';
import { outputItem } from './output';
import type { ReceivedUpdate } from './update';
import { parseUpdate } from './update';

export interface DeliverySettings extends Filters, OutputShape, FileSettings {
	/** Show "typing…" in the chat of a message that starts the workflow (typing.ts). */
	readonly showTyping: boolean;
}

export interface DeliveryEnvironment {
	readonly settings: DeliverySettings;
	/** The key of this trigger's duplicate window: a one-way key of the bot and the trigger (`deliveryKey`). */
	readonly windowKey: string;
	/** For answers in the chat to a waiting Send and Wait for Response. */
	readonly answers: AnswerDesk;
}

export type Delivery =
	| { readonly run: true; readonly updateId: number; readonly item: IDataObject; readonly chatId?: string; readonly update: ReceivedUpdate }
	/** An answer to a waiting execution: the caller brings it (the poller first acknowledges it). */
	| { readonly run: false; readonly updateId: number; readonly answer: ChatAnswer }
	| {
			readonly run: false;
			/** Absent when the body is not an update at all. */
			readonly updateId?: number;
			readonly reason: string;
			/** An answer to a waiting execution that this trigger leaves to the one that brings answers. */
			readonly leftAnswer?: true;
	  };

const LEFT_TO_PUBLISHED = 'it is an answer to a waiting execution; the published trigger brings it';

/**
 * The update's way, in order: an update received before is not handled again (an answer neither: the
 * person who answered must not be told their question was answered already); an answer to a waiting
 * execution never starts this workflow, whatever Trigger On and the allow-lists say (the waiting
 * execution checks who may answer); any other update starts it when the filters select it.
 */
export async function deliverUpdate(body: unknown, environment: DeliveryEnvironment): Promise<Delivery> {
	const parsed = parseUpdate(body);
	if (!parsed.ok) return { run: false, reason: `not an update: ${parsed.reason}` };
	const { update } = parsed;
	const { updateId } = update;
	if (seenBefore(environment.windowKey, updateId)) return { run: false, updateId, reason: 'it was already received' };
	const answer = await recogniseAnswer(update, environment.answers);
	if (answer) return environment.answers.brings ? { run: false, updateId, answer } : { run: false, updateId, reason: LEFT_TO_PUBLISHED, leftAnswer: true };
	const reason = filteredOut(update, environment.settings);
	if (reason !== undefined) return { run: false, updateId, reason };
	return { run: true, updateId, item: outputItem(update, environment.settings), chatId: update.chatId, update };
}
