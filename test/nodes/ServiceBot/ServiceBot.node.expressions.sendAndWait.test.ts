/**
 * Send and Wait for Response as users build it: Message, labels, choices, Restrict to User IDs and
 * After the Answer filled from the item by expressions, against the same values typed in, for each
 * way the answer comes back (a tap through either trigger, or the answer page). The other operations'
 * rows are in ServiceBot.node.expressions.test.ts; the two ways of filling a field in
 * test/harness/field-filling.ts.
 */
import type { DemoData } from '../../emulator';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { ServiceBotPollingTrigger } from '../../../nodes/ServiceBotPollingTrigger/ServiceBotPollingTrigger.node';
import { POLL_TIMING } from '../../../nodes/ServiceBotPollingTrigger/feed';
import { freePort, removeStoredFiles, useExpressionEngine } from '../../harness';
import { runUntilWait, serveWaiting, waitingRouter, type WaitingExecution } from '../../harness/waiting';
import { liveTrigger, makeHarness } from '../../harness/trigger-nodes';
import { byId, nodeType } from '../../harness/action-node';
import { credentialsFor, spyOnLogger, useEmulator, type LogSpy } from '../../harness/emulator-suite';

// n8n's own VM engine, not only its scopes: what an expression returns is what n8n 2.41.1 gets.
useExpressionEngine('quickjs');

const ctx = useEmulator();
afterAll(removeStoredFiles);
import { comparable, escape, from, unquoted, type From, type Mode, type Request } from '../../harness/field-filling';

// ---------------------------------------------------------------- Send and Wait for Response


/** How the answer reaches the waiting execution: a tap brought by either trigger, or the answer page. */
type Delivery = 'webhook' | 'polling' | 'page';

interface Button {
	text: string;
	callback_data?: string;
	url?: string;
}

/** A question, answered as the README describes it; the expected values are the README's. */
interface Asking {
	name: string;
	item(d: DemoData, delivery: Delivery): IDataObject;
	parameters(v: From): INodeParameters;
	/** The question the chat shows: its text and its buttons' labels. */
	question(item: IDataObject, delivery: Delivery): { text: string; buttons: string[][] };
	/** The answer: the button tapped in the chat (and the reply, for a written answer), or the page's form. */
	answer: { tap: string; reply?: string; page: string };
	/** What the node outputs once answered (besides who, where and when). */
	output(item: IDataObject, delivery: Delivery): IDataObject;
	/** The line the question shows once answered: the answer, and in the chat who gave it. */
	line(item: IDataObject, delivery: Delivery): string;
}

/** Only the demo user may answer in the chat; on the page nobody can be restricted (the page cannot tell who answers). */
const approversFor = (d: DemoData, delivery: Delivery): string => (delivery === 'page' ? '' : d.userId);
const webLink = (delivery: Delivery, label = '🌐 Answer in the browser'): string[][] => (delivery === 'page' ? [[label]] : []);
const by = (delivery: Delivery): string => (delivery === 'page' ? '' : ' — Demo');

