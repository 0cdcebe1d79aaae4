/** Spec 4.3 Callback answers: dismiss the loading state of a button click. */
import type { IDataObject } from 'n8n-workflow';

import { LIMITS } from '../../shared/spec';
import { CLICK_ANSWER_REFUSED } from '../../shared/transport/failure';
import { SHARED_CLICKS_ADVICE, clickReceivers, describeEach, describeWorkflows, othersAnsweringClicks } from '../../shared/trigger/holders';
import { quote } from '../parameters/errors';
import type { Method } from './method';
import { about, inResource } from './method';

/** Where a workflow takes a click's ID from: the field's hint says the same. */
const CLICK_ID_FROM = '{{ $json.callback_query_id }} after a Service Bot trigger';

/** Longer than any click's ID: Telegram's are about 20 digits (the spec shows no format), so this is not one. */
const CLICK_ID_MAX = 256;

/**
 * Why `id` cannot be the ID of a click, or undefined when it may be one. The spec types the ID as a
 * String without a format; what no click's ID holds is what an expression left unfilled or mistyped
 * (`$ }}`), a value of the wrong field or a whole item gives: spaces and control characters, braces,
 * brackets, quotes, `$`, or a length no ID has.
 */
function notAClickId(id: string): string | undefined {
	if (id.length > CLICK_ID_MAX) return `it is ${id.length.toLocaleString('en-US')} characters long`;
	const odd = /[\s\p{Cc}{}[\]"'`$<>\\]/u.exec(id)?.[0];
	if (odd === undefined) return undefined;
	return `it holds ${/\s/.test(odd) ? 'a space or line break' : /\p{Cc}/u.test(odd) ? 'a control character' : quote(odd)}`;
}

/**
 * Why the service refused to answer a click (`CLICK_ANSWER_REFUSED`: Telegram's one wording for a
 * click answered before, one too old, and an ID it does not know), the ID sent quoted. An ID that
 * cannot be a click's is named as refused, not as answered; when several workflows of this n8n run
 * for the bot's clicks, another one most likely answered it first; otherwise it may be any of the three.
 */
function clickRefused({ token, body }: { token: string; body: IDataObject }): { text: string; explains: boolean } {
	const id = String(body.callback_query_id ?? '');
	const sent = quote(id, 60);
	const notAnId = notAClickId(id);
	if (notAnId !== undefined) {
		return {
			text: `The service refused Callback Query ID ${sent}: it is not the ID of a click (${notAnId}). Use the ID of the click the trigger received: ${CLICK_ID_FROM}`,
			explains: true,
		};
	}
	const receivers = clickReceivers(token);
	if (receivers.length > 1) {
		return {
			text: `Click ${sent} was already answered, most likely by another workflow on this bot: ${describeEach(receivers)} run for its button clicks. ${SHARED_CLICKS_ADVICE}`,
			explains: true,
		};
	}
	return {
		text: `The service refused to answer click ${sent}: it was already answered, or it is too old to answer (the service takes one answer per click, within seconds of the tap), or the ID is not one of a click this bot received. Answer Callback Query once, right after the trigger, with ${CLICK_ID_FROM}`,
		explains: true,
	};
}

/**
 * Other workflows of this n8n answering this bot's clicks too, named on Answer Callback Query's output
 * at every run, before a click is ever refused: every click runs each of them and only the first
 * answer counts. In queue mode the node runs on a worker, which knows no trigger: nothing shown there.
 */
function sharedClicks({ token, workflowId }: { token: string; workflowId: string }): string | undefined {
	const others = othersAnsweringClicks(token, workflowId);
	if (others.length === 0) return undefined;
	const named = describeWorkflows(others);
	return `${named.charAt(0).toUpperCase()}${named.slice(1)} ${named.startsWith('workflows ') ? 'answer' : 'answers'} this bot's button clicks too: every click runs each of them, and only the first answer counts (the others are refused). ${SHARED_CLICKS_ADVICE}`;
}

export const callbackMethods: readonly Method[] = inResource('callback', [
	{
		...about(
			'answerCallbackQuery',
			'Answer a button click',
			'Dismisses the loading state after a click on an inline button, optionally with a notification',
		),
		isDefault: true,
		// An answer acts on its own click only: nothing another item could race with.
		queue: 'none',
		params: [
			{
				name: 'callback_query_id',
				kind: 'callbackQueryId',
				required: true,
				fromTrigger: true,
				displayName: 'Callback Query ID',
				description: 'The ID of the callback query, from the trigger output',
				hint: 'After a Service Bot trigger: {{ $json.callback_query_id }}',
				min: 1,
			},
			{
				name: 'text',
				kind: 'text',
				required: false,
				displayName: 'Text',
				description: 'Notification text shown to the user',
				max: LIMITS.callbackAnswerText.max,
			},
			{
				name: 'show_alert',
				kind: 'boolean',
				required: false,
				displayName: 'Show Alert',
				description: 'Whether to show a modal alert instead of a small banner',
			},
			{ name: 'url', kind: 'url', required: false, displayName: 'URL', description: 'URL to open on the client', placeholder: 'e.g. https://example.com' },
			{
				name: 'cache_time',
				kind: 'integer',
				required: false,
				displayName: 'Cache Time',
				description: 'How long, in seconds, the client may cache the answer',
				min: 0,
			},
		],
		output: { kind: 'clickAnswer' },
		moot: { ...CLICK_ANSWER_REFUSED, since: 3, result: false, notice: clickRefused },
		runNotice: sharedClicks,
	},
]);
