/**
 * The feed's book of offsets (feed.ts), without any I/O: where the feed is, what the service was
 * told, and for each member what it was handed, what it has not taken yet, and what it still needs
 * the service to keep. The feed asks with `requestOffset()`; the rule it keeps (tested alone in
 * ledger.test.ts): the offset sent never tells the service an update is done while a published
 * member still needs it — one handed to it but not taken yet, one it holds (messages it gathers), one
 * whose execution n8n has not confirmed, or one not handed to it yet.
 *
 * Members take their updates each in their own order (a queue per member, feed.ts), so one member's
 * download never delays another: the ledger records an update as handed out when it enters a
 * member's queue (`handOut`) and as taken when the member is done with it (`taken`).
 */

/** What the ledger reads of a member: the member decides these itself (poll.ts). */
export interface LedgerMember {
	/** The editor's test: never holds the offset back, never brings answers. */
	readonly test: boolean;
	/** Whether it wants no more updates (a test that showed its update). */
	readonly done: boolean;
	/** The first update it took but has not run yet (messages it gathers): the service must keep it. */
	readonly held: number | undefined;
	/** The first update it emitted whose execution n8n has not confirmed yet: the service keeps it too. */
	readonly unconfirmed: number | undefined;
}

/** One member's line in the book. */
export interface LedgerEntry {
	/** The update it needs next; below it, updates are not handed to it (again). */
	next: number | undefined;
	/** Updates handed to it and not taken yet, in order (their ids). */
	readonly queued: number[];
	/** Entries without an update id handed to it and not taken yet. */
	unnumbered: number;
	/** It is leaving: it gets nothing more, and still counts until it is gone. */
	leaving: boolean;
	/**
	 * What it holds below this no longer holds the offset back (`letGo`): it keeps those updates in
	 * memory and runs them when it can.
	 */
	floor: number | undefined;
}

/** The result of handing out one update. */
export interface HandOut<M> {
	/** The members that take it, in the order they joined. */
	readonly takers: M[];
	/** The published member that brings an answer to a waiting execution it carries, if any. */
	readonly bringer: M | undefined;
}

const smallest = (ids: ReadonlyArray<number | undefined>): number | undefined => {
	const defined = ids.filter((id): id is number => id !== undefined);
	return defined.length > 0 ? Math.min(...defined) : undefined;
};

export class Ledger<M extends LedgerMember> {
	/** In the order they joined. */
	private readonly entries = new Map<M, LedgerEntry>();
	/** Every update below it was handed to the published members (or acknowledged). */
	position: number | undefined;
	/** One past the highest update handed out: how far an answer from a held-back offset reaches. */
	seen: number | undefined;
	/** The offset the service was last given, i.e. what it knows is done. */
	acknowledged: number | undefined;
	/** Answers to waiting executions in updates below it were brought (or left) by a published member. */
	private answered: number | undefined;

	get members(): M[] {
		return [...this.entries.keys()];
	}

	/** The published members, in the order they joined. */
	get published(): M[] {
		return this.members.filter((member) => !member.test);
	}

	has(member: M): boolean {
		return this.entries.has(member);
	}

	/** Adds a member: at `next` (its stored offset), else where the feed is. */
	join(member: M, next: number | undefined): void {
		this.entries.set(member, { next: next ?? this.position, queued: [], unnumbered: 0, leaving: false, floor: undefined });
	}

	/** Takes a member over from another feed's book (a token switch), with what it still has to take. */
	adopt(member: M, entry: LedgerEntry): void {
		this.entries.set(member, entry);
	}

	/** Its line (for `adopt`), or undefined when it is not a member. */
	entryOf(member: M): LedgerEntry | undefined {
		return this.entries.get(member);
	}

	nextOf(member: M): number | undefined {
		return this.entries.get(member)?.next;
	}

	/** It gets nothing more from now on; what it was handed still counts until `remove`. */
	leaving(member: M): void {
		const entry = this.entries.get(member);
		if (entry) entry.leaving = true;
	}

	remove(member: M): void {
		this.entries.delete(member);
	}

	/** Whether a member has updates handed to it that it has not taken yet. */
	busy(member?: M): boolean {
		const entries = member ? [this.entries.get(member)].filter((entry): entry is LedgerEntry => entry !== undefined) : [...this.entries.values()];
		return entries.some((entry) => entry.queued.length > 0 || entry.unnumbered > 0);
	}

