/** The parts of the two triggers' descriptions that are the same: what starts the workflow, and its output. */
import type { INodeProperties, INodeTypeDescription } from 'n8n-workflow';

import { LIMITS, UPDATE_TYPES } from '../spec';
import { CREDENTIAL_TYPE } from '../transport/token';
import type { PhotoSize } from './files';
import { BINARY_FIELD } from './files';
import { FILES_OUTPUT_SINCE, outputKinds } from './output';

/** The outputs of Separate Outputs by Kind as n8n takes them. */
const outputsJson = (filesOutput: boolean): string => JSON.stringify(outputKinds(filesOutput).map(({ displayName }) => ({ type: 'main', displayName })));

/**
 * n8n's outputs of a trigger node: one, or one per kind of update with Separate Outputs by Kind,
 * with a Files output from version 3 (evaluated by n8n, in the editor too, over the node's parameters
 * and its `$nodeVersion`).
 */
const TRIGGER_OUTPUTS: `={{${string}}}` = `={{ $parameter.options?.separateOutputs === true ? ($nodeVersion >= ${FILES_OUTPUT_SINCE} ? ${outputsJson(true)} : ${outputsJson(false)}) : ["main"] }}`;

const UPDATE_TYPE_NAMES: Record<(typeof UPDATE_TYPES)[number], { name: string; description: string; words: string }> = {
	message: { name: 'Message', description: 'A user sends a message in a chat the bot can see', words: 'messages' },
	callback_query: { name: 'Callback Query', description: 'A user clicks an inline button that has callback data', words: 'button clicks' },
};

const SELECTED = '[].concat($parameter["updates"] || [])';
const WORDS = JSON.stringify(Object.fromEntries(UPDATE_TYPES.map((type) => [type, UPDATE_TYPE_NAMES[type].words])));

/** The canvas subtitle: "On all updates", "On messages", "On messages and button clicks". */
export const SUBTITLE = `={{ ${SELECTED}.length === 0 || ${SELECTED}.includes("*") ? "On all updates" : "On " + ${SELECTED}.map((type) => (${WORDS})[type] || type).join(" and ") }}`;

/**
 * Version 2 (new nodes): every item carries `sessionId` and `chatInput`, which n8n's AI Agent and
 * memory nodes read in their automatic modes, and the handy fields are on unless turned off. Version 1
 * (saved workflows) keeps its output: the update, and the handy fields only when turned on. Version 3:
 * Separate Outputs by Kind has a Files output (messages carrying a file), Messages the rest; version 2
 * keeps its three outputs.
 */
export const TRIGGER_VERSIONS = [1, 2, 3];

/** What both trigger nodes are alike in (besides icon and subtitle): group, versions, no input, one output, the credential. */
export const TRIGGER_NODE_BASE = {
	group: ['trigger'],
	version: TRIGGER_VERSIONS,
	defaultVersion: 3,
	inputs: [],
	outputs: TRIGGER_OUTPUTS,
	credentials: [{ name: CREDENTIAL_TYPE, required: true }],
} satisfies Partial<INodeTypeDescription>;

export const triggerOn: INodeProperties = {
	displayName: 'Trigger On',
	name: 'updates',
	type: 'multiOptions',
	required: true,
	default: ['*'],
	description:
		'The kinds of update that start the workflow. Button taps and replies that answer a Send and Wait for Response are always received: they resume the waiting workflow instead.',
	options: [
		// Value '*' is what saved workflows hold; only its label reads as words.
		{ name: 'All Updates', value: '*', description: 'Every kind of update' },
		...UPDATE_TYPES.map((type) => ({ value: type, name: UPDATE_TYPE_NAMES[type].name, description: UPDATE_TYPE_NAMES[type].description })),
	],
};

const HANDY_FIELDS =
	'update_type, chat_id, message_id, user_id, user, text (or a caption), callback_data, callback_query_id, and what file a message carries: file_summary (what arrived in words, e.g. "photo, 1600×1000, 745.2 KB"), file_kind (photo, document, voice or video), file_id, file_name, mime_type, file_size, file_width and file_height (the pixels of a photo or video) and file_duration (the seconds of a voice note or video)';

const addHandyFields: INodeProperties = {
	displayName: 'Add Handy Fields',
	name: 'addHandyFields',
	type: 'boolean',
	default: false,
	description: `Whether to add top-level fields to the output: ${HANDY_FIELDS}`,
};

/** Version 2: on by default, so a workflow reads `chat_id` or `text` without turning anything on. */
const addHandyFieldsV2: INodeProperties = {
	...addHandyFields,
	default: true,
	description: `Whether to add top-level fields to the output: ${HANDY_FIELDS}. Every item also has sessionId (the chat) and chatInput (the text, or a click's data) for n8n's AI Agent and memory.`,
};

