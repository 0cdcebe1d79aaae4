/** Spec 4.4 Bot profile and commands: the bot's name, descriptions and slash commands. */
import { LIMITS } from '../../shared/spec';
import type { Method, Param } from './method';
import { languageCode } from './method';

/**
 * A profile text. Version 1 took an empty value as "remove", so a forgotten field erased the text;
 * from version 2 a value is required and removal is an explicit choice.
 */
function profileText(name: string, displayName: string, max: number): Param[] {
	const text: Param = { name, kind: 'text', required: true, displayName, description: `New ${displayName.toLowerCase()}`, max };
	return [
		{ ...text, description: `${text.description}; empty removes it`, versions: { to: 1 } },
		{ ...text, min: 1, removable: displayName, versions: { from: 2 } },
	];
}

const setMyName: Method = {
	name: 'setMyName',
	resource: 'bot',
	displayName: 'Set My Name',
	action: "Set the bot's name",
	description: "Changes the bot's display name",
	idempotent: false,
	queue: 'bot',
	params: [
		{
			name: 'name',
			kind: 'text',
			required: true,
			displayName: 'Name',
			description: 'New display name',
			min: LIMITS.botName.min,
			max: LIMITS.botName.max,
		},
		languageCode('Two-letter language code; empty sets the name for every language without its own'),
	],
	output: { kind: 'flag', key: 'updated' },
};

const getMyName: Method = {
	name: 'getMyName',
	resource: 'bot',
	displayName: 'Get My Name',
	action: "Get the bot's name",
	description: "Returns the bot's display name",
	isDefault: true,
	idempotent: true,
	queue: 'bot',
	params: [languageCode('Two-letter language code; empty returns the default name')],
	output: { kind: 'object' },
};

const setMyDescription: Method = {
	name: 'setMyDescription',
	resource: 'bot',
	displayName: 'Set My Description',
	action: "Set the bot's description",
	description: 'Changes the introductory text shown in an empty chat before the bot is started',
	idempotent: false,
	queue: 'bot',
	params: [
		...profileText('description', 'Description', LIMITS.botDescription.max),
		languageCode('Two-letter language code; empty sets the default description'),
	],
	output: { kind: 'flag', key: 'updated' },
};

const getMyDescription: Method = {
	name: 'getMyDescription',
	resource: 'bot',
	displayName: 'Get My Description',
	action: "Get the bot's description",
	description: 'Returns the introductory text shown in an empty chat',
	idempotent: true,
	queue: 'bot',
	params: [languageCode('Two-letter language code; empty returns the default description')],
	output: { kind: 'object' },
};

const setMyShortDescription: Method = {
	name: 'setMyShortDescription',
	resource: 'bot',
	displayName: 'Set My Short Description',
	action: "Set the bot's short description",
	description: "Changes the text shown on the bot's profile card",
	idempotent: false,
	queue: 'bot',
	params: [
		...profileText('short_description', 'Short Description', LIMITS.botShortDescription.max),
		languageCode('Two-letter language code; empty sets the default short description'),
	],
	output: { kind: 'flag', key: 'updated' },
};

const getMyShortDescription: Method = {
	name: 'getMyShortDescription',
	resource: 'bot',
	displayName: 'Get My Short Description',
	action: "Get the bot's short description",
	description: "Returns the text shown on the bot's profile card",
	idempotent: true,
	queue: 'bot',
	params: [languageCode('Two-letter language code; empty returns the default short description')],
	output: { kind: 'object' },
};

const setMyCommands: Method = {
	name: 'setMyCommands',
	resource: 'bot',
	displayName: 'Set My Commands',
	action: "Set the bot's command list",
	description: 'Sets the slash commands suggested when a user types /',
	idempotent: false,
	queue: 'bot',
	params: [
		{ name: 'commands', kind: 'commands', required: true, displayName: 'Commands', description: 'Commands with their descriptions' },
		languageCode('Two-letter language code; empty sets the default list'),
	],
	output: { kind: 'flag', key: 'updated' },
};

const getMyCommands: Method = {
	name: 'getMyCommands',
	resource: 'bot',
	displayName: 'Get My Commands',
	action: "Get the bot's command list",
	description: 'Returns the registered slash commands, one item each',
	idempotent: true,
	queue: 'bot',
	params: [languageCode('Two-letter language code; empty returns the default list')],
	output: { kind: 'list', key: 'commands' },
};

const deleteMyCommands: Method = {
	name: 'deleteMyCommands',
	resource: 'bot',
	displayName: 'Delete My Commands',
	action: "Delete the bot's command list",
	description: 'Removes the command list for a language, or the default list',
	idempotent: false,
	queue: 'bot',
	params: [languageCode('Two-letter language code; empty deletes the default list')],
	output: { kind: 'flag', key: 'deleted' },
};

export const botMethods: readonly Method[] = [
	setMyName,
	getMyName,
	setMyDescription,
	getMyDescription,
	setMyShortDescription,
	getMyShortDescription,
	setMyCommands,
	getMyCommands,
	deleteMyCommands,
];
