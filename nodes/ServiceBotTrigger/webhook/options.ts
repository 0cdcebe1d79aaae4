/**
 * The webhook trigger's own options (the ones only webhook delivery has): their fields, which the
 * node adds to the Options collection both triggers show (shared/trigger/description.ts), and their
 * reader, checked before the webhook is set.
 */
import type { INodeParameters, INodeProperties, IWebhookDescription, WEBHOOK_RESOLVERS } from 'n8n-workflow';

import { LIMITS } from '../../shared/spec';
import type { TriggerContext } from '../../shared/trigger/identity';
import { optionsOf, wholeNumber } from '../../shared/trigger/settings';

/** The node version from which Confirm Delivery is "When the Run Ends" unless chosen otherwise. */
export const CONFIRMS_AFTER_RUN_SINCE = 3;

type ConfirmDelivery = 'afterRun' | 'whenStarted';

function confirmDeliveryField(defaultValue: ConfirmDelivery): INodeProperties {
	return {
		displayName: 'Confirm Delivery',
		name: 'confirmDelivery',
		type: 'options',
		default: defaultValue,
		description:
			'When the service is told that an update arrived. Until then it keeps the update and sends it again. In queue mode a run whose worker dies is not run again with either choice: the Polling Trigger runs it again.',
		options: [
			{
				name: 'When the Run Starts',
				value: 'whenStarted',
				description:
					'As soon as the execution exists. A run that a restart or a kill of n8n (regular mode) cuts off is not run again. In queue mode a restart of the main or of a webhook process loses nothing with it, and it is faster.',
			},
			{
				name: 'When the Run Ends',
				value: 'afterRun',
				description:
					'Nothing is lost when n8n restarts or is killed: an update whose run was cut off comes again. A run longer than 7 s is confirmed at 7 s. In queue mode give n8n a database pool of 10 (DB_POSTGRESDB_POOL_SIZE).',
			},
		],
	};
}

/**
 * Confirm Delivery's default in this node version, a hidden parameter that is never saved (a default):
 * n8n 2.x works out the webhook's response mode from the node's parameters alone, without its version
 * (RESPONSE_MODE below), and gives a node the defaults of the parameters its version shows. So a
 * version 3 node that never added the option has it, and versions 1 and 2 do not ("When the Run Starts",
 * what their saved workflows always did).
 */
export const confirmDeliveryDefault: INodeProperties = {
	displayName: 'Confirm Delivery Default',
	name: 'confirmDeliveryDefault',
	type: 'hidden',
	default: 'afterRun',
	displayOptions: { show: { '@version': [{ _cnd: { gte: CONFIRMS_AFTER_RUN_SINCE } }] } },
};

const sharedWebhookOptionFields: INodeProperties[] = [
	{
		displayName: 'Drop Pending Updates',
		name: 'dropPendingUpdates',
		type: 'boolean',
		default: false,
		description: 'Whether to discard the updates the service has queued but not yet delivered when the webhook is set',
	},
	{
		displayName: 'Max Connections',
		name: 'maxConnections',
		type: 'number',
		typeOptions: { minValue: LIMITS.maxConnections.min, maxValue: LIMITS.maxConnections.max },
		default: 40,
		description: 'Maximum number of simultaneous connections the service opens to deliver updates (a whole number from 1 to 100)',
	},
	{
		displayName: 'Stream AI Answers',
		name: 'streamAnswers',
		type: 'boolean',
		default: false,
		description:
			"Whether to post the answer of an AI Agent with Enable Streaming in the update's chat as the model writes it: sent at the first words, edited about once a second as it grows, and ending exactly as Send Message with Markdown From AI would send it. The trigger then posts the answer itself: a Send Message with the Agent's output after it would send the answer a second time.",
	},
	{
		displayName: 'Take Over Existing Webhook',
		name: 'takeOverExistingWebhook',
		type: 'boolean',
		default: false,
		description:
			'Whether to replace a webhook that points to another n8n or system. It then stops receiving updates and does not get them back: register its webhook again afterwards. Not needed for other workflows of this n8n, which share the bot.',
	},
];