const showTyping: INodeProperties = {
	displayName: 'Show Typing',
	name: 'showTyping',
	type: 'boolean',
	// On once added (an option left out stays off): adding it is asking for it.
	default: true,
	description:
		'Whether to show "typing…" in the chat as soon as a message that starts the workflow arrives, and keep it shown while the workflow runs (until it sends a message to that chat or ends; at most 3 minutes), so the user sees the bot is working while, say, an AI agent thinks',
};

function separateOutputsOption(filesOutput: boolean): INodeProperties {
	return {
		displayName: 'Separate Outputs by Kind',
		name: 'separateOutputs',
		type: 'boolean',
		// On once added, like Show Typing; left out, the trigger keeps its one output.
		default: true,
		description: filesOutput
			? `Whether to give each kind of update its own output: ${outputKinds(true).map(({ displayName }) => displayName).join(', ')}. Files takes the messages carrying a file (a photo, document, voice note or video, with or without a caption), Commands the messages whose text starts with /. The nodes after the trigger then need no Switch.`
			: `Whether to give each kind of update its own output: ${outputKinds(false).map(({ displayName }) => displayName).join(', ')} (messages whose text starts with /). The nodes after the trigger then need no Switch.`,
	};
}

const separateOutputs = separateOutputsOption(false);

/** Version 3: a Files output. */
const separateOutputsV3 = separateOutputsOption(true);

const downloadFiles: INodeProperties = {
	displayName: 'Download Files',
	name: 'downloadFiles',
	type: 'boolean',
	// On once added, like Show Typing; left out, files stay at the service (their file_id is on the item).
	default: true,
	description: `Whether to put the file a message carries (a photo, document, voice note or video, up to ${LIMITS.downloadBytes.max / 1_048_576} MB) on the item as binary data in "${BINARY_FIELD}", with its name and MIME type: an AI Agent then sees the photo, and a transcription node takes the voice note, with nothing to map. A file that cannot be downloaded is named in file_error and the message still runs.`,
};

const photoSize: INodeProperties = {
	displayName: 'Photo Size',
	name: 'photoSize',
	type: 'options',
	default: 'largest',
	description: 'The service sends each photo in several sizes: the one file_id and Download Files take',
	options: [
		{ name: 'Largest', value: 'largest', description: 'The photo as sent (the most detail, the largest file)' },
		{ name: 'Medium', value: 'medium', description: 'The middle size: enough for most image models, a smaller file' },
		{ name: 'Smallest', value: 'smallest', description: 'A thumbnail' },
	] satisfies Array<{ name: string; value: PhotoSize; description: string }>,
};

const restrictToChatIds: INodeProperties = {
	displayName: 'Restrict to Chat IDs',
	name: 'chatIds',
	type: 'string',
	default: '',
	placeholder: 'e.g. 1f0c6b6e-3a5d-4e8b-9a51-0c2d8e1f4b7a, 7d2e…',
	description:
		'Comma-separated chat IDs (UUIDs, not @usernames: an update\'s chat_id, or the ID Get Chat returns). When set, only updates from these chats (messages and button clicks) start the workflow; updates whose chat cannot be determined are dropped.',
};

const restrictToUserIds: INodeProperties = {
	displayName: 'Restrict to User IDs',
	name: 'userIds',
	type: 'string',
	default: '',
	placeholder: 'e.g. 4b9f2c1d-8e7a-4f3b-b2c6-5d1e0a9f8c3b, 9a1e…',
	description:
		'Comma-separated user IDs (UUIDs, not @usernames: an update\'s user_id). When set, only updates from these users (senders and clicking users) start the workflow; updates whose user cannot be determined are dropped.',
};

function collection(options: INodeProperties[], versions: NonNullable<NonNullable<INodeProperties['displayOptions']>['show']>['@version']): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: { show: { '@version': versions } },
		options: [...options].sort((a, b) => a.displayName.localeCompare(b.displayName)),
	};
}

/**
 * The Options collection of each version: the options both deliveries share and the delivery's own
 * (`ownSinceV3` where version 3 gives one of them another default).
 */
export function optionsCollections(own: INodeProperties[], ownSinceV3: INodeProperties[] = own): INodeProperties[] {
	const shared = [downloadFiles, photoSize, restrictToChatIds, restrictToUserIds, showTyping];
	return [
		collection([addHandyFields, separateOutputs, ...shared, ...own], [1]),
		collection([addHandyFieldsV2, separateOutputs, ...shared, ...own], [2]),
		collection([addHandyFieldsV2, separateOutputsV3, ...shared, ...ownSinceV3], [{ _cnd: { gte: FILES_OUTPUT_SINCE } }]),
	];
}