const ASKINGS: Asking[] = [
	{
		name: 'approval',
		item: (d, delivery) => ({ chat: d.groupChatId, order: 42, parseMode: 'HTML', approve: '✅ Refund', decline: '❌ Keep', approvers: approversFor(d, delivery), afterAnswer: 'edit' }),
		parameters: (v) => ({
			chatId: byId(v.text('{chat}')),
			message: v.text('Refund order <b>#{order}</b>?'),
			responseType: 'approval',
			approvalOptions: { values: { approvalType: 'double', approveLabel: v.text('{approve}'), disapproveLabel: v.text('{decline}') } },
			options: { parseMode: v('parseMode'), allowedUserIds: v.text('{approvers}'), afterAnswer: v('afterAnswer') },
		}),
		question: (item, delivery) => ({ text: 'Refund order <b>#42</b>?', buttons: [[String(item.approve), String(item.decline)], ...webLink(delivery)] }),
		answer: { tap: '✅ Refund', page: 'answer=0' },
		output: (item) => ({ approved: true, answer: item.approve }),
		line: (item, delivery) => `${String(item.approve)}${by(delivery)}`,
	},
	{
		name: 'choice',
		item: (d, delivery) => ({ chat: d.privateChatId, order: 7, sizes: ['Small', 'Medium', 'Large'], perRow: 3, approvers: approversFor(d, delivery), afterAnswer: 'edit' }),
		parameters: (v) => ({
			chatId: byId(v.text('{chat}')),
			message: v.text('Which size for order {order}?'),
			responseType: 'choice',
			choices: v.list('sizes'),
			choicesPerRow: v('perRow'),
			options: { allowedUserIds: v.text('{approvers}'), afterAnswer: v('afterAnswer') },
		}),
		question: (_item, delivery) => ({ text: 'Which size for order 7?', buttons: [['Small', 'Medium', 'Large'], ...webLink(delivery)] }),
		answer: { tap: 'Medium', page: 'answer=1' },
		output: () => ({ answer: 'Medium', answerIndex: 1 }),
		line: (_item, delivery) => `Medium${by(delivery)}`,
	},
	{
		name: 'free text',
		item: (d, delivery) => ({ chat: d.privateChatId, order: 9, answerLabel: '✍️ Tell us', webLabel: '🌐 Open the form', approvers: approversFor(d, delivery), afterAnswer: 'edit' }),
		parameters: (v) => ({
			chatId: byId(v.text('{chat}')),
			message: v.text('What went wrong with order {order}?'),
			responseType: 'freeText',
			answerLabel: v.text('{answerLabel}'),
			options: { allowedUserIds: v.text('{approvers}'), afterAnswer: v('afterAnswer'), webLabel: v.text('{webLabel}') },
		}),
		question: (item, delivery) => ({ text: 'What went wrong with order 9?', buttons: [[String(item.answerLabel)], ...webLink(delivery, String(item.webLabel))] }),
		answer: { tap: '✍️ Tell us', reply: 'The box was damaged', page: 'text=The+box+was+damaged' },
		output: () => ({ text: 'The box was damaged' }),
		line: (_item, delivery) => `✍️ The box was damaged${by(delivery)}`,
	},
];

/** One n8n for the question: where resume URLs are served, and what brings a tap to them. */
interface N8n {
	base: string;
	add(execution: WaitingExecution): void;
	/** Resolves once the trigger has handled everything the service holds for it. */
	settled(): Promise<void>;
	stop(): Promise<void>;
}

/** The emulator drops an update once acknowledged; the poller is done once it waits in its next long poll. */
async function pollingSettled(): Promise<void> {
	const polling = (): boolean => ctx.emu.callsTo('getUpdates').at(-1)?.status === 0;
	while (ctx.emu.pendingUpdates().length > 0 || !polling()) await pause();
}

const pause = async (): Promise<void> => await new Promise((resolve) => setTimeout(resolve, 5));

async function n8n(delivery: Delivery): Promise<N8n> {
	const parameters = { updates: ['message'], options: {} };
	if (delivery === 'webhook') {
		const waiting = waitingRouter();
		const base = `http://127.0.0.1:${await freePort()}/`;
		const live = await liveTrigger(ctx.emu, { parameters, waiting, webhookBaseUrl: base });
		return { base, add: waiting.add, settled: async () => await ctx.emu.idle(), stop: live.close };
	}
	const server = await serveWaiting();
	if (delivery === 'page') return { base: server.baseUrl, add: server.add, settled: async () => {}, stop: server.close };
	const harness = await makeHarness(ctx.emu, { nodeType: new ServiceBotPollingTrigger(), parameters, webhookBaseUrl: server.baseUrl });
	const trigger = await harness.startTrigger();
	return {
		base: server.baseUrl,
		add: server.add,
		settled: pollingSettled,
		stop: async () => {
			await trigger.close();
			await server.close();
		},
	};
}

