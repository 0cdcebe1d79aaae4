/**
 * The feed's ledger alone (no I/O): random interleavings (seeded) of updates arriving at the service,
 * fetches handed out to the members, members taking their updates each at their own pace, gathering
 * (held) and emitting (unconfirmed) them, n8n confirming executions, members joining (with a stored
 * offset or where the feed is) and leaving, tests among them, and a slow member let go of (`letGo`). After every step, checked against what
 * the model itself recorded (not the ledger's own numbers): the offset the feed would send never tells
 * the service an update is done while a published member still needs it (unless it was let go of), each member is handed each
 * update at most once and in order, and a stopping feed acknowledges nothing a published member was
 * handed and has not taken.
 */
import type { LedgerMember } from '../../../nodes/ServiceBotPollingTrigger/ledger';
import { Ledger } from '../../../nodes/ServiceBotPollingTrigger/ledger';
import { seededRandom as random } from '../../harness/seeded-random';


const min = (ids: Iterable<number>): number | undefined => {
	const list = [...ids];
	return list.length > 0 ? Math.min(...list) : undefined;
};

/** A member as the model sees it: what it was handed, took, gathers and emitted. */
class Member implements LedgerMember {
	done = false;
	/** Handed, in the order handed. */
	readonly handed: number[] = [];
	/** Handed and not taken yet, in order. */
	readonly queue: number[] = [];
	readonly gathered = new Set<number>();
	readonly emitted = new Set<number>();
	/** Every update at or after it is one it has not been handed: it needs them. */
	next: number | undefined;
	leaving = false;
	/** Let go of below it (a slow download at a full answer): it runs those from memory. */
	floor = Number.NEGATIVE_INFINITY;

	constructor(
		readonly name: string,
		readonly test: boolean,
	) {}

	get held(): number | undefined {
		return min(this.gathered);
	}

	get unconfirmed(): number | undefined {
		return min(this.emitted);
	}

	/** What the service must keep for it. */
	needs(): number[] {
		return [...this.queue, ...this.gathered, ...this.emitted].filter((id) => id >= this.floor);
	}
}

