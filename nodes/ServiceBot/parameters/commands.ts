/**
 * The commands kind (setMyCommands): the bot's command list, entered as a list of command +
 * description or as JSON, and checked as Telegram checks it.
 */
import type { IDataObject, INodeProperties, INodePropertyCollection } from 'n8n-workflow';
import { z } from 'zod/v4';

import { isObject } from '../../shared/json';
import { LIMITS } from '../../shared/spec';
import { describeValue, inputError } from './errors';
import type { At } from './errors';
import { readJson } from './json';
import type { ParamKindDefinition } from './kind';
import type { ItemContext, Param } from './param';
import { fieldName, nodeParameter } from './param';
import { checkList } from './schema';

export interface BotCommand {
	command: string;
	description: string;
}

/**
 * A command list (spec 4.4). The spec shows no limits for commands; Telegram's apply: a name of 1–32
 * characters of a-z, 0-9 and _, a description of 1–256 characters, at most 100 commands. A leading
 * `/` on a name is dropped; names must be unique.
 */
/** A command's name or description: text (numbers and booleans from expressions count as text). */
const commandText = z
	.union([z.string(), z.number(), z.boolean()], { error: (issue) => `expected text, got ${describeValue(issue.input)}` })
	.nullish()
	.transform((value) => (value === undefined || value === null ? '' : String(value)).trim());

const commandList = z
	.array(
		z.object(
			{
				command: commandText
					.transform((name) => name.replace(/^\//, ''))
					.superRefine((name, ctx) => {
						const { min, max } = LIMITS.commandName;
						if (name.length < min || name.length > max || !/^[a-z0-9_]+$/.test(name)) {
							ctx.addIssue({ code: 'custom', message: `'${name}' must be ${min} to ${max} characters of a-z, 0-9 and _` });
						}
					}),
				description: commandText.superRefine((text, ctx) => {
					const { min, max } = LIMITS.commandDescription;
					if (text.length < min || text.length > max) {
						ctx.addIssue({ code: 'custom', message: `the description is ${text.length} characters, it must be ${min} to ${max}` });
					}
				}),
			},
			{ error: 'is not an object with command and description' },
		),
		{ error: 'must be a JSON array of {"command", "description"} objects' },
	)
	.max(LIMITS.commandsPerList.max, {
		error: (issue) => `has ${(issue.input as unknown[]).length} commands, the limit is ${LIMITS.commandsPerList.max}`,
	})
	.superRefine((commands, ctx) => {
		const seen = new Set<string>();
		commands.forEach(({ command }, index) => {
			if (seen.has(command)) ctx.addIssue({ code: 'custom', message: `/${command} is listed twice`, path: [index] });
			seen.add(command);
		});
	});

/** Commands as a list of command + description, or as JSON. */
function commandFields(param: Param): INodeProperties[] {
	const entry: INodePropertyCollection = {
		displayName: 'Command',
		name: 'command',
		values: [
			{
				displayName: 'Command',
				name: 'command',
				type: 'string',
				default: '',
				placeholder: 'e.g. start',
				description: `Command name without the slash: ${LIMITS.commandName.max} characters at most, of a-z, 0-9 and _`,
			},
			{
				displayName: 'Description',
				name: 'description',
				type: 'string',
				default: '',
				placeholder: 'e.g. Start the bot',
				description: `Shown next to the command, 1 to ${LIMITS.commandDescription.max} characters`,
			},
		],
	};
	return [
		{
			displayName: 'Commands Input',
			name: 'commandsInput',
			type: 'options',
			options: [
				{ name: 'List', value: 'list', description: 'Enter the commands one by one' },
				{ name: 'JSON', value: 'json', description: 'A JSON array of {"command", "description"} objects' },
			],
			default: 'list',
			noDataExpression: true,
			description: 'How to define the commands',
		},
		{
			displayName: param.displayName,
			name: fieldName(param),
			type: 'fixedCollection',
			typeOptions: { multipleValues: true, sortable: true },
			placeholder: 'Add Command',
			default: {},
			required: true,
			description: param.description,
			options: [entry],
			displayOptions: { show: { commandsInput: ['list'] } },
		},
		{
			displayName: `${param.displayName} (JSON)`,
			name: `${fieldName(param)}Json`,
			type: 'json',
			default: '[\n  { "command": "start", "description": "Start the bot" }\n]',
			description: 'A JSON array of {"command", "description"} objects; an empty array clears the list',
			required: true,
			displayOptions: { show: { commandsInput: ['json'] } },
		},
	];
}

/** Commands from the list fields or from JSON (an array, or an object holding `commands`). */
function readCommands(item: ItemContext, at: At, param: Param): IDataObject[] {
	const { ctx, itemIndex } = item;
	let field = param.displayName;
	let value: unknown;
	if (nodeParameter(ctx, 'commandsInput', itemIndex, 'list') === 'json') {
		field = `${param.displayName} (JSON)`;
		const parsed = readJson(at, field, nodeParameter(ctx, 'commandsJson', itemIndex, '[]'));
		value = isObject(parsed) && 'commands' in parsed ? parsed.commands : parsed;
	} else {
		const entries = nodeParameter(ctx, fieldName(param), itemIndex, {}) as IDataObject;
		value = Array.isArray(entries.command) ? entries.command : [];
	}
	if (value === undefined || value === null) return [];
	const checked = checkList(commandList, value, 'command');
	if (!checked.ok) throw inputError(at, field, checked.problems);
	return checked.value as unknown as IDataObject[];
}

export const commandsKind: ParamKindDefinition = {
	fields: commandFields,
	read: (_value, param, item) => readCommands(item, item.at, param),
	ownFields: true,
};
