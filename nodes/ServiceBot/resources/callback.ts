/** Spec 4.3 Callback answers: dismiss the loading state of a button click. */
import { LIMITS } from '../../shared/spec';
import { CLICK_ANSWER_REFUSED } from '../../shared/transport/failure';
import { SHARED_CLICKS_ADVICE, clickReceivers, describeEach } from '../../shared/trigger/holders';
import type { Method } from './method';
import { about, inResource } from './method';

/**
 * Why the service refused to answer a click (`CLICK_ANSWER_REFUSED`: a click is answered once, within
 * seconds). When several workflows of this n8n run for the bot's clicks, another one most likely
 * answered it first.
 */
function clickAnswered(token: string): { text: string; explains: boolean } {
	const receivers = clickReceivers(token);
	if (receivers.length > 1) {
		return {
			text: `This click was already answered, most likely by another workflow on this bot: ${describeEach(receivers)} run for its button clicks. ${SHARED_CLICKS_ADVICE}`,
			explains: true,
		};
	}
	return {
		text: 'This click was already answered, or it is too old to answer (the service takes one answer per click, within seconds of the tap). Answer Callback Query once, right after the trigger',
		explains: false,
	};
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
				kind: 'text',
				required: true,
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
		moot: { ...CLICK_ANSWER_REFUSED, since: 3, result: false, notice: clickAnswered },
	},
]);