/** Strings that differ between two executions (execution, resume key, signature, n8n's port) made alike. */
function sameExecution(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(sameExecution);
	if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, sameExecution(entry)]));
	if (typeof value !== 'string') return value;
	return value
		.replace(/^(w\d):[0-9a-z]+:(\d+|t):[A-Za-z0-9_-]+$/, '$1:<execution>:$2:<key>')
		.replace(/https?:\/\/[^/\s"']+\/webhook-waiting\/\d+\//g, '<n8n>/webhook-waiting/<execution>/')
		.replace(/signature=[0-9a-f]+/g, 'signature=<signature>');
}

interface Answered {
	/** The requests that asked the question (the message, then its keyboard with the link naming it). */
	asked: Request[];
	/** The question as the chat showed it before the answer. */
	shown: { text: string; buttons: string[][] };
	/** The answer page as the browser got it (page delivery). */
	page?: string;
	output: IDataObject;
	/** What updated the question, in order. */
	updates: Request[];
	/** The question as the chat shows it at the end. */
	after: { text: string; buttons: string[][] };
}

let logs: LogSpy;

/** Asks, answers and waits until the question was updated (or the node said why it could not be). */
async function askAndAnswer(asking: Asking, delivery: Delivery, mode: Mode): Promise<Answered> {
	ctx.emu.reset();
	const item = asking.item(ctx.d, delivery);
	const on = await n8n(delivery);
	try {
		const before = ctx.emu.calls.length;
		const execution = await runUntilWait({
			nodeType,
			parameters: { resource: 'message', operation: 'sendAndWait', ...asking.parameters(from(item, mode)) },
			items: [item],
			credentials: credentialsFor(ctx.emu),
			webhookBaseUrl: on.base,
		});
		on.add(execution);
		const chatId = String(item.chat);
		const asked = ctx.emu.calls.slice(before).map((call): Request => [call.method, call.body as IDataObject]);
		const answering = ctx.emu.calls.length;
		const question = ctx.emu.history(chatId).filter((message) => message.sent_by_bot).at(-1)!;
		const keyboard = (question.reply_markup as { inline_keyboard?: Button[][] } | undefined)?.inline_keyboard ?? [];
		const labels = (rows: Button[][]): string[][] => rows.map((row) => row.map((button) => button.text));
		const button = (text: string): Button => {
			const found = keyboard.flat().find((candidate) => candidate.text === text);
			if (!found) throw new Error(`no button "${text}" in ${JSON.stringify(labels(keyboard))}`);
			return found;
		};
		let page: string | undefined;
		if (delivery === 'page') {
			const link = String(keyboard.flat().find((candidate) => candidate.url?.includes('/webhook-waiting/'))?.url);
			page = String((await execution.answer({ method: 'GET', url: link })).body);
			const sent = await execution.answer({ method: 'POST', url: link, headers: { 'content-type': 'application/x-www-form-urlencoded' }, rawBody: asking.answer.page });
			if (!sent.resumed) throw new Error(`the page's answer resumed nothing: ${sent.status} ${JSON.stringify(sent.body)}`);
		} else {
			const data = String(button(asking.answer.tap).callback_data);
			await ctx.emu.userClicks({ chatId, userId: ctx.d.userId, messageId: question.message_id, data });
			await on.settled();
			if (asking.answer.reply !== undefined) {
				await ctx.emu.userSends({ chatId, userId: ctx.d.userId, text: asking.answer.reply, replyToMessageId: question.message_id });
				await on.settled();
			}
		}
		// The answer was brought (the trigger has handled the tap): it resumed the execution, which goes on.
		if (execution.state === 'waiting') throw new Error(`the answer resumed nothing (${delivery})`);
		await execution.settled();
		if (execution.finished === undefined) throw new Error(`the execution did not finish (${execution.state})`);
		// The node updates the question once n8n has accepted the answer, beside the execution going on.
		const updateMethods = ['editMessageText', 'editMessageReplyMarkup'];
		const updated = (): boolean => ctx.emu.calls.slice(answering).some((call) => updateMethods.includes(call.method) && call.status !== 0);
		const couldNot = (): string | undefined => logs.messages('warn').find((message) => /question/i.test(message));
		while (!updated() && couldNot() === undefined) await pause();
		const failure = couldNot();
		if (failure !== undefined) throw new Error(`the question was not updated: ${failure}`);
		const shownAfter = ctx.emu.history(chatId).find((message) => message.message_id === question.message_id)!;
		return {
			asked: sameExecution(asked) as Request[],
			shown: { text: String(question.text), buttons: labels(keyboard) },
			page: page === undefined ? undefined : String(sameExecution(page)),
			output: comparable(execution.finished.output[0].json) as IDataObject,
			updates: ctx.emu.calls.slice(answering).filter((call) => updateMethods.includes(call.method)).map((call): Request => [call.method, call.body as IDataObject]),
			after: { text: String(shownAfter.text), buttons: labels((shownAfter.reply_markup as { inline_keyboard?: Button[][] } | undefined)?.inline_keyboard ?? []) },
		};
	} finally {
		await on.stop();
	}
}

describe('Send and Wait for Response: Message, labels, choices, Restrict to User IDs and After the Answer from the item', () => {
	beforeEach(() => {
		jest.replaceProperty(POLL_TIMING, 'idlePauseMs', 20);
		logs = spyOnLogger();
	});

	afterEach(() => {
		logs.restore();
		jest.restoreAllMocks();
	});

	const cases = ASKINGS.flatMap((asking) => (['webhook', 'polling', 'page'] as const).map((delivery) => [asking.name, delivery, asking] as const));

	it.each(cases)(
		'%s answered through the %s: the same question, the same output, and the same edit of the question (the answer added, the buttons gone)',
		async (_name, delivery, asking) => {
			const item = asking.item(ctx.d, delivery);
			const fixed = await askAndAnswer(asking, delivery, 'fixed');
			const question = asking.question(item, delivery);
			expect(fixed.shown).toEqual(question);
			expect(fixed.output).toMatchObject({
				...asking.output(item, delivery),
				chatId: item.chat,
				answeredVia: delivery === 'page' ? 'web' : 'chat',
				user: delivery === 'page' ? null : expect.objectContaining({ id: ctx.d.userId }),
			});
			expect(fixed.after).toEqual({ text: `${question.text}\n\n${asking.line(item, delivery)}`, buttons: [] });
			expect(fixed.updates.map(([method]) => method)).toEqual(['editMessageText']);

			const expressions = await askAndAnswer(asking, delivery, 'expressions');
			expect(expressions.asked).toEqual(fixed.asked);
			expect(expressions.shown).toEqual(fixed.shown);
			expect(expressions.page).toEqual(fixed.page);
			expect(expressions.output).toEqual(fixed.output);
			expect(expressions.updates).toEqual(fixed.updates);
			expect(expressions.after).toEqual(fixed.after);
		},
	);

	it('After the Answer from the item, "Remove the Buttons": the buttons go, the text stays, as typed in', async () => {
		const asking: Asking = { ...ASKINGS[0], item: (d, delivery) => ({ ...ASKINGS[0].item(d, delivery), afterAnswer: 'removeButtons' }) };
		const fixed = await askAndAnswer(asking, 'webhook', 'fixed');
		expect(fixed.updates.map(([method]) => method)).toEqual(['editMessageReplyMarkup']);
		expect(fixed.after).toEqual({ text: fixed.shown.text, buttons: [] });
		const expressions = await askAndAnswer(asking, 'webhook', 'expressions');
		expect(expressions.updates).toEqual(fixed.updates);
		expect(expressions.after).toEqual(fixed.after);
	});

	it.each([
		['Restrict to User IDs', 'approvers', '@someone'],
		['Approve Button Label', 'approve', 'x'.repeat(129)],
	] as const)('a bad %s from the item is refused before anything is sent, as typed in', async (field, key, value) => {
		const asking = ASKINGS[0];
		const badItem = { ...asking.item(ctx.d, 'webhook'), [key]: value };
		const refusal = async (mode: Mode): Promise<string> => {
			ctx.emu.reset();
			const parameters = { resource: 'message', operation: 'sendAndWait', ...asking.parameters(from(badItem, mode)) };
			const error = await runUntilWait({ nodeType, parameters, items: [badItem], credentials: credentialsFor(ctx.emu) }).then(
				() => 'the node waited',
				(thrown: Error) => thrown.message,
			);
			expect(ctx.emu.calls).toEqual([]);
			return error;
		};
		const typedIn = await refusal('fixed');
		expect(typedIn).toMatch(new RegExp(`: ${escape(field)}: .*\\[item 0\\]`));
		expect(unquoted(await refusal('expressions'))).toBe(unquoted(typedIn));
	});
});
