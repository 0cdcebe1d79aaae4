/**
 * Who holds a bot in this n8n: the workflows whose triggers receive its updates (published ones, and
 * tests in the editor), by bot, for the words of errors and warnings.
 *
 * The workflows of one n8n share a bot within one kind of trigger (webhook: listeners.ts; polling:
 * ServiceBotPollingTrigger/feed.ts), but a bot with a webhook cannot be polled: publishing a webhook
 * trigger on a bot a workflow polls would silently take the updates away from it (n8n shows
 * "Published" for both; only its log says more, a minute later). With this list, the trigger being
 * published fails at once, naming the workflows that hold the bot, where the user acts.
 *
 * Two workflows whose Trigger On both take clicks both run every click: the slower one's Answer
 * Callback Query is refused, as a click is answered once (`clickReceivers` names them where that
 * happens), and the same workflow tested in the editor beside its published copy does the same.
 *
 * n8n runs every published trigger() on its (leader) main, and registers webhooks there too
 * (`create`, `delete`; `checkExists` at a start where n8n calls it): so memory is where they meet.
 * Another n8n on the same bot is not in this list: the service's webhook or its 409 tells. Nor is a
 * worker's: what runs on a worker (in queue mode, production executions, and in n8n 3.0 the editor's
 * too) sees an empty list, and must not take it for "nobody holds the bot" (`runsPollingTriggers`).
 */
import type { Run, TriggerContext } from './identity';
import { botKeyOf } from './identity';
import { filterTypes } from './settings';

export type Holding = 'webhook' | 'polling';

export interface Holder {
	readonly holding: Holding;
	/** A published workflow, or a test in the editor. */
	readonly run: Run;
	readonly workflowId: string;
	readonly workflowName: string;
	readonly nodeName: string;
	/** Whether its Trigger On starts its workflow for button clicks. */
	readonly receivesClicks: boolean;
	/**
	 * Whether its workflow also answers them: it receives clicks and a node after the trigger is the
	 * Service Bot's Answer Callback Query. Two such workflows compete for each click's one answer.
	 */
	readonly answersClicks: boolean;
}

const holders = new Map<string, Holder[]>();

function botKey(token: string): string {
	return botKeyOf(token, 'held-bot');
}

/** Whether Trigger On takes button clicks (all types, or clicks among them). */
function takesClicks(ctx: TriggerContext): boolean {
	const types = filterTypes(ctx);
	return types.length === 0 || types.includes('callback_query');
}

/** The operation (its value is the method's name) of the action node that answers a click. */
const ANSWERS_A_CLICK = 'answerCallbackQuery';

/**
 * Whether a node after the trigger (any depth, enabled) is the Service Bot answering a click. n8n
 * hands a trigger its workflow's nodes after it, not which output they hang on: a workflow that
 * answers clicks at all counts.
 */
function answersClicksAfter(ctx: TriggerContext): boolean {
	return ctx
		.getChildNodes(ctx.getNode().name, { includeNodeParameters: true })
		.some((node) => !node.disabled && /(?:^|\.)serviceBot$/.test(node.type) && node.parameters?.operation === ANSWERS_A_CLICK);
}

/** A trigger as a holder of its bot, for a published workflow or a test. */
export function holderOf(ctx: TriggerContext, holding: Holding, run: Run): Holder {
	const receivesClicks = takesClicks(ctx);
	return {
		holding,
		run,
		workflowId: String(ctx.getWorkflow().id ?? ''),
		workflowName: ctx.getWorkflow().name ?? '',
		nodeName: ctx.getNode().name,
		receivesClicks,
		answersClicks: receivesClicks && answersClicksAfter(ctx),
	};
}

const same = (a: Holder, b: Holder): boolean => a.holding === b.holding && a.run === b.run && a.workflowId === b.workflowId && a.nodeName === b.nodeName;

/** The published workflows of this n8n that hold this bot (of one kind, or both), in the order they were published. */
export function holdersOf(token: string, holding?: Holding): readonly Holder[] {
	return (holders.get(botKey(token)) ?? []).filter((holder) => holder.run === 'production' && (holding === undefined || holder.holding === holding));
}

