/**
 * Answer Callback Query when the service refuses (Telegram's one wording for a click answered
 * before, one too old and an ID it does not know): what the node says names the ID it sent, and an ID
 * that cannot be a click's is told apart from a click already answered. Workflows as users build them:
 * the click's item from the service, the ID filled in by an expression.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { run, seedMessage } from '../../../harness/action-node';
import type { ExecuteNodeResult } from '../../../harness';
import { useEmulator } from '../../../harness/emulator-suite';

const ctx = useEmulator();

/** The service's words for every refused answer (Telegram's). */
const REFUSED = 'Bad Request: query is too old and response timeout expired or query ID is invalid';

const answer = (callbackQueryId: string): INodeParameters => ({ resource: 'callback', operation: 'answerCallbackQuery', callbackQueryId, additionalFields: {} });

/** The demo user clicks a button of a message the bot sent; the click as a trigger's item has it. */
async function click(): Promise<IDataObject> {
	const sent = await seedMessage(ctx, ctx.d.privateChatId, { text: 'Ship it?', reply_markup: { inline_keyboard: [[{ text: 'Yes', callback_data: 'ship:yes' }]] } });
	const update = await ctx.emu.userClicks({ chatId: ctx.d.privateChatId, userId: ctx.d.userId, messageId: sent.message_id as number, data: 'ship:yes' });
	const id = update.callback_query?.id;
	if (!id) throw new Error('the click has no id');
	return { callback_query_id: id, data: 'ship:yes', chatInput: 'Ship it?' };
}

/** The warnings n8n shows on the node's output in the editor (execution hints). */
const hintsOf = (result: ExecuteNodeResult): unknown[] => Object.values(result.run.data.resultData.runData).flatMap((tasks) => tasks.flatMap((task) => task.hints ?? []));

/** What the service was asked: the IDs sent to answerCallbackQuery and the statuses it answered. */
const asked = (): Array<[unknown, number]> => ctx.emu.callsTo('answerCallbackQuery').map((call) => [call.body.callback_query_id, call.status]);

describe('Answer Callback Query refused by the service', () => {
	test('an ID with a typo in its expression (version 3): reported on the item as an ID the service refused, quoting it, not as a click already answered', async () => {
		const item = await click();
		const id = String(item.callback_query_id);
		const result = await run(ctx, answer('={{ $json.callback_query_id }} }}'), { items: [item], typeVersion: 3 });
		expect(result.error).toBeUndefined();
		expect(asked()).toEqual([[`${id} }}`, 400]]);
		const notice = `The service refused Callback Query ID "${id} }}": it is not the ID of a click (it holds a space or line break). Use the ID of the click the trigger received: {{ $json.callback_query_id }} after a Service Bot trigger`;
		expect(result.output.map((output) => output.json)).toEqual([{ answered: false, notice }]);
		expect(hintsOf(result)).toEqual([{ message: notice, type: 'warning', location: 'outputPane' }]);
		// The click itself is still unanswered: the right ID would answer it.
		expect(ctx.emu.callbackAnswers()).toEqual([]);
	});

	test('a whole text of 1,000,000 characters as the ID (the wrong field, version 2): fails naming the ID, cut short, and its length; the service\'s words in the details', async () => {
		const item = { ...(await click()), text: 'y'.repeat(1_000_000) };
		const result = await run(ctx, answer('={{ $json.text }}'), { items: [item], typeVersion: 2 });
		expect(asked()).toEqual([['y'.repeat(1_000_000), 400]]);
		expect(result.error?.message).toBe(
			`The service refused Callback Query ID "${'y'.repeat(59)}…": it is not the ID of a click (it is 1,000,000 characters long). Use the ID of the click the trigger received: {{ $json.callback_query_id }} after a Service Bot trigger`,
		);
		expect(result.error?.description).toMatch(new RegExp(`^The service said: ${REFUSED}\\.`));
	});

	test('a click answered twice by one workflow (version 3): the second is reported with the click\'s ID as already answered, too old, or not a click of this bot', async () => {
		const item = await click();
		const id = String(item.callback_query_id);
		const first = await run(ctx, answer('={{ $json.callback_query_id }}'), { items: [item], typeVersion: 3 });
		expect(first.output.map((output) => output.json)).toEqual([{ answered: true }]);
		const again = await run(ctx, answer('={{ $json.callback_query_id }}'), { items: [item], typeVersion: 3 });
		expect(asked()).toEqual([
			[id, 200],
			[id, 400],
		]);
		expect(again.output.map((output) => output.json)).toEqual([
			{
				answered: false,
				notice: `The service refused to answer click "${id}": it was already answered, or it is too old to answer (the service takes one answer per click, within seconds of the tap), or the ID is not one of a click this bot received. Answer Callback Query once, right after the trigger, with {{ $json.callback_query_id }} after a Service Bot trigger`,
			},
		]);
	});

	test('an ID that may be a click\'s but is unknown to the service (version 2): fails with the ID quoted and the three causes', async () => {
		const result = await run(ctx, answer('={{ $json.id }}'), { items: [{ id: '4242' }], typeVersion: 2 });
		expect(asked()).toEqual([['4242', 400]]);
		expect(result.error?.message).toMatch(/^The service refused to answer click "4242": it was already answered, or it is too old to answer .*, or the ID is not one of a click this bot received\./);
	});
});