	/**
	 * Hands out one update: to every member that wants more and has not had it (an update without an
	 * id to every one); the first published taker brings an answer it carries, unless one was brought
	 * for it already (an update offered again to a member that joined behind the others).
	 */
	handOut(updateId: number | undefined): HandOut<M> {
		const takers = [...this.entries.entries()]
			.filter(([member, entry]) => !member.done && !entry.leaving && (updateId === undefined || entry.next === undefined || updateId >= entry.next))
			.map(([member]) => member);
		const bringer = updateId === undefined || updateId >= (this.answered ?? 0) ? takers.find((member) => !member.test) : undefined;
		for (const member of takers) {
			const entry = this.entries.get(member)!;
			if (updateId === undefined) {
				entry.unnumbered++;
				continue;
			}
			entry.queued.push(updateId);
			entry.next = Math.max(entry.next ?? 0, updateId + 1);
		}
		if (updateId !== undefined) {
			this.seen = Math.max(this.seen ?? 0, updateId + 1);
			if (bringer) {
				this.answered = updateId + 1;
				this.position = Math.max(this.position ?? 0, updateId + 1);
			}
		}
		return { takers, bringer };
	}

	/** A member is done with an update it was handed (it ran, gathered or skipped it). */
	taken(member: M, updateId: number | undefined): void {
		const entry = this.entries.get(member);
		if (!entry) return;
		if (updateId === undefined) {
			entry.unnumbered = Math.max(entry.unnumbered - 1, 0);
			return;
		}
		const index = entry.queued.indexOf(updateId);
		if (index >= 0) entry.queued.splice(index, 1);
	}

	/**
	 * The first update a member still needs the service to keep (undefined: none known). Below its
	 * floor nothing counts: a hold below it counts as the floor (what it holds above is not known).
	 */
	need(member: M): number | undefined {
		return this.firstKept(member, true);
	}

	/**
	 * What a member that leaves cleanly would have taken next: its need, except its executions not
	 * confirmed yet, which n8n finishes as it stops (counted as run, as a clean stop acknowledges them).
	 */
	departingNeed(member: M): number | undefined {
		return this.firstKept(member, false);
	}

	private firstKept(member: M, unconfirmedToo: boolean): number | undefined {
		const entry = this.entries.get(member);
		if (!entry) return undefined;
		const floor = entry.floor ?? Number.NEGATIVE_INFINITY;
		const atLeastFloor = (id: number | undefined): number | undefined => (id === undefined ? undefined : Math.max(id, floor));
		return smallest([entry.queued.find((id) => id >= floor), entry.next, atLeastFloor(member.held), unconfirmedToo ? atLeastFloor(member.unconfirmed) : undefined]);
	}

	/**
	 * A member whose own work (a download) would hold every other member back for good: what it was
	 * handed or holds below `before` no longer holds the offset back. It still runs those updates, from
	 * memory: n8n killed before it did loses them (the feed's bound, `fullAnswerHoldMs`).
	 */
	letGo(member: M, before: number): void {
		const entry = this.entries.get(member);
		if (entry) entry.floor = Math.max(entry.floor ?? before, before);
	}

	/**
	 * The offset to ask with: the smallest need of the published members, and never beyond
	 * `keepFrom` (a feed's start grace); without published members, the position.
	 */
	requestOffset(keepFrom?: number): number | undefined {
		const needs = this.published.map((member) => this.need(member)).filter((need): need is number => need !== undefined);
		const offset = needs.length > 0 ? Math.min(...needs) : this.position;
		return keepFrom !== undefined && offset !== undefined ? Math.min(offset, keepFrom) : offset;
	}

	/**
	 * What a stopping feed may tell the service: the position, but not past an update a published
	 * member was handed and has not taken (it did not run).
	 */
	settledPosition(): number | undefined {
		const queued = this.published.map((member) => this.entries.get(member)?.queued[0]);
		return smallest([this.position, ...queued]);
	}

	/** Whether anything below `seen` is kept back: the next request brings updates handed out already. */
	holdsBack(keepFrom?: number): boolean {
		const offset = this.requestOffset(keepFrom);
		return offset !== undefined && this.seen !== undefined && offset < this.seen;
	}

	/** The service was told that every update below `offset` is done. */
	acknowledge(offset: number): void {
		this.acknowledged = offset;
		this.position = Math.max(this.position ?? 0, offset);
	}
}