/**
 * Whether this process runs published polling triggers (of any bot). n8n runs every published
 * trigger() in one process: a regular n8n, or the leader main in queue mode; never a worker or a
 * webhook process. So a process that runs some is where every polling trigger of this n8n runs, and a
 * bot it does not poll, no process of this n8n polls. A process that runs none cannot tell: it may be
 * a worker (n8n 3.0 runs editor executions on workers in queue mode), or no workflow polls at all.
 */
export function runsPollingTriggers(): boolean {
	for (const list of holders.values()) if (list.some((holder) => holder.run === 'production' && holder.holding === 'polling')) return true;
	return false;
}

/** Every trigger of this n8n whose workflow runs for this bot's clicks: published ones and tests in the editor. */
export function clickReceivers(token: string): readonly Holder[] {
	return (holders.get(botKey(token)) ?? []).filter((holder) => holder.receivesClicks);
}

/** Records a published trigger as a holder (again: no effect); returns what forgets it. */
export function recordHolder(token: string, holder: Holder): () => void {
	const key = botKey(token);
	const known = holders.get(key) ?? [];
	if (!known.some((entry) => same(entry, holder))) holders.set(key, [...known, holder]);
	return () => forgetHolder(token, holder);
}

/** Whether this trigger holds the bot now (published, or its test listening). */
export function isHeld(token: string, holder: Holder): boolean {
	return (holders.get(botKey(token)) ?? []).some((entry) => same(entry, holder));
}

export function forgetHolder(token: string, holder: Holder): void {
	const key = botKey(token);
	const left = (holders.get(key) ?? []).filter((entry) => !same(entry, holder));
	if (left.length > 0) holders.set(key, left);
	else holders.delete(key);
}

function namesOf(list: readonly Holder[]): string[] {
	const name = (holder: Holder): string => {
		const named = holder.workflowName ? `"${holder.workflowName}"` : `with id ${holder.workflowId}`;
		return holder.run === 'test' ? `${named} (its test in the editor)` : named;
	};
	return [...new Set(list.map(name))];
}

/** `workflows "A" and "B" both` or `workflows "A", "B" and "C" all`, for "… run for its clicks". */
export function describeEach(list: readonly Holder[]): string {
	return `${describeWorkflows(list)} ${namesOf(list).length === 2 ? 'both' : 'all'}`;
}

/** `workflow "A"` or `workflows "A" and "B"` (each once; a workflow without a name by its id; a test marked), for messages. */
export function describeWorkflows(list: readonly Holder[]): string {
	const names = namesOf(list);
	if (names.length <= 1) return `workflow ${names[0] ?? ''}`.trim();
	return `workflows ${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** What to do when two workflows run for the same clicks, for messages (the option's name as the editor shows it). */
export const SHARED_CLICKS_ADVICE =
	'Give only one of them Callback Query (the button clicks) in Trigger On, or a Restrict to Chat IDs of its own, or answer the clicks in one of them only';

/**
 * The other workflows of this n8n that answer this bot's clicks (published or tested), for the
 * warning Answer Callback Query shows on its output in `workflowId`'s run. A workflow tested beside
 * its own published copy is what "Test vs production" says happens: not another one.
 */
export function othersAnsweringClicks(token: string, workflowId: string): readonly Holder[] {
	return clickReceivers(token).filter((holder) => holder.answersClicks && holder.workflowId !== workflowId);
}

/**
 * Says so in n8n's log when a trigger whose workflow answers clicks starts to hold the bot while
 * other workflows of this n8n answer them too: only then is it more than noise (a workflow that only
 * logs clicks takes nothing from the other). Publishing cannot show a warning in the editor (n8n
 * shows only a failure, and a trigger's run carries no hints): Answer Callback Query shows it on its
 * output (`othersAnsweringClicks`), and the refused answer names them where it happens.
 */
export function warnOfSharedClicks(ctx: TriggerContext, token: string, self: Holder): void {
	if (!self.answersClicks) return;
	const others = othersAnsweringClicks(token, self.workflowId);
	if (others.length === 0) return;
	const named = describeWorkflows(others);
	ctx.logger.warn(
		`Service Bot trigger "${self.nodeName}" of ${describeWorkflows([self])}: ${named} also ${named.startsWith('workflows ') ? 'answer' : 'answers'} this bot's button clicks; every click runs each of them, and a click can be answered only once. ${SHARED_CLICKS_ADVICE}`,
	);
}
