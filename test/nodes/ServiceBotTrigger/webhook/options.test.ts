/**
 * The webhook's response mode (Stream AI Answers, Confirm Delivery): the expression n8n 1.x evaluates
 * and the resolver n8n 2.41 uses instead (without the expression engine) give the same mode for every
 * way the options can be saved: 'streaming' (n8n hands the push's response to the execution and ends
 * it when the run has ended) with Stream AI Answers on or Confirm Delivery "When the Run Ends"; else
 * 'onReceived', what every trigger had before the options.
 */
import type { INode, INodeParameters } from 'n8n-workflow';
import { NodeHelpers, Workflow, resolveWebhookDescriptionField } from 'n8n-workflow';

import { ServiceBotTrigger } from '../../../../nodes/ServiceBotTrigger/ServiceBotTrigger.node';
import { TestNodeTypes } from '../../../harness/node-types';

const saved: Array<[string, number, INodeParameters, string]> = [
	['no options', 2, { updates: ['message'] }, 'onReceived'],
	['options without them', 2, { updates: ['message'], options: { showTyping: true } }, 'onReceived'],
	['streaming off', 2, { updates: ['message'], options: { streamAnswers: false } }, 'onReceived'],
	['streaming on', 2, { updates: ['message'], options: { streamAnswers: true, showTyping: true } }, 'streaming'],
	['confirm when the run ends', 2, { updates: ['message'], options: { confirmDelivery: 'afterRun' } }, 'streaming'],
	['confirm when the run starts', 2, { updates: ['message'], options: { confirmDelivery: 'whenStarted' } }, 'onReceived'],
	['confirm when the run starts, streaming on', 2, { updates: ['message'], options: { confirmDelivery: 'whenStarted', streamAnswers: true } }, 'streaming'],
	['no options', 1, { updates: ['message'] }, 'onReceived'],
	// Version 3 confirms when the run ends unless told otherwise.
	['no options', 3, { updates: ['message'] }, 'streaming'],
	['options without them', 3, { updates: ['message'], options: { showTyping: true } }, 'streaming'],
	['confirm when the run ends', 3, { updates: ['message'], options: { confirmDelivery: 'afterRun' } }, 'streaming'],
	['confirm when the run starts', 3, { updates: ['message'], options: { confirmDelivery: 'whenStarted' } }, 'onReceived'],
	['confirm when the run starts, streaming on', 3, { updates: ['message'], options: { confirmDelivery: 'whenStarted', streamAnswers: true } }, 'streaming'],
];

test.each(saved)('%s, version %s: the engine and the native resolver both give the same mode', (_name, typeVersion, parameters, expected) => {
	const nodeTypes = new TestNodeTypes();
	const type = nodeTypes.add(new ServiceBotTrigger());
	const node: INode = { id: 'n', name: 'Trigger', type, typeVersion, position: [0, 0], parameters };
	const workflow = new Workflow({ nodes: [node], connections: {}, active: true, nodeTypes });
	const description = new ServiceBotTrigger().description.webhooks?.[0];
	if (!description) throw new Error('the trigger has no webhook');
	const started = workflow.getNode('Trigger')!;
	const byEngine = workflow.expression.getSimpleParameterValue(started, description.responseMode, 'webhook', {}, undefined, 'onReceived');
	const native = resolveWebhookDescriptionField(started, description, 'responseMode');
	expect({ byEngine, native }).toEqual({ byEngine: expected, native: { resolved: true, value: expected } });
});

test('a trigger with an expression among its parameters is evaluated by the engine, to the same mode', () => {
	const nodeTypes = new TestNodeTypes();
	const type = nodeTypes.add(new ServiceBotTrigger());
	const parameters = { updates: ['message'], options: { streamAnswers: true, chatIds: '={{ "1" }}' } };
	const node: INode = { id: 'n', name: 'Trigger', type, typeVersion: 2, position: [0, 0], parameters };
	const workflow = new Workflow({ nodes: [node], connections: {}, active: true, nodeTypes });
	const description = new ServiceBotTrigger().description.webhooks![0];
	const started = workflow.getNode('Trigger')!;
	expect(resolveWebhookDescriptionField(started, description, 'responseMode')).toEqual({ resolved: false });
	expect(workflow.expression.getSimpleParameterValue(started, description.responseMode, 'webhook', {}, undefined, 'onReceived')).toBe('streaming');
});

test.each([
	[1, 'whenStarted'],
	[2, 'whenStarted'],
	[3, 'afterRun'],
])('version %s: Confirm Delivery, when added in the editor, starts at %s', (typeVersion, expected) => {
	const description = new ServiceBotTrigger().description;
	const node: INode = { id: 'n', name: 'Trigger', type: 'serviceBotTrigger', typeVersion, position: [0, 0], parameters: {} };
	const shown = description.properties.filter((property) => property.name === 'options' && NodeHelpers.displayParameter({}, property, node, description));
	expect(shown).toHaveLength(1);
	const field = shown[0].options?.find((option) => 'name' in option && option.name === 'confirmDelivery');
	expect(field && 'default' in field ? field.default : undefined).toBe(expected);
});
