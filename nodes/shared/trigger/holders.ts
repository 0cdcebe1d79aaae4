/**
 * Who holds a bot in this n8n: the published workflows whose triggers receive its updates, by bot,
 * for the words of errors.
 *
 * The workflows of one n8n share a bot within one kind of trigger (webhook: listeners.ts; polling:
 * ServiceBotPollingTrigger/feed.ts), but a bot with a webhook cannot be polled: publishing a webhook
 * trigger on a bot a workflow polls would silently take the updates away from it (n8n shows
 * "Published" for both; only its log says more, a minute later). With this list, the trigger being
 * published fails at once, naming the workflows that hold the bot, where the user acts.
 *
 * n8n runs every published trigger() on its (leader) main, and registers webhooks there too
 * (`checkExists` at every start, `create`, `delete`): so memory is where they meet. Another n8n on
 * the same bot is not in this list: the service's webhook or its 409 tells.
 */
import type { TriggerContext } from './identity';
import { botKeyOf } from './identity';

export type Holding = 'webhook' | 'polling';

export interface Holder {
	readonly holding: Holding;
	readonly workflowId: string;
	readonly workflowName: string;
	readonly nodeName: string;
}

const holders = new Map<string, Holder[]>();

function botKey(token: string): string {
	return botKeyOf(token, 'held-bot');
}

/** A trigger as a holder of its bot. */
export function holderOf(ctx: TriggerContext, holding: Holding): Holder {
	return { holding, workflowId: String(ctx.getWorkflow().id ?? ''), workflowName: ctx.getWorkflow().name ?? '', nodeName: ctx.getNode().name };
}

const same = (a: Holder, b: Holder): boolean => a.holding === b.holding && a.workflowId === b.workflowId && a.nodeName === b.nodeName;

/** The published workflows of this n8n that hold this bot (of one kind, or both), in the order they were published. */
export function holdersOf(token: string, holding?: Holding): readonly Holder[] {
	return (holders.get(botKey(token)) ?? []).filter((holder) => holding === undefined || holder.holding === holding);
}

/** Records a published trigger as a holder (again: no effect); returns what forgets it. */
export function recordHolder(token: string, holder: Holder): () => void {
	const key = botKey(token);
	const known = holders.get(key) ?? [];
	if (!known.some((entry) => same(entry, holder))) holders.set(key, [...known, holder]);
	return () => forgetHolder(token, holder);
}

export function forgetHolder(token: string, holder: Holder): void {
	const key = botKey(token);
	const left = (holders.get(key) ?? []).filter((entry) => !same(entry, holder));
	if (left.length > 0) holders.set(key, left);
	else holders.delete(key);
}

/** `workflow "A"` or `workflows "A" and "B"` (each once; a workflow without a name by its id), for messages. */
export function describeWorkflows(list: readonly Holder[]): string {
	const names = [...new Set(list.map((holder) => (holder.workflowName ? `"${holder.workflowName}"` : `with id ${holder.workflowId}`)))];
	if (names.length <= 1) return `workflow ${names[0] ?? ''}`.trim();
	return `workflows ${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}
