/**
 * What every delivery shares: one received update in, the item to emit or the reason to skip out.
 * The webhook (`webhook/receive.ts`) and the poller (`polling/poll.ts`) both call `deliverUpdate`,
 * so filters, the duplicate window and the output are one implementation.
 *
 * The update passes through `STAGES` in order; a stage either lets it go on or ends its delivery.
 */
import type { IDataObject } from 'n8n-workflow';

import type { AnswerDesk } from './answers';
import { handleAnswer } from './answers';
import { seenBefore } from './duplicates';
import type { Filters } from './filters';
import { filteredOut } from './filters';
import { outputItem } from './output';
import type { ReceivedUpdate } from './update';
import { parseUpdate } from './update';

export interface DeliverySettings extends Filters {
	readonly addHandyFields: boolean;
}

export interface DeliveryEnvironment {
	readonly settings: DeliverySettings;
	/** The key of this trigger's duplicate window: a one-way key of the bot and the trigger (`deliveryKey`). */
	readonly windowKey: string;
	/** For answers in the chat to a waiting Send and Wait for Response. */
	readonly answers: AnswerDesk;
}

export type Delivery =
	| { readonly run: true; readonly updateId: number; readonly item: IDataObject }
	| {
			readonly run: false;
			/** Absent when the body is not an update at all. */
			readonly updateId?: number;
			readonly reason: string;
	  };

/** A step of the delivery: `undefined` lets the update go on, a text ends its delivery (the reason). */
type Stage = (update: ReceivedUpdate, environment: DeliveryEnvironment) => string | undefined | Promise<string | undefined>;

const notAnAnswer: Stage = async (update, { answers }) => await handleAnswer(update, answers);

const selected: Stage = (update, { settings }) => filteredOut(update, settings);

const notSeenBefore: Stage = (update, { windowKey }) => (seenBefore(windowKey, update.updateId) ? 'it was already received' : undefined);

/**
 * The stages, in order. Answers to waiting executions go first: they never start this workflow,
 * whatever Trigger On and the allow-lists say (the signature proves them; the action node checks
 * who may answer), and n8n refuses a second resume of the same wait, so they need no duplicate
 * window either.
 */
const STAGES: readonly Stage[] = [notAnAnswer, selected, notSeenBefore];

export async function deliverUpdate(body: unknown, environment: DeliveryEnvironment): Promise<Delivery> {
	const parsed = parseUpdate(body);
	if (!parsed.ok) return { run: false, reason: `not an update: ${parsed.reason}` };
	const { update } = parsed;
	for (const stage of STAGES) {
		const reason = await stage(update, environment);
		if (reason !== undefined) return { run: false, updateId: update.updateId, reason };
	}
	return { run: true, updateId: update.updateId, item: outputItem(update, environment.settings.addHandyFields) };
}
