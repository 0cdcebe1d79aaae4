/**
 * Group Messages Within, for one polling trigger (poll.ts): a user's messages in one chat are gathered
 * until the user has been quiet for N seconds, then run as one execution. Clicks, commands and other
 * updates run at once (the trigger's own way). While messages are gathered, or their files fetched,
 * the first of them is `held`: the feed does not let the service drop it, so n8n stopping hard fetches
 * them again. Unpublishing runs them at once (`finish`), and so does the feed when they would hold
 * every workflow of the bot back (`release`).
 *
 * After a restart, the messages of a grouped run that n8n had been handed before (poll.ts stores its
 * runs with the emit) are gathered as that same run again (`replay`), never joined with a message the
 * user sent after them.
 *
 * What a run becomes (its item with its files, the stored offset and runs, the emit) is the trigger's:
 * `GroupHost`.
 */
import type { INodeExecutionData, Logger } from 'n8n-workflow';

import { pause } from '../shared/transport/client';
import { messageOf } from '../shared/transport/failure';
import { isCommand } from '../shared/trigger/output';
import type { ReceivedUpdate } from '../shared/trigger/update';

/** What grouping needs of its trigger. */
export interface GroupHost {
	readonly logger: Logger;
	/** For log lines. */
	readonly name: string;
	/** The run's item with the files of its messages (Download Files). */
	itemOf(updates: readonly ReceivedUpdate[]): Promise<INodeExecutionData>;
	/**
	 * Emits a run of gathered messages; `key`, the update its deduplication key names. `replayed`: a
	 * run stored before (a restart), not to be stored again.
	 */
	emitRun(updates: readonly ReceivedUpdate[], item: INodeExecutionData, key: number, replayed: boolean): void;
	/** Shows typing in the message's chat when the trigger's Show Typing is on. */
	showTyping(update: ReceivedUpdate): void;
	/** Forgets a stored run (its messages fetched again after a restart count as new from then on). */
	forgetRun(last: number): void;
}

/** One user's messages in one chat, gathered into one execution. */
interface MessageGroup {
	/** In the order they came; never empty. */
	readonly updates: ReceivedUpdate[];
	/** When it runs unless another message comes first (which moves it on). */
	deadline: number;
	/** Ends its waiter's wait early: it runs now (unpublishing, or the feed releases it). */
	readonly wake: AbortController;
	/** Resolves once it was emitted (or could not be). */
	readonly ran: Promise<void>;
	readonly hasRun: () => void;
}

function messageGroup(update: ReceivedUpdate, deadline: number): MessageGroup {
	let hasRun = (): void => {};
	const ran = new Promise<void>((resolve) => {
		hasRun = resolve;
	});
	return { updates: [update], deadline, wake: new AbortController(), ran, hasRun };
}

const lastOf = (group: MessageGroup): ReceivedUpdate => group.updates[group.updates.length - 1];

export class MessageGrouping {
	/** Messages being gathered, by chat and user; each has a waiter that runs it once the chat is quiet. */
	private readonly groups = new Map<string, MessageGroup>();
	/** The first update of each group whose files are being fetched before it runs. */
	private readonly preparing = new Map<number, MessageGroup>();
	/** After a restart: the messages of a stored run fetched again, by the run's last update, until it came. */
	private readonly replaying = new Map<number, ReceivedUpdate[]>();
	private readonly waiters = new Set<Promise<void>>();
	private readonly stopping = new AbortController();

	constructor(
		/** Group Messages Within, in seconds; 0: off. */
		private readonly seconds: number,
		private readonly host: GroupHost,
	) {}

	/** The first update of the messages gathered, being prepared or replayed: the service must keep it until they ran. */
	get held(): number | undefined {
		const firsts = [
			...[...this.groups.values()].map((group) => group.updates[0].updateId),
			...this.preparing.keys(),
			...[...this.replaying.values()].map((updates) => updates[0].updateId),
		];
		return firsts.length > 0 ? Math.min(...firsts) : undefined;
	}

