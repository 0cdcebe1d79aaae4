/**
 * Files the service keeps: a file a user sent (its file_id is on a trigger's item) or one the bot
 * sent (on a send's output). Not in the spec, which shows no download: Telegram's getFile, whose
 * answer gives the path of the file's bytes (up to 20 MB), which the node then downloads.
 */
import { ASK_FOR_A_SMALLER_FILE, GET_FILE_REFUSALS, tooBigText, unknownFileText } from '../../shared/files';
import type { Method } from './method';
import { about, inResource } from './method';

export const fileMethods: readonly Method[] = inResource('file', [
	{
		...about(
			'getFile',
			'Get a file',
			'Downloads a file a user sent or the bot sent, by its file ID, as binary data (or outputs only what the service says of it)',
		),
		isDefault: true,
		idempotent: true,
		// A download concerns one file: items run in parallel (up to the node's Concurrency).
		queue: 'none',
		params: [
			{
				name: 'file_id',
				kind: 'fileId',
				required: true,
				displayName: 'File ID',
				description: 'The file_id of a file this bot received or sent (a photo, document, voice note or video)',
				hint: 'After a Service Bot trigger: {{ $json.file_id }}; after a send: {{ $json.file_id }} of its output',
			},
		],
		output: { kind: 'file' },
		refusals: [
			{
				status: 400,
				matches: GET_FILE_REFUSALS.tooBig,
				advice: ({ body }) => tooBigText({ fileId: String(body.file_id) }, undefined, ASK_FOR_A_SMALLER_FILE),
			},
			{ status: 400, matches: GET_FILE_REFUSALS.unknown, advice: ({ body, said }) => unknownFileText(String(body.file_id), said) },
		],
	},
]);