function model(seed: number, steps: number): string[] {
	const next = random(seed);
	const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)];
	const ledger = new Ledger<Member>();
	const log: string[] = [`seed ${seed}`];
	/** The service: updates it holds (those at or after the last offset it was given). */
	let service: number[] = [];
	let nextId = 1000;
	let members: Member[] = [];
	let names = 0;
	const where = (): string => log.join(' → ');

	const check = (): void => {
		const problems: string[] = [];
		const offset = ledger.requestOffset();
		for (const member of members.filter((one) => !one.test)) {
			// Nothing a published member needs, nor anything it has not been handed yet, is acknowledged.
			const early = member.needs().filter((id) => offset !== undefined && id < offset);
			if (early.length > 0) problems.push(`offset ${offset} acknowledges ${early.join(', ')} that ${member.name} needs`);
			if (member.next !== undefined && offset !== undefined && offset > member.next) problems.push(`offset ${offset} is past ${member.next}, which ${member.name} was not handed yet`);
		}
		// Each member was handed each update once, in order.
		for (const member of members) {
			if (!member.handed.every((id, index) => index === 0 || id > member.handed[index - 1])) problems.push(`${member.name} was handed ${member.handed.join(', ')}`);
		}
		// A stopping feed acknowledges nothing a published member was handed and has not taken.
		const settled = ledger.settledPosition();
		const untaken = members.filter((one) => !one.test).flatMap((one) => one.queue);
		if (settled !== undefined && untaken.some((id) => id < settled)) problems.push(`stopping would acknowledge below ${settled}, past untaken ${untaken.join(', ')}`);
		if (ledger.busy() !== members.some((one) => one.queue.length > 0)) problems.push(`busy() says ${ledger.busy()}`);
		if (problems.length > 0) expect({ where: where(), problems }).toEqual({ where: where(), problems: [] });
	};

	const join = (test: boolean): void => {
		const member = new Member(`${test ? 'test' : 'workflow'} ${++names}`, test);
		// A published workflow published before has a stored offset (at most where the service is, or an old one).
		const stored = !test && next() < 0.5 ? (service[0] ?? nextId) - Math.floor(next() * 3) : undefined;
		ledger.join(member, stored);
		member.next = ledger.nextOf(member);
		members.push(member);
		log.push(`join ${member.name}${stored !== undefined ? ` at ${stored}` : ''}`);
	};

	join(false);
	for (let step = 0; step < steps; step++) {
		const busy = members.filter((member) => member.queue.length > 0);
		const gathering = members.filter((member) => member.gathered.size > 0);
		const emitting = members.filter((member) => member.emitted.size > 0);
		const op = pick([
			'arrive',
			'arrive',
			'fetch',
			'fetch',
			...(busy.length > 0 ? ['take', 'take', 'take'] : []),
			...(gathering.length > 0 ? ['run gathered'] : []),
			...(emitting.length > 0 ? ['confirm', 'confirm'] : []),
			...(members.length < 4 ? ['join', 'join test'] : []),
			...(members.some((member) => !member.leaving) ? ['leave'] : []),
			...(members.some((member) => member.leaving) ? ['gone'] : []),
			...(busy.some((member) => !member.test) ? ['let go'] : []),
		]);
		if (op === 'arrive') {
			const count = 1 + Math.floor(next() * 3);
			for (let n = 0; n < count; n++) service.push(nextId++);
			log.push(`${count} arrive`);
		} else if (op === 'fetch') {
			const offset = ledger.requestOffset();
			// The service drops what the offset acknowledges, and answers what it still holds from there.
			if (offset !== undefined) service = service.filter((id) => id >= offset);
			ledger.acknowledged = offset;
			const answer = service.slice(0, 1 + Math.floor(next() * 5));
			for (const id of answer) {
				const { takers } = ledger.handOut(id);
				for (const member of takers) {
					if (member.leaving) expect({ where: where(), handedWhileLeaving: member.name }).toEqual({ where: where(), handedWhileLeaving: undefined });
					if (member.handed.includes(id)) expect({ where: where(), member: member.name, handedTwice: id }).toEqual({ where: where(), member: member.name, handedTwice: undefined });
					member.handed.push(id);
					member.queue.push(id);
					member.next = id + 1;
				}
			}
			log.push(`fetch from ${offset ?? 'start'}: ${answer.length}`);
		} else if (op === 'take') {
			const member = pick(busy);
			const id = member.queue.shift()!;
			const what = next();
			// A test shows its first update and is done; a workflow gathers it, emits it, or skips it (filters).
			if (member.test) member.done = true;
			else if (what < 0.3) member.gathered.add(id);
			else if (what < 0.8) member.emitted.add(id);
			ledger.taken(member, id);
			log.push(`${member.name} takes ${id}`);
		} else if (op === 'run gathered') {
			const member = pick(gathering);
			for (const id of member.gathered) member.emitted.add(id);
			member.gathered.clear();
			log.push(`${member.name} runs what it gathered`);
		} else if (op === 'confirm') {
			const member = pick(emitting);
			const id = pick([...member.emitted]);
			member.emitted.delete(id);
			log.push(`${member.name}: ${id} confirmed`);
		} else if (op === 'join' || op === 'join test') {
			join(op === 'join test');
		} else if (op === 'let go') {
			const member = pick(busy.filter((one) => !one.test));
			const floor = (member.next ?? nextId) - Math.floor(next() * 3);
			ledger.letGo(member, floor);
			member.floor = Math.max(member.floor, floor);
			log.push(`${member.name} let go below ${floor}`);
		} else if (op === 'leave') {
			// Leaving: handed nothing more from now on; it still counts until it took what it had (`gone`).
			const member = pick(members.filter((one) => !one.leaving));
			ledger.leaving(member);
			member.leaving = true;
			log.push(`${member.name} leaves`);
		} else {
			const member = pick(members.filter((one) => one.leaving));
			for (const id of member.queue.splice(0)) {
				if (!member.test) member.emitted.add(id);
				ledger.taken(member, id);
			}
			for (const id of member.gathered) member.emitted.add(id);
			member.gathered.clear();
			check();
			ledger.remove(member);
			members = members.filter((one) => one !== member);
			log.push(`${member.name} is gone`);
			if (members.length === 0) join(false);
		}
		check();
	}
	return log;
}

describe('the feed’s ledger, random interleavings (a model)', () => {
	test.each(Array.from({ length: 40 }, (_, index) => index + 1))(
		'seed %i: the offset never acknowledges an update a published member still needs or was not handed; each member gets each update once, in order',
		(seed) => {
			expect(model(seed, 300).length).toBeGreaterThan(1);
		},
	);

	test('a member that joins without a stored offset starts where the feed is; one with a stored offset starts there', () => {
		const ledger = new Ledger<Member>();
		const first = new Member('first', false);
		ledger.join(first, 10);
		ledger.handOut(10);
		ledger.handOut(11);
		const later = new Member('later', false);
		ledger.join(later, undefined);
		expect(ledger.nextOf(later)).toBe(12);
		const restarted = new Member('restarted', false);
		ledger.join(restarted, 5);
		expect(ledger.requestOffset()).toBe(5);
	});

	test('one member’s slow take holds back only the acknowledgement: the others are handed the updates after it', () => {
		const ledger = new Ledger<Member>();
		const slow = new Member('downloads', false);
		const fast = new Member('texts', false);
		ledger.join(slow, 1);
		ledger.join(fast, 1);
		for (const id of [1, 2, 3]) expect(ledger.handOut(id).takers).toEqual([slow, fast]);
		for (const id of [1, 2, 3]) ledger.taken(fast, id);
		expect(ledger.requestOffset()).toBe(1);
		expect(ledger.busy(fast)).toBe(false);
		expect(ledger.busy(slow)).toBe(true);
		// Fetched again from 1: nobody is handed 1–3 a second time, both get 4.
		for (const id of [1, 2, 3]) expect(ledger.handOut(id).takers).toEqual([]);
		expect(ledger.handOut(4).takers).toEqual([slow, fast]);
		ledger.taken(fast, 4);
		for (const id of [1, 2, 3, 4]) ledger.taken(slow, id);
		expect(ledger.requestOffset()).toBe(5);
	});
});