	/**
	 * A user's message joins the messages they sent to this chat in the last N seconds (or starts
	 * them). Returns whether the update was gathered (otherwise it runs at once).
	 */
	gather(update: ReceivedUpdate): boolean {
		// A command runs at once, alone: it asks for something specific.
		if (this.seconds === 0 || update.type !== 'message' || isCommand(update) || update.chatId === undefined || update.userId === undefined) return false;
		const key = JSON.stringify([update.chatId, update.userId]);
		const deadline = Date.now() + this.seconds * 1000;
		const group = this.groups.get(key);
		if (group) {
			group.updates.push(update);
			group.deadline = deadline;
			return true;
		}
		this.groups.set(key, messageGroup(update, deadline));
		const waiter = this.runWhenQuiet(key).catch((error: unknown) => {
			this.host.logger.error(`${this.host.name}: could not run grouped messages: ${messageOf(error)}`);
		});
		this.waiters.add(waiter);
		void waiter.finally(() => this.waiters.delete(waiter));
		return true;
	}

	private async runWhenQuiet(key: string): Promise<void> {
		for (;;) {
			const group = this.groups.get(key);
			if (!group) return;
			const wait = group.deadline - Date.now();
			if (wait <= 0 || this.stopping.signal.aborted) break;
			await pause(wait, group.wake.signal);
		}
		if (!this.groups.has(key)) return;
		// Users who went quiet at the same moment (their messages came in one response) run in the
		// order the service sent their last messages, whichever waiter woke first.
		const now = Date.now();
		const due = [...this.groups.entries()]
			.filter(([other, group]) => other === key || group.deadline <= now)
			.sort(([, a], [, b]) => lastOf(a).updateId - lastOf(b).updateId);
		// They leave the gathered ones at once (a message coming meanwhile starts a new group, and a
		// waiter waking meanwhile finds them gone); while their files download they are still held, so
		// the service keeps their messages.
		for (const [dueKey, group] of due) {
			this.groups.delete(dueKey);
			this.preparing.set(group.updates[0].updateId, group);
		}
		for (const [, group] of due) {
			const last = lastOf(group);
			try {
				// Again as the gathered messages run: the typing shown for the first may have ended.
				this.host.showTyping(last);
				let item: INodeExecutionData;
				try {
					item = await this.host.itemOf(group.updates);
				} finally {
					this.preparing.delete(group.updates[0].updateId);
				}
				this.host.emitRun(group.updates, item, last.updateId, false);
			} finally {
				group.hasRun();
			}
		}
	}

	/**
	 * A message of a grouped run that n8n had been handed before it stopped (`run`: its update ids): it
	 * waits for the rest of that run, which runs again as it was. Returns whether the run ran now.
	 */
	async replay(run: number[], update: ReceivedUpdate): Promise<boolean> {
		const last = run[run.length - 1];
		const updates = this.replaying.get(last) ?? [];
		updates.push(update);
		this.replaying.set(last, updates);
		if (update.updateId !== last) return false;
		await this.runAgain(last);
		return true;
	}

	/** A run being replayed whose last message is before `updateId` will not be completed: it runs with what came. */
	async runIncompleteBefore(updateId: number): Promise<void> {
		for (const last of [...this.replaying.keys()]) if (last < updateId) await this.runAgain(last);
	}

	private async runAgain(last: number): Promise<void> {
		const updates = this.replaying.get(last);
		if (!updates) return;
		this.replaying.delete(last);
		const item = await this.host.itemOf(updates);
		this.host.emitRun(updates, item, last, true);
	}

	/** The feed cannot move on past them: the messages gathered from before `before` run now. */
	async release(before: number): Promise<void> {
		const now = Date.now();
		const due = [...this.groups.values()].filter((group) => group.updates[0].updateId < before);
		for (const group of due) {
			group.deadline = now;
			group.wake.abort();
		}
		if (due.length > 0) this.host.logger.debug(`${this.host.name}: running ${due.length} gathered group(s) now: the updates after them fill the service's largest answer`);
		// Groups whose files are downloading (no longer gathered, still held) run once they are there.
		const preparing = [...this.preparing.entries()].filter(([first]) => first < before).map(([, group]) => group);
		await Promise.all([...due, ...preparing].map(async (group) => await group.ran));
		// A run fetched again after a restart that spans more than one answer: what came runs now; the
		// rest then counts as new messages (run again rather than lost, should it not have run).
		for (const [last, updates] of [...this.replaying.entries()]) {
			if (updates[0].updateId >= before) continue;
			this.host.forgetRun(last);
			await this.runAgain(last);
		}
	}

	/** Unpublishing: the messages being gathered (or replayed) run now rather than never. */
	async finish(): Promise<void> {
		this.stopping.abort();
		for (const group of this.groups.values()) group.wake.abort();
		for (const last of [...this.replaying.keys()]) await this.runAgain(last);
		await Promise.all([...this.waiters]);
	}
}
