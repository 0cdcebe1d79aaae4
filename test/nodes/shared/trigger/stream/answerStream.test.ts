/**
 * The streamer's logic on a fake clock against a fake service: answers arrive in chunks at random
 * times, two answers stream into one chat at once, the service takes random time and answers 429
 * with a retry_after at random. Whatever the interleaving (seeded, so a failure can be run again):
 * requests in a chat start at least the interval apart and never before a retry_after has passed,
 * and each answer ends shown exactly as Send Message would show the whole answer (answerParts of
 * the whole text, written here from the spec's parse mode: HTML).
 */
import type { Outcome, StreamIo, StreamRequest } from '../../../../../nodes/shared/trigger/stream/answerStream';
import { AnswerStream, Bell, ChatPace, runStream } from '../../../../../nodes/shared/trigger/stream/answerStream';
import { answerParts } from '../../../../../nodes/shared/trigger/stream/answerText';
import { seededRandom } from '../../../../harness/seeded-random';

/** A clock that moves only when every promise has settled: the next timer's time. */
class FakeClock {
	time = 0;
	private readonly timers: Array<{ at: number; resolve: () => void; done: boolean }> = [];

	now = (): number => this.time;

	pause = async (ms: number, signal?: AbortSignal): Promise<void> =>
		await new Promise<void>((resolve) => {
			if (signal?.aborted) return resolve();
			const timer = { at: this.time + Math.max(0, ms), resolve, done: false };
			this.timers.push(timer);
			signal?.addEventListener('abort', () => {
				timer.done = true;
				resolve();
			});
		});

	/** Lets every ready promise run, then fires the earliest timer; false when none is left. */
	async step(): Promise<boolean> {
		for (let round = 0; round < 50; round++) await Promise.resolve();
		const waiting = this.timers.filter((timer) => !timer.done).sort((a, b) => a.at - b.at);
		if (waiting.length === 0) return false;
		const [first] = waiting;
		first.done = true;
		this.time = Math.max(this.time, first.at);
		first.resolve();
		return true;
	}
}

const PIECES = ['## Plan\n\n', '**bold _it', 'alic_** ', '`co', 'de` ', '[li', 'nk](https://e.org) ', '😀', ' & <x> ', '```js\nlet a = 1 < 2;\n', '```\n', '| a | b |\n|--|--|\n| 1 | 2 |\n\n', 'plain words and more words. '];

interface Call {
	chat: string;
	at: number;
	method: string;
}

const INTERVAL_MS = 1000;
const LIMIT = 300;

async function simulate(seed: number): Promise<{ calls: Call[]; holds: Array<{ chat: string; from: number; until: number }>; answers: string[]; shown: Array<readonly unknown[]> }> {
	const random = seededRandom(seed);
	const clock = new FakeClock();
	const calls: Call[] = [];
	const holds: Array<{ chat: string; from: number; until: number }> = [];
	let nextMessageId = 1;
	const paces = new Map<string, ChatPace>();
	const streams = ['chat-a', 'chat-a', 'chat-b'].map((chat) => {
		const length = 1 + Math.floor(random() * 60);
		const answer = Array.from({ length }, () => PIECES[Math.floor(random() * PIECES.length)]).join('');
		const stream = new AnswerStream(LIMIT);
		const bell = new Bell();
		const pace = paces.get(chat) ?? new ChatPace();
		paces.set(chat, pace);
		const io: StreamIo = {
			now: clock.now,
			pause: clock.pause,
			async call(request: StreamRequest): Promise<Outcome> {
				calls.push({ chat, at: clock.now(), method: request.method });
				await clock.pause(Math.floor(random() * 400));
				if (random() < 0.15) {
					const seconds = 1 + Math.floor(random() * 3);
					holds.push({ chat, from: clock.now(), until: clock.now() + seconds * 1000 });
					return { kind: 'wait', seconds };
				}
				return { kind: 'done', messageId: request.method === 'sendMessage' ? nextMessageId++ : undefined };
			},
		};
		const feeding = (async () => {
			let rest = answer;
			while (rest.length > 0) {
				await clock.pause(Math.floor(random() * 700));
				const size = 1 + Math.floor(random() * 12);
				stream.append(rest.slice(0, size));
				rest = rest.slice(size);
				bell.ring();
			}
			stream.close();
			bell.ring();
		})();
		const running = runStream(stream, pace, io, bell, { intervalMs: INTERVAL_MS, idleCapMs: 600_000 });
		return { answer, stream, all: Promise.all([feeding, running]) };
	});
	let settled = false;
	void Promise.all(streams.map((entry) => entry.all)).then(() => (settled = true));
	while (!settled && (await clock.step()));
	expect(settled).toBe(true);
	return { calls, holds, answers: streams.map((entry) => entry.answer), shown: streams.map((entry) => entry.stream.messages) };
}

test.each(Array.from({ length: 40 }, (_, index) => index + 1))('seed %i: at most one request per chat per second, none inside a retry_after, each answer ends as the whole answer', async (seed) => {
	const { calls, holds, answers, shown } = await simulate(seed);
	for (const chat of ['chat-a', 'chat-b']) {
		const starts = calls.filter((call) => call.chat === chat).map((call) => call.at);
		const gaps = starts.slice(1).map((at, index) => at - starts[index]);
		expect(gaps.filter((gap) => gap < INTERVAL_MS)).toEqual([]);
		// A 429 answered at `from`: no request of that chat starts after it before its retry_after has passed.
		const inside = holds.filter((hold) => hold.chat === chat).flatMap((hold) => calls.filter((call) => call.chat === chat && call.at > hold.from && call.at < hold.until));
		expect(inside).toEqual([]);
	}
	for (const [index, answer] of answers.entries()) expect(shown[index]).toEqual(answerParts(answer, LIMIT));
});

