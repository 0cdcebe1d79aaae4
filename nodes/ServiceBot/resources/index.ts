/** Every method of the action node, grouped by resource in the order the editor lists them. */
import { botMethods } from './bot';
import { callbackMethods } from './callback';
import { chatMethods } from './chat';
import { fileMethods } from './file';
import type { Method, Resource } from './method';
import { messageMethods } from './message';
import { updateMethods } from './update';
import { webhookMethods } from './webhook';

export const RESOURCES: ReadonlyArray<{ value: Resource; name: string; description: string }> = [
	{ value: 'message', name: 'Message', description: 'Send, forward, copy, edit and delete messages' },
	{ value: 'chat', name: 'Chat', description: 'Chat info, members and pinned messages' },
	{ value: 'callback', name: 'Callback', description: 'Answer inline button clicks' },
	{ value: 'bot', name: 'Bot', description: "The bot's name, descriptions and commands" },
	{ value: 'webhook', name: 'Webhook', description: 'Where the service pushes updates' },
	{ value: 'update', name: 'Update', description: 'Poll for updates while no webhook is set' },
	{ value: 'file', name: 'File', description: 'Download the files users send, or get their details' },
	{ value: 'other', name: 'Other', description: 'Call any method by name, for methods without an operation here' },
];

export const METHODS: readonly Method[] = [
	...messageMethods,
	...chatMethods,
	...callbackMethods,
	...botMethods,
	...webhookMethods,
	...updateMethods,
	...fileMethods,
];

const byOperation = new Map(METHODS.map((method) => [`${method.resource}.${method.name}`, method]));

/** The method behind a resource's operation, or undefined when the node has no such operation. */
export function methodOf(resource: string, operation: string): Method | undefined {
	return byOperation.get(`${resource}.${operation}`);
}
