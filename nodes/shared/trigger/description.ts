/** The parts of the two triggers' descriptions that are the same: what starts the workflow, and its output. */
import type { INodeProperties, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { UPDATE_TYPES } from '../spec';
import { CREDENTIAL_TYPE } from '../transport';

const UPDATE_TYPE_NAMES: Record<(typeof UPDATE_TYPES)[number], { name: string; description: string; words: string }> = {
	message: { name: 'Message', description: 'A user sends a message in a chat the bot can see', words: 'messages' },
	callback_query: { name: 'Callback Query', description: 'A user clicks an inline button that has callback data', words: 'button clicks' },
};

const SELECTED = '[].concat($parameter["updates"] || [])';
const WORDS = JSON.stringify(Object.fromEntries(UPDATE_TYPES.map((type) => [type, UPDATE_TYPE_NAMES[type].words])));

/** The canvas subtitle: "On all updates", "On messages", "On messages and button clicks". */
export const SUBTITLE = `={{ ${SELECTED}.length === 0 || ${SELECTED}.includes("*") ? "On all updates" : "On " + ${SELECTED}.map((type) => (${WORDS})[type] || type).join(" and ") }}`;

/** What both trigger nodes are alike in (besides icon and subtitle): group, version, no input, one output, the credential. */
export const TRIGGER_NODE_BASE = {
	group: ['trigger'],
	version: 1,
	inputs: [],
	outputs: [NodeConnectionTypes.Main],
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

const addHandyFields: INodeProperties = {
	displayName: 'Add Handy Fields',
	name: 'addHandyFields',
	type: 'boolean',
	default: false,
	description:
		'Whether to add top-level fields to the output: update_type, chat_id, message_id, user_id, user, text, callback_data and callback_query_id',
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

/** The Options collection: the options both deliveries share and the delivery's own, by name. */
export function optionsCollection(own: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [addHandyFields, restrictToChatIds, restrictToUserIds, ...own].sort((a, b) => a.displayName.localeCompare(b.displayName)),
	};
}
