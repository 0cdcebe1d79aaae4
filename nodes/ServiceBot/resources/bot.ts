/** Spec 4.4 Bot profile and commands: the bot's name, descriptions and slash commands. */
import { LIMITS } from '../../shared/spec';
import type { Param } from '../parameters/param';
import type { Method, MethodOfResource } from './method';
import { about, inResource, languageCode } from './method';

const updated = { kind: 'flag', key: 'updated' } as const;

/** Reading a profile setting back, for a language or the default: `noun` names what is returned. */
const reader = (name: string, action: string, description: string, noun: string): MethodOfResource => ({
	...about(name, action, description),
	idempotent: true,
	params: [languageCode(`Two-letter language code; empty returns the default ${noun}`)],
	output: { kind: 'object' },
});

/**
 * A profile text (description, short description): setting it and reading it back. Version 1 took an
 * empty value as "remove", so a forgotten field erased the text; from version 2 a value is required
 * and removal is an explicit choice.
 */
function profileText(
	names: { set: string; get: string },
	param: { name: string; displayName: string; max: number },
	texts: { set: string; get: string },
): MethodOfResource[] {
	const noun = param.displayName.toLowerCase();
	const text: Param = { ...param, kind: 'text', required: true, description: `New ${noun}` };
	return [
		{
			...about(names.set, `Set the bot's ${noun}`, texts.set),
			params: [
				{ ...text, description: `${text.description}; empty removes it`, versions: { to: 1 } },
				{ ...text, min: 1, removable: param.displayName, versions: { from: 2 } },
				languageCode(`Two-letter language code; empty sets the default ${noun}`),
			],
			output: updated,
		},
		reader(names.get, `Get the bot's ${noun}`, texts.get, noun),
	];
}

export const botMethods: readonly Method[] = inResource('bot', [
	{
		...about('setMyName', "Set the bot's name", "Changes the bot's display name"),
		params: [
			{ name: 'name', kind: 'text', required: true, displayName: 'Name', description: 'New display name', ...LIMITS.botName },
			languageCode('Two-letter language code; empty sets the name for every language without its own'),
		],
		output: updated,
	},
	{ ...reader('getMyName', "Get the bot's name", "Returns the bot's display name", 'name'), isDefault: true },
	...profileText(
		{ set: 'setMyDescription', get: 'getMyDescription' },
		{ name: 'description', displayName: 'Description', max: LIMITS.botDescription.max },
		{
			set: 'Changes the introductory text shown in an empty chat before the bot is started',
			get: 'Returns the introductory text shown in an empty chat',
		},
	),
	...profileText(
		{ set: 'setMyShortDescription', get: 'getMyShortDescription' },
		{ name: 'short_description', displayName: 'Short Description', max: LIMITS.botShortDescription.max },
		{ set: "Changes the text shown on the bot's profile card", get: "Returns the text shown on the bot's profile card" },
	),
	{
		...about('setMyCommands', "Set the bot's command list", 'Sets the slash commands suggested when a user types /'),
		params: [
			{ name: 'commands', kind: 'commands', required: true, displayName: 'Commands', description: 'Commands with their descriptions' },
			languageCode('Two-letter language code; empty sets the default list'),
		],
		output: updated,
	},
	{
		...about('getMyCommands', "Get the bot's command list", 'Returns the registered slash commands, one item each'),
		idempotent: true,
		params: [languageCode('Two-letter language code; empty returns the default list')],
		output: { kind: 'list', key: 'commands' },
	},
	{
		...about('deleteMyCommands', "Delete the bot's command list", 'Removes the command list for a language, or the default list'),
		params: [languageCode('Two-letter language code; empty deletes the default list')],
		output: { kind: 'flag', key: 'deleted' },
	},
]);