/** The webhook's own options: version 1 and 2, then version 3 (Confirm Delivery's default is the run's end). */
export const webhookOptionFields: INodeProperties[] = [confirmDeliveryField('whenStarted'), ...sharedWebhookOptionFields];
export const webhookOptionFieldsV3: INodeProperties[] = [confirmDeliveryField('afterRun'), ...sharedWebhookOptionFields];

/** The options as saved: each absent until added. */
interface SavedWebhookOptions {
	takeOverExistingWebhook?: boolean;
	dropPendingUpdates?: boolean;
	maxConnections?: number;
	streamAnswers?: boolean;
	confirmDelivery?: ConfirmDelivery;
}

export interface WebhookOptions {
	readonly takeOver: boolean;
	readonly dropPendingUpdates: boolean;
	/** Absent: the service's default (40). */
	readonly maxConnections: number | undefined;
}

export function readWebhookOptions(ctx: TriggerContext): WebhookOptions {
	const options = optionsOf<SavedWebhookOptions>(ctx);
	return {
		takeOver: options.takeOverExistingWebhook === true,
		dropPendingUpdates: options.dropPendingUpdates === true,
		maxConnections: wholeNumber(ctx, 'Max Connections', options.maxConnections, LIMITS.maxConnections),
	};
}

/** Stream AI Answers: n8n then hands the execution's chunks to the push's response (`RESPONSE_MODE`). */
export function streamsAnswers(ctx: TriggerContext): boolean {
	return optionsOf<SavedWebhookOptions>(ctx).streamAnswers === true;
}

/** Confirm Delivery as chosen, else as this node version's default. */
function confirmDeliveryOf(parameters: INodeParameters): ConfirmDelivery {
	const chosen = (parameters.options as SavedWebhookOptions | undefined)?.confirmDelivery;
	return chosen ?? (parameters.confirmDeliveryDefault === 'afterRun' ? 'afterRun' : 'whenStarted');
}

/** Confirm Delivery "When the Run Ends": n8n ends the push's response when its run ended (webhook/answer.ts). */
export function confirmsAfterRun(ctx: TriggerContext): boolean {
	return !streamsAnswers(ctx) && confirmDeliveryOf(ctx.getNode().parameters) === 'afterRun';
}

/** The response mode, as n8n evaluates it for each push before webhook() runs. */
const RESPONSE_MODE_TEMPLATE =
	'={{ $parameter["options"]["streamAnswers"] || ($parameter["options"]["confirmDelivery"] || $parameter["confirmDeliveryDefault"]) === "afterRun" ? "streaming" : "onReceived" }}';

function responseModeOf(parameters: INodeParameters): string {
	const options = parameters.options as SavedWebhookOptions | undefined;
	return options?.streamAnswers || confirmDeliveryOf(parameters) === 'afterRun' ? 'streaming' : 'onReceived';
}

/**
 * n8n-workflow's `WEBHOOK_RESOLVERS` (2.x): a registered symbol, the same in every copy of n8n-workflow;
 * taken by its registered name because n8n 1.x's n8n-workflow has no such export (and ignores the key).
 */
const RESOLVERS = Symbol.for('n8n.webhookDescriptionResolvers') as typeof WEBHOOK_RESOLVERS;

/**
 * The webhook's response mode: 'streaming' (n8n hands the push's response to the execution and ends
 * it when the execution has ended) with Stream AI Answers, and with Confirm Delivery "When the Run
 * Ends" (webhook/answer.ts); else 'onReceived' (n8n answers once the execution exists), as before the
 * options existed, so saved workflows keep their behaviour. An expression, which n8n 1.x evaluates
 * per push; n8n 2.x resolves it with the resolver beside it, from the node's parameters, without the
 * expression engine (its `resolveWebhookDescriptionField`), which costs a push about 0.2 ms otherwise
 * (test/bench/README.md).
 */
export const RESPONSE_MODE: Pick<IWebhookDescription, 'responseMode' | typeof WEBHOOK_RESOLVERS> = {
	responseMode: RESPONSE_MODE_TEMPLATE,
	[RESOLVERS]: {
		responseMode: {
			template: RESPONSE_MODE_TEMPLATE,
			resolve: (parameters: INodeParameters) => responseModeOf(parameters),
		},
	},
};
