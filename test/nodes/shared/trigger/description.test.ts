/**
 * The triggers' descriptions: saved workflows keep working (every parameter name, value and default of
 * 0.1.0 is still there, property by property, except texts changed on purpose), "Trigger On: All
 * Updates" and the canvas subtitle read as words.
 */
import type { IDisplayOptions, INode, INodeProperties, INodeTypeDescription } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { ServiceBotPollingTrigger } from '../../../../nodes/ServiceBotPollingTrigger/ServiceBotPollingTrigger.node';
import { ServiceBotTrigger } from '../../../../nodes/ServiceBotTrigger/ServiceBotTrigger.node';
import fixture from '../../../fixtures/descriptions-0.1.0.json';
import { TestNodeTypes } from '../../../harness';

const webhookTrigger = new ServiceBotTrigger().description;
const pollingTrigger = new ServiceBotPollingTrigger().description;

/** JSON as n8n stores and sends it (functions and undefined dropped). */
function plain<T>(value: T): T {
	return JSON.parse(JSON.stringify(value)) as T;
}

/** Texts of 0.1.0 changed on purpose (labels, advice, subtitle); everything else must be identical. */
const CHANGED_TEXTS = [
	'subtitle',
	// n8n's nodes panel shows the action node under the trigger's description: it speaks for both.
	'description',
	'properties.oneWebhookNotice.displayName',
	'properties.updates.options.*.name',
	'properties.updates.options.*.description',
	'properties.options.options.maxConnections.description',
	'properties.options.options.chatIds.description',
	'properties.options.options.userIds.description',
	'properties.options.options.takeOverExistingWebhook.description',
	// Answers to a Send and Wait for Response are received whatever Trigger On says.
	'properties.updates.description',
	// Show Typing, a new option (off unless turned on).
	'properties.options.options.showTyping.*',
	// Separate Outputs by Kind, a new option (off unless turned on): the outputs are an expression
	// that gives 0.1.0's one main output while it is off (shared/trigger/output.test.ts evaluates it in n8n).
	'properties.options.options.separateOutputs.*',
	// Stream AI Answers, a new option (off unless turned on): the response mode an expression that gives
	// 'streaming' only while it is on (webhook/options.test.ts evaluates it as n8n does).
	'properties.options.options.streamAnswers.*',
	'webhooks.default.responseMode',
	// Confirm Delivery, a new option: absent in versions 1 and 2 and "When the Run Starts", 0.1.0's
	// 'onReceived'; "When the Run Ends" (version 3's default) 'streaming' (webhook/options.test.ts).
	'properties.options.options.confirmDelivery.*',
	'properties.options.options.confirmDelivery.options.*.*',
	'outputs',
	'outputs.*',
	// Version 2 added (sessionId and chatInput on every item, the handy fields on by default).
	'version',
	'version.*',
	'defaultVersion',
	// Files users send: the handy fields say what file arrived (null fields where none); Download
	// Files (off unless turned on) and Photo Size, new options.
	'properties.options.options.addHandyFields.description',
	'properties.options.options.downloadFiles.*',
	'properties.options.options.photoSize.*',
	'properties.options.options.photoSize.options.*.*',
];

/**
 * The description as a node of version 1 (a saved workflow) sees it: properties shown only for other
 * versions dropped, the version condition of the others removed.
 */
function atVersion1(description: INodeTypeDescription): INodeTypeDescription {
	const properties = description.properties.flatMap((property) => {
		const versions = property.displayOptions?.show?.['@version'];
		if (versions === undefined) return [property];
		if (!(versions as unknown[]).includes(1)) return [];
		const show = { ...property.displayOptions?.show };
		delete show['@version'];
		const displayOptions: IDisplayOptions = { ...property.displayOptions, show: show };
		if (Object.keys(show).length === 0) delete displayOptions.show;
		return [{ ...property, displayOptions: Object.keys(displayOptions).length > 0 ? displayOptions : undefined }];
	});
	return { ...description, properties };
}

/** Flattens a description to path → value, naming properties by their `name` so order does not matter. */
function flatten(value: unknown, path: string, out: Map<string, unknown>): Map<string, unknown> {
	if (Array.isArray(value)) {
		value.forEach((entry, index) => {
			const key = entry && typeof entry === 'object' && 'name' in entry && typeof entry.name === 'string' && !path.endsWith('.updates.options') ? entry.name : String(index);
			flatten(entry, `${path}.${key}`, out);
		});
	} else if (value && typeof value === 'object') {
		for (const [key, entry] of Object.entries(value)) flatten(entry, path ? `${path}.${key}` : key, out);
	} else {
		out.set(path, value);
	}
	return out;
}