test('an answer refused as HTML goes on as its visible text; a message posted without an ID stops the stream instead of posting twice', async () => {
	const clock = new FakeClock();
	const stream = new AnswerStream();
	stream.append('**bold** & more');
	stream.close();
	const sent: StreamRequest[] = [];
	const io: StreamIo = {
		now: clock.now,
		pause: clock.pause,
		async call(request) {
			sent.push(request);
			if (request.method === 'sendMessage' && 'shows' in request && request.shows.parseMode === 'HTML') return { kind: 'formatting' };
			return { kind: 'done', messageId: 7 };
		},
	};
	const running = runStream(stream, new ChatPace(), io, new Bell(), { intervalMs: 1000, idleCapMs: 60_000 });
	let settled = false;
	void running.then(() => (settled = true));
	while (!settled && (await clock.step()));
	expect(sent.map((request) => (request.method === 'deleteMessage' ? request.method : `${request.method} ${request.shows.parseMode ?? 'plain'} ${request.shows.text}`))).toEqual([
		'sendMessage HTML <b>bold</b> &amp; more',
		'sendMessage plain bold & more',
	]);
	expect(stream.messages).toEqual([{ text: 'bold & more', parseMode: undefined }]);

	const lost = new AnswerStream();
	lost.append('hi');
	lost.close();
	const posts: string[] = [];
	await runStream(lost, new ChatPace(), { now: () => 0, pause: async () => {}, call: async (request) => (posts.push(request.method), { kind: 'done' }) }, new Bell(), { intervalMs: 0, idleCapMs: 1 });
	expect(posts).toEqual(['sendMessage']);
});

/** What a person reads of the service's HTML (spec: parse mode HTML): the text without tags, entities decoded. */
function readable(html: string): string {
	let text = '';
	let inTag = false;
	for (const char of html) {
		if (char === '<') inTag = true;
		else if (char === '>' && inTag) inTag = false;
		else if (!inTag) text += char;
	}
	return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
}

/** An answer with the markup models write inline (emphasis, code, links, quotes, lists, a fence). */
const MARKED_UP_ANSWER = [
	'## Our plans\n\n',
	'Here is **point 1**: the answer goes on, with `code 1` and [a link](https://example.com/a?x=1&y=2).\n\n',
	'- the first item of part 2\n- a second one with *emphasis* and _underlined words_\n- and a third, ***both***\n\n',
	'> A quote in part 3, **bold** and _slanted_, ~~struck~~ too.\n\n',
	'```js\nconst part = 4 * 2; // *not emphasis*\n```\n\n',
	'Reply `pro` & we switch you; 2 * 3 stays, a snake_case_name too, and <https://example.com/auto> links.\n',
].join('');

/** Markup that spans the lines of a paragraph, a list item and a quote, as models write it. */
const ANSWER_ACROSS_LINES = [
	'**Note:\nthis matters** and *one\ntwo*, then `a\nb` and [a link\ntext](https://x.y).\n\n',
	'- **an item\n  continued** here\n- next\n\n',
	'> a quote, **bold\n> over two lines**\n\n',
	'**never closed\nin this paragraph\n\nThe end.\n',
].join('');

/**
 * Tables in the middle of an answer, as models write them: a header row that is text until its
 * delimiter row comes, rows that widen a column already shown, a header without outer pipes, a table
 * ended by a line of text; and a rule typed as `- - -` (a list item until its last `-`).
 */
const ANSWER_WITH_TABLES = [
	'Our plans:\n\n',
	'| Plan | Price |\n|:--|--:|\n| Free | 0 € |\n| Professional | 1,200 € |\n\n',
	'Compared:\nName | Seats\n--- | ---\nTeam | 5\nEnterprise, billed yearly | 500\nEach seat is one user.\n\n',
	'- - -\n\n',
	'| a | not a table |\nbecause this line is no delimiter row.\n',
].join('');

test.each([
	['inline markup', MARKED_UP_ANSWER],
	['markup across line breaks', ANSWER_ACROSS_LINES],
	['tables and a rule', ANSWER_WITH_TABLES],
])('while an answer is written, the chat only ever shows more of it: at every character, what each message shows is a beginning of what it shows at the end (no raw `*`, backtick or half link that later turns into formatting; %s)', (_name, answer) => {
	const stream = new AnswerStream();
	const final = answerParts(answer).map((part) => readable(part.text));
	const shown: string[] = [];
	for (const char of answer) {
		stream.append(char);
		const request = stream.next();
		if (request && request.method !== 'deleteMessage') {
			const text = readable(request.shows.text);
			if (!(final[request.part] ?? '').startsWith(text)) shown.push(JSON.stringify(text.slice(-40)));
			stream.done(request, request.method === 'sendMessage' ? 1 + request.part : undefined);
		}
	}
	expect(shown).toEqual([]);
	stream.close();
	// The end shows everything, exactly as Send Message would.
	for (let request = stream.next(); request; request = stream.next()) stream.done(request, request.method === 'sendMessage' ? 1 + request.part : undefined);
	expect(stream.messages.map((part) => readable(part.text))).toEqual(final);
	expect(stream.messages).toEqual(answerParts(answer));
});
