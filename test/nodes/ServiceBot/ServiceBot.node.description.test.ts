/**
 * The node description against the spec (test/spec.ts): operations are exactly the spec's methods
 * plus Call Method, each under its resource, and every wire parameter of the spec has a field.
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { Expression } from 'n8n-workflow';

import { CHAT_ACTIONS, FILES, LIMITS, METHODS, PACKAGE_RULES, PARSE_MODES, RESOURCES, UPDATE_TYPES } from '../../spec';
import { fieldName, nodeType, shownFor } from '../../harness/action-node';

const { description } = nodeType;
const properties = description.properties;

function operationSelectors(): INodeProperties[] {
	return properties.filter((property) => property.name === 'operation');
}

function operationValues(): string[] {
	return operationSelectors().flatMap((selector) =>
		(selector.options as INodePropertyOptions[]).map((option) => String(option.value)),
	);
}

function resourceOf(operation: string): string {
	const selector = operationSelectors().find((candidate) =>
		(candidate.options as INodePropertyOptions[]).some((option) => option.value === operation),
	);
	return (selector?.displayOptions?.show?.resource as string[])[0];
}

describe('node description', () => {
	it("operation values are exactly the 33 methods of the spec plus Telegram's getFile, callMethod and sendAndWait", () => {
		const values = operationValues();
		expect(METHODS).toHaveLength(33);
		// sendAndWait: n8n's own value for a send-and-wait operation (n8n-workflow's SEND_AND_WAIT_OPERATION).
		expect([...values].sort()).toEqual([...METHODS.map((method) => method.name), FILES.method, 'callMethod', 'sendAndWait'].sort());
		expect(new Set(values).size).toBe(values.length);
	});

	it('every operation sits under its resource and has an action sentence', () => {
		for (const method of METHODS) {
			expect(resourceOf(method.name)).toBe(method.resource);
		}
		expect(resourceOf(FILES.method)).toBe(FILES.resource);
		expect(resourceOf('callMethod')).toBe('other');
		expect(resourceOf('sendAndWait')).toBe('message');
		for (const selector of operationSelectors()) {
			for (const option of selector.options as INodePropertyOptions[]) {
				expect(typeof option.action).toBe('string');
				expect((option.action as string).length).toBeGreaterThan(5);
				expect(option.description).toBeTruthy();
			}
		}
	});

	it('resources are the resources of the spec, File (Get File) and Other', () => {
		const resource = properties.find((property) => property.name === 'resource') as INodeProperties;
		expect((resource.options as INodePropertyOptions[]).map((option) => option.value)).toEqual([...RESOURCES, FILES.resource, 'other']);
	});

	it('node metadata: tool use, credential, icon, subtitle, documentation', () => {
		expect(description.name).toBe('serviceBot');
		expect(description.displayName).toBe('Service Bot');
		expect(description.usableAsTool).toBe(true);
		expect(description.credentials).toEqual([{ name: 'serviceBotApi', required: true }]);
		expect(description.icon).toEqual({
			light: 'file:../../icons/serviceBot.svg',
			dark: 'file:../../icons/serviceBot.dark.svg',
		});
		expect(description.documentationUrl).toMatch(/^https:\/\/github\.com\/.+#service-bot$/);
		const subtitle = (operation: string) =>
			Expression.resolveWithoutWorkflow((description.subtitle as string).slice(1), { $parameter: { operation } });
		expect(subtitle('sendMessage')).toBe('Send Message');
		expect(subtitle('getChatMemberCount')).toBe('Get Chat Member Count');
		expect(subtitle('callMethod')).toBe('Call Method');
	});

	it('every wire parameter of every method of the spec has a field shown for that operation', () => {
		for (const method of METHODS) {
			const shown = shownFor(method.resource, method.name, { commandsInput: 'list' });
			const top = new Map(shown.map((property) => [property.name, property]));
			const additional = top.get('additionalFields');
			const optional = new Map(
				((additional?.options ?? []) as INodeProperties[]).map((property) => [property.name, property]),
			);
			for (const spec of method.params) {
				if (spec.kind === 'replyMarkup' || spec.kind === 'inlineKeyboard') {
					const markup = top.get('replyMarkup');
					expect(markup).toBeDefined();
					const values = (markup?.options as INodePropertyOptions[]).map((option) => option.value);
					const inlineOnly = spec.kind === 'inlineKeyboard';
					expect(values).toEqual(
						inlineOnly
							? expect.arrayContaining(['none', 'inlineKeyboard'])
							: expect.arrayContaining(['none', 'inlineKeyboard', 'replyKeyboard', 'forceReply', 'removeKeyboard']),
					);
					if (inlineOnly) expect(values).not.toContain('replyKeyboard');
					continue;
				}
				// Required parameters are fields of their own; optional ones may also sit under Additional Fields.
				const field = top.get(fieldName(spec.name)) ?? (spec.required ? undefined : optional.get(fieldName(spec.name)));
				expect({ method: method.name, param: spec.name, found: field !== undefined }).toEqual({
					method: method.name,
					param: spec.name,
					found: true,
				});
				// A required text without a minimum may be empty (setMyDescription in version 1), so the editor
				// does not insist; from version 2 such a text needs a value and removal is its own choice.
				const explicitRemoval = PACKAGE_RULES.explicitRemoval[method.name] === spec.name;
				// A chat From Trigger (the default of a new node) needs no value, so the editor does not insist.
				const fromTrigger = (field?.default as { mode?: string } | undefined)?.mode === 'trigger';
				if ((spec.required || explicitRemoval) && !fromTrigger) {
					expect({ param: spec.name, required: field?.required === true }).toEqual({
						param: spec.name,
						required: explicitRemoval || !(spec.kind === 'text' && !spec.min),
					});
				}
			}
		}
	});

	it('fields have the kinds the issue asks for', () => {
		const send = shownFor('message', 'sendMessage');
		const chat = send.find((property) => property.name === 'chatId') as INodeProperties;
		expect(chat.type).toBe('resourceLocator');
		// A new node replies in the trigger's chat unless told otherwise; saved workflows (version 3) keep By ID.
		expect(chat.modes?.map((mode) => mode.name)).toEqual(['trigger', 'id', 'username']);
		expect(chat.default).toEqual({ mode: 'trigger', value: '' });
		const saved = shownFor('message', 'sendMessage', {}, 3).find((property) => property.name === 'chatId') as INodeProperties;
		expect(saved.modes?.map((mode) => mode.name)).toEqual(['id', 'username']);
		expect(saved.default).toEqual({ mode: 'id', value: '' });
		expect(saved.required).toBe(true);
		const additional = send.find((property) => property.name === 'additionalFields') as INodeProperties;
		const parseMode = (additional.options as INodeProperties[]).find((property) => property.name === 'parseMode');
		expect(parseMode?.default).toBe('none');
		// The spec's parse modes, and the Markdown chat models write, converted to HTML before sending.
		expect((parseMode?.options as INodePropertyOptions[]).map((option) => option.name)).toEqual(['None', ...PARSE_MODES, 'Markdown From AI']);
		const entities = (additional.options as INodeProperties[]).find((property) => property.name === 'entities');
		expect(entities?.type).toBe('json');

		const photo = shownFor('message', 'sendPhoto');
		expect(photo.find((property) => property.name === 'photo')?.required).toBe(true);
		for (const [operation, field] of [
			['sendVideo', 'video'],
			['sendDocument', 'document'],
			['sendVoice', 'voice'],
		]) {
			expect(shownFor('message', operation).some((property) => property.name === field)).toBe(true);
		}

		const action = shownFor('message', 'sendChatAction').find((property) => property.name === 'action');
		expect((action?.options as INodePropertyOptions[]).map((option) => option.value)).toEqual([...CHAT_ACTIONS]);

		const webhook = shownFor('webhook', 'setWebhook');
		const webhookOptions = (webhook.find((property) => property.name === 'additionalFields')?.options ??
			[]) as INodeProperties[];
		expect(webhookOptions.find((property) => property.name === 'secretToken')?.typeOptions?.password).toBe(true);
		const allowed = webhookOptions.find((property) => property.name === 'allowedUpdates');
		expect(allowed?.type).toBe('multiOptions');
		expect((allowed?.options as INodePropertyOptions[]).map((option) => option.value)).toEqual([...UPDATE_TYPES]);
		expect(webhookOptions.find((property) => property.name === 'maxConnections')?.default).toBe(LIMITS.maxConnections.default);

		const commands = shownFor('bot', 'setMyCommands', { commandsInput: 'list' });
		expect(commands.map((property) => property.name)).toEqual(
			expect.arrayContaining(['commandsInput', 'commands', 'additionalFields']),
		);
		expect(shownFor('bot', 'setMyCommands', { commandsInput: 'json' }).map((property) => property.name)).toContain(
			'commandsJson',
		);
	});

	it('options: Concurrency (default 8) where items can run in parallel, Split Long Text on sendMessage', () => {
		const optionsOf = (resource: string, operation: string): INodeProperties[] =>
			(shownFor(resource, operation).find((property) => property.name === 'options')?.options ?? []) as INodeProperties[];
		const send = optionsOf('message', 'sendMessage');
		expect(send.find((option) => option.name === 'concurrency')?.default).toBe(8);
		expect(send.find((option) => option.name === 'splitLongText')?.default).toBe(false);
		expect(optionsOf('chat', 'getChatAdministrators').map((option) => option.name)).toEqual(
			expect.arrayContaining(['concurrency', 'splitIntoItems']),
		);
		expect(optionsOf('bot', 'getMyCommands').map((option) => option.name)).toEqual(['splitIntoItems']);
		expect(optionsOf('webhook', 'setWebhook')).toEqual([]);
		expect(optionsOf('other', 'callMethod').map((option) => option.name)).toEqual(['concurrency']);
	});

	it("Send and Wait's Approval Options says on its button which buttons are asked without it: Approve and Decline", () => {
		const approval = shownFor('message', 'sendAndWait').find((property) => property.name === 'approvalOptions');
		expect(approval?.placeholder).toBe('Change the Buttons (default: ✅ Approve, ❌ Decline)');
		expect(approval?.default).toEqual({});
	});
});