function changedOnPurpose(path: string): boolean {
	return CHANGED_TEXTS.some((pattern) => new RegExp(`^${pattern.replace(/\./g, '\\.').replace(/\*/g, '[^.]+')}$`).test(path));
}

describe('Service Bot Trigger description', () => {
	test('every value of 0.1.0 is unchanged except the texts changed on purpose; nothing of 0.1.0 is gone', () => {
		const before = flatten(fixture.serviceBotTrigger, '', new Map());
		const after = flatten(plain(atVersion1(webhookTrigger)), '', new Map());
		const differences: string[] = [];
		for (const [path, value] of before) {
			if (changedOnPurpose(path)) continue;
			if (!after.has(path)) differences.push(`${path} is gone`);
			else if (after.get(path) !== value) differences.push(`${path}: ${JSON.stringify(value)} → ${JSON.stringify(after.get(path))}`);
		}
		for (const path of after.keys()) if (!before.has(path) && !changedOnPurpose(path)) differences.push(`${path} is new`);
		expect(differences).toEqual([]);
		// The changed texts did change (the list above is not stale).
		expect(webhookTrigger.subtitle).not.toBe(fixture.serviceBotTrigger.subtitle);
	});

	test('Trigger On offers All Updates (value * as saved), Message and Callback Query', () => {
		const updates = webhookTrigger.properties.find((property) => property.name === 'updates') as INodeProperties;
		expect(plain(updates.options)).toEqual([
			{ name: 'All Updates', value: '*', description: 'Every kind of update' },
			{ name: 'Message', value: 'message', description: 'A user sends a message in a chat the bot can see' },
			{ name: 'Callback Query', value: 'callback_query', description: 'A user clicks an inline button that has callback data' },
		]);
		expect(updates.default).toEqual(['*']);
	});
});

describe('canvas subtitle', () => {
	function subtitleFor(description: INodeTypeDescription, updates: string[]): string {
		const nodeTypes = new TestNodeTypes();
		const type = nodeTypes.add(new ServiceBotTrigger());
		const node: INode = { id: 'n', name: 'Trigger', type, typeVersion: 1, position: [0, 0], parameters: { updates, options: {} } };
		const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
		return String(workflow.expression.getSimpleParameterValue(node, description.subtitle as string, 'internal', {}));
	}

	test.each([
		[['*'], 'On all updates'],
		[[], 'On all updates'],
		[['message'], 'On messages'],
		[['callback_query'], 'On button clicks'],
		[['message', 'callback_query'], 'On messages and button clicks'],
	])('Trigger On %j reads "%s" on both triggers', (updates, expected) => {
		expect(subtitleFor(webhookTrigger, updates)).toBe(expected);
		expect(subtitleFor(pollingTrigger, updates)).toBe(expected);
	});
});

describe('Service Bot Polling Trigger description', () => {
	test('a trigger without webhooks, with the same Trigger On and shared options as the webhook trigger', () => {
		expect(pollingTrigger.name).toBe('serviceBotPollingTrigger');
		expect(pollingTrigger.webhooks).toBeUndefined();
		expect(pollingTrigger.group).toEqual(['trigger']);
		const updates = (description: INodeTypeDescription): unknown => plain(description.properties.find((property) => property.name === 'updates'));
		expect(updates(pollingTrigger)).toEqual(updates(webhookTrigger));
		const options = pollingTrigger.properties.find((property) => property.name === 'options') as INodeProperties;
		const byName = new Map((options.options as INodeProperties[]).map((option) => [option.name, option]));
		expect([...byName.keys()].sort()).toEqual(
			['addHandyFields', 'chatIds', 'deleteExistingWebhook', 'downloadFiles', 'groupMessagesSeconds', 'longPollTimeout', 'photoSize', 'placeholderWhileThinking', 'separateOutputs', 'showTyping', 'updatesPerRequest', 'userIds'].sort(),
		);
		// Off unless set, so saved workflows run every message at once as before.
		expect(byName.get('groupMessagesSeconds')).toMatchObject({ default: 0, typeOptions: { minValue: 0 } });
		// The spec's ranges (part 8: getUpdates timeout 0–50 s, limit 1–100) and the defaults.
		expect(byName.get('longPollTimeout')).toMatchObject({ default: 45, typeOptions: { minValue: 0, maxValue: 50 } });
		expect(byName.get('updatesPerRequest')).toMatchObject({ default: 100, typeOptions: { minValue: 1, maxValue: 100 } });
		expect(byName.get('deleteExistingWebhook')).toMatchObject({ default: false });
		// Off unless set: no placeholder is posted for saved workflows.
		expect(byName.get('placeholderWhileThinking')).toMatchObject({ type: 'string', default: '' });
	});
});
