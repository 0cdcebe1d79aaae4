/**
 * The webhook's response mode (Stream AI Answers, Confirm Delivery): the expression n8n 1.x evaluates
 * and the resolver n8n 2.41 uses instead (without the expression engine) give the same mode for every
 * way the options can be saved: 'streaming' (n8n hands the push's response to the execution and ends
 * it when the run has ended) with Stream AI Answers on or Confirm Delivery "When the Run Ends"; else
 * 'onReceived', what every trigger had before the options.
 */
import type { INode, INodeParameters } from 'n8n-workflow';
import { Workflow, resolveWebhookDescriptionField } from 'n8n-workflow';

import { ServiceBotTrigger } from '../../../../nodes/ServiceBotTrigger/ServiceBotTrigger.node';
import { TestNodeTypes } from '../../../harness/node-types';

const saved: Array<[string, INodeParameters, string]> = [
	['no options', { updates: ['message'] }, 'onReceived'],
	['options without them', { updates: ['message'], options: { showTyping: true } }, 'onReceived'],
	['streaming off', { updates: ['message'], options: { streamAnswers: false } }, 'onReceived'],
	['streaming on', { updates: ['message'], options: { streamAnswers: true, showTyping: true } }, 'streaming'],
	['confirm when the run ends', { updates: ['message'], options: { confirmDelivery: 'afterRun' } }, 'streaming'],
	['confirm when the run starts', { updates: ['message'], options: { confirmDelivery: 'whenStarted' } }, 'onReceived'],
	['confirm when the run starts, streaming on', { updates: ['message'], options: { confirmDelivery: 'whenStarted', streamAnswers: true } }, 'streaming'],
];

test.each(saved)('%s: the engine and the native resolver both give the same mode', (_name, parameters, expected) => {
	const nodeTypes = new TestNodeTypes();
	const type = nodeTypes.add(new ServiceBotTrigger());
	const node: INode = { id: 'n', name: 'Trigger', type, typeVersion: 2, position: [0, 0], parameters };
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
