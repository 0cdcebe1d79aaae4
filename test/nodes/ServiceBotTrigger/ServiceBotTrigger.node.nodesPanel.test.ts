/**
 * n8n's nodes panel (the node creator: "What triggers this workflow?", "What happens next?" and its
 * search) shows an action node and the trigger whose type name is the action's plus "Trigger" as one
 * entry, and gives that entry the trigger's description (n8n 1.123 and 2.41, editor-ui
 * nodeCreator/composables/useActionsGeneration.ts, generateMergedNodesAndActions:
 * `trigger.name.replace('Trigger', '')` finds the app, then `app.description = trigger.description`).
 * The rule is written here as n8n's editor applies it to the loaded node types.
 */
import type { INodeTypeDescription } from 'n8n-workflow';

import { ServiceBot } from '../../../nodes/ServiceBot/ServiceBot.node';
import { ServiceBotPollingTrigger } from '../../../nodes/ServiceBotPollingTrigger/ServiceBotPollingTrigger.node';
import { ServiceBotTrigger } from '../../../nodes/ServiceBotTrigger/ServiceBotTrigger.node';

const PACKAGE = 'n8n-nodes-service-bot';

/** The description of each entry the panel lists, by entry name, as n8n merges the package's nodes. */
function panelEntries(descriptions: INodeTypeDescription[]): Map<string, string> {
	const typed = descriptions.map((description) => ({ ...description, name: `${PACKAGE}.${description.name}` }));
	const entries = new Map<string, string>();
	for (const app of typed.filter((node) => !node.group.includes('trigger'))) entries.set(app.name, app.description);
	for (const trigger of typed.filter((node) => node.group.includes('trigger'))) {
		const appName = trigger.name.replace('Trigger', '');
		entries.set(entries.has(appName) ? appName : trigger.name, trigger.description);
	}
	return entries;
}

describe("the nodes panel's entries", () => {
	const entries = panelEntries([new ServiceBot().description, new ServiceBotTrigger().description, new ServiceBotPollingTrigger().description]);

	test('"Service Bot" (the action node with the webhook trigger) is described as sending and as starting workflows', () => {
		expect(entries.get(`${PACKAGE}.serviceBot`)).toBe(
			'Send messages, keyboards and questions with a Service bot, and start workflows on its messages and button clicks',
		);
	});

	test('the Polling Trigger is an entry of its own, described as the trigger it is', () => {
		expect([...entries.keys()].sort()).toEqual([`${PACKAGE}.serviceBot`, `${PACKAGE}.serviceBotPollingTrigger`]);
		expect(entries.get(`${PACKAGE}.serviceBotPollingTrigger`)).toMatch(/^Starts the workflow when the Service bot receives a message or a button click/);
	});
});
