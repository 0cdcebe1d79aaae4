/** Spec 4.3 Callback answers: dismiss the loading state of a button click. */
import { LIMITS } from '../../shared/spec';
import type { Method } from './method';
import { about, inResource } from './method';

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
	},
]);
