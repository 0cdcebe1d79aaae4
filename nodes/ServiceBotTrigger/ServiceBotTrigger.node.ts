import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { DOCUMENTATION_URL, LIMITS, UPDATE_TYPES } from '../shared/spec';
import { CREDENTIAL_TYPE, callMethod, redact } from '../shared/transport';
import { seenBefore } from './dedupe';
import { applyFilters, isUpdate, parseIdList, withHandyFields } from './filters';
import type { WebhookIdentity } from './secret';
import { SECRET_HEADER, deriveSecret, fingerprint, secretMatches } from './secret';

type TriggerContext = IHookFunctions | IWebhookFunctions;

interface TriggerOptions {
	takeOverExistingWebhook?: boolean;
	dropPendingUpdates?: boolean;
	maxConnections?: number;
	chatIds?: string;
	userIds?: string;
	addHandyFields?: boolean;
}

/** What create() last registered, kept in the node's static data for checkExists(). */
interface RegistrationRecord {
	url: string;
	/** One-way tag of the secret and the options sent with it; never the secret itself. */
	tag: string;
}

const REGISTRATION_KEY = 'registration';

const UPDATE_TYPE_NAMES: Record<(typeof UPDATE_TYPES)[number], { name: string; description: string }> = {
	message: { name: 'Message', description: 'A user sends a message in a chat the bot can see' },
	callback_query: { name: 'Callback Query', description: 'A user clicks an inline button that has callback data' },
};

function optionsOf(ctx: TriggerContext): TriggerOptions {
	return ctx.getNodeParameter('options', {}) as TriggerOptions;
}

/** Trigger On → the `allowed_updates` list sent to the service, and the types webhook() runs for. */
function selectedTypes(ctx: TriggerContext): { allowedUpdates: string[]; filterTypes: string[] } {
	const value = ctx.getNodeParameter('updates', []) as unknown;
	const selected = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split(',').map((v) => v.trim()) : [];
	if (selected.length === 0 || selected.includes('*')) {
		// "All": the full list rather than an empty one. The spec only says the listed types are
		// forwarded, so an empty list might mean none, and an absent list may keep an older filter.
		return { allowedUpdates: [...UPDATE_TYPES], filterTypes: [] };
	}
	const types = UPDATE_TYPES.filter((type) => selected.includes(type));
	return { allowedUpdates: [...types], filterTypes: [...types] };
}

async function tokenOf(ctx: TriggerContext): Promise<string> {
	const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
	const token = typeof credentials.accessToken === 'string' ? credentials.accessToken : '';
	if (token === '') {
		throw new NodeOperationError(ctx.getNode(), 'The Service Bot API credential has no access token');
	}
	return token;
}

function identityOf(ctx: TriggerContext, url: string): WebhookIdentity {
	const node = ctx.getNode();
	return {
		workflowId: String(ctx.getWorkflow().id ?? ''),
		nodeId: node.id,
		webhookId: node.webhookId ?? '',
		url,
	};
}

/** The URL n8n registers for this node: the test URL during a test run in the editor. */
function registeredUrl(ctx: IHookFunctions): string {
	const url = ctx.getNodeWebhookUrl('default');
	if (!url) throw new NodeOperationError(ctx.getNode(), 'n8n did not provide a webhook URL for this trigger');
	return url;
}

/**
 * The URL this request arrived on. In n8n 2.41 `getNodeWebhookUrl` in a webhook context always
 * gives the production URL, even during a test run; `getWebhookResourceUrl` gives the endpoint
 * actually served. Older n8n versions lack it, and there `getNodeWebhookUrl` follows the test flag.
 */
function servedUrl(ctx: IWebhookFunctions): string | undefined {
	const resourceUrl = (ctx as Partial<Pick<IWebhookFunctions, 'getWebhookResourceUrl'>>).getWebhookResourceUrl;
	return typeof resourceUrl === 'function' ? resourceUrl.call(ctx, 'default') : ctx.getNodeWebhookUrl('default');
}

function sameUrl(a: string, b: string): boolean {
	return a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}

/** A URL for an error message: no user info or query string (they may hold someone's secret), no token. */
function displayUrl(url: string, token: string): string {
	let shown = url;
	try {
		const parsed = new URL(url);
		shown = `${parsed.protocol}//${parsed.host}${parsed.pathname}${parsed.search ? '?…' : ''}`;
	} catch {
		shown = url.split('?')[0];
	}
	return redact(shown, token);
}

async function currentWebhookUrl(ctx: IHookFunctions): Promise<string> {
	const info = await callMethod<IDataObject | null>(ctx, 'getWebhookInfo', {}, { idempotent: true });
	return info && typeof info.url === 'string' ? info.url : '';
}

function registrationTag(secret: string, allowedUpdates: string[], options: TriggerOptions): string {
	return fingerprint(secret, allowedUpdates.join(','), String(options.maxConnections ?? ''));
}

export class ServiceBotTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Service Bot Trigger',
		name: 'serviceBotTrigger',
		icon: { light: 'file:../../icons/serviceBotTrigger.svg', dark: 'file:../../icons/serviceBotTrigger.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{"On " + ($parameter["updates"] || []).join(", ")}}',
		description: 'Starts the workflow when the Service bot receives a message or a button click',
		documentationUrl: `${DOCUMENTATION_URL}#trigger`,
		defaults: {
			name: 'Service Bot Trigger',
		},
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'serviceBotApi',
				required: true,
			},
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				path: 'webhook',
			},
		],
		properties: [
			{
				displayName:
					'A bot has only one webhook. Activating this trigger fails while another workflow or system owns it (unless you turn on "Take Over Existing Webhook"), and testing in the editor while this workflow is active would take the webhook away from it.',
				name: 'oneWebhookNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Trigger On',
				name: 'updates',
				type: 'multiOptions',
				required: true,
				default: ['*'],
				description: 'The kinds of update that start the workflow; the service is told to send only these',
				options: [
					{ name: '*', value: '*', description: 'All kinds of update' },
					...UPDATE_TYPES.map((type) => ({ value: type, ...UPDATE_TYPE_NAMES[type] })),
				],
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					{
						displayName: 'Add Handy Fields',
						name: 'addHandyFields',
						type: 'boolean',
						default: false,
						description:
							'Whether to add top-level fields to the output: update_type, chat_id, message_id, user_id, user, text, callback_data and callback_query_id',
					},
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
						description: 'Maximum number of simultaneous connections the service opens to deliver updates',
					},
					{
						displayName: 'Restrict to Chat IDs',
						name: 'chatIds',
						type: 'string',
						default: '',
						placeholder: 'e.g. 1f0c6b6e-3a5d-4e8b-9a51-0c2d8e1f4b7a, 7d2e…',
						description:
							'Comma-separated chat IDs. When set, only updates from these chats (messages and button clicks) start the workflow; updates whose chat cannot be determined are dropped.',
					},
					{
						displayName: 'Restrict to User IDs',
						name: 'userIds',
						type: 'string',
						default: '',
						placeholder: 'e.g. 4b9f2c1d-8e7a-4f3b-b2c6-5d1e0a9f8c3b, 9a1e…',
						description:
							'Comma-separated user IDs. When set, only updates from these users (senders and clicking users) start the workflow; updates whose user cannot be determined are dropped.',
					},
					{
						displayName: 'Take Over Existing Webhook',
						name: 'takeOverExistingWebhook',
						type: 'boolean',
						default: false,
						description:
							'Whether to replace a webhook that points to another URL. The other workflow or system then stops receiving updates.',
					},
				],
			},
		],
	};

	webhookMethods = {
		default: {
			/**
			 * True only when the bot's webhook is this node's URL and was registered by create() with
			 * the secret and options this node would use now. The service never reveals a webhook's
			 * secret, so "its secret is known" is proven by the record create() keeps in static data;
			 * without that record (or after a token or option change) n8n calls create(), which sets
			 * the same URL again — harmless, and it makes sure the service has the current secret.
			 */
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const url = registeredUrl(this);
				const current = await currentWebhookUrl(this);
				if (!current || !sameUrl(current, url)) return false;

				const record = this.getWorkflowStaticData('node')[REGISTRATION_KEY] as Partial<RegistrationRecord> | undefined;
				if (!record || typeof record.url !== 'string' || !sameUrl(record.url, url)) return false;

				const secret = deriveSecret(await tokenOf(this), identityOf(this, url));
				const { allowedUpdates } = selectedTypes(this);
				return record.tag === registrationTag(secret, allowedUpdates, optionsOf(this));
			},

			async create(this: IHookFunctions): Promise<boolean> {
				const url = registeredUrl(this);
				const token = await tokenOf(this);
				const options = optionsOf(this);
				const node = this.getNode();

				const current = await currentWebhookUrl(this);
				if (current && !sameUrl(current, url)) {
					const shown = displayUrl(current, token);
					if (!options.takeOverExistingWebhook) {
						const ownProduction =
							node.webhookId !== undefined && current.replace(/\/+$/, '').endsWith(`/${node.webhookId}/webhook`);
						throw new NodeOperationError(node, `The bot's webhook already points to another URL: ${shown}`, {
							description: ownProduction
								? `That is the production URL of this trigger: the workflow is active and owns the bot's webhook. A bot has only one webhook, so testing in the editor would take it away from the active workflow. Deactivate the workflow to test, test with a second bot, or turn on the option "Take Over Existing Webhook" (then activate the workflow again after testing).`
								: `A bot has only one webhook, and it delivers to ${shown}, not to this trigger (${displayUrl(url, token)}). Deactivate the workflow or system that owns that webhook, or turn on the option "Take Over Existing Webhook" in this trigger (the other receiver then stops getting updates).`,
						});
					}
					this.logger.warn(
						`Service Bot Trigger "${node.name}": taking over the bot's webhook from ${shown} ("Take Over Existing Webhook" is on)`,
					);
				}

				const secret = deriveSecret(token, identityOf(this, url));
				const { allowedUpdates } = selectedTypes(this);
				const body: IDataObject = {
					url,
					secret_token: secret,
					allowed_updates: allowedUpdates,
				};
				if (options.maxConnections !== undefined) body.max_connections = options.maxConnections;
				if (options.dropPendingUpdates === true) body.drop_pending_updates = true;

				await callMethod(this, 'setWebhook', body);

				const record: RegistrationRecord = { url, tag: registrationTag(secret, allowedUpdates, options) };
				this.getWorkflowStaticData('node')[REGISTRATION_KEY] = record as unknown as IDataObject;
				return true;
			},

			/**
			 * Removes the bot's webhook only while it is still this node's URL. A webhook that is already
			 * gone, or that now belongs to someone else, is left alone and is not an error. Failures are
			 * logged and reported as `false` rather than thrown: a throw here would stop n8n from
			 * deregistering the workflow's other webhooks and from finishing the deactivation.
			 */
			async delete(this: IHookFunctions): Promise<boolean> {
				const node = this.getNode();
				const staticData = this.getWorkflowStaticData('node');
				let url = '';
				try {
					url = registeredUrl(this);
					const current = await currentWebhookUrl(this);
					if (!current) {
						delete staticData[REGISTRATION_KEY];
						return true;
					}
					if (!sameUrl(current, url)) {
						delete staticData[REGISTRATION_KEY];
						this.logger.warn(
							`Service Bot Trigger "${node.name}": the bot's webhook now points to another URL, so it was left untouched`,
						);
						return true;
					}
					await callMethod(this, 'deleteWebhook', {});
					delete staticData[REGISTRATION_KEY];
					return true;
				} catch (error) {
					const message = error instanceof Error ? error.message : String(error);
					this.logger.error(
						`Service Bot Trigger "${node.name}": could not remove the bot's webhook${url ? ` (${url})` : ''}: ${message}`,
						{ workflowId: this.getWorkflow().id, node: node.name },
					);
					return false;
				}
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const node = this.getNode();
		const url = servedUrl(this);
		const token = await tokenOf(this);
		const expected = url ? deriveSecret(token, identityOf(this, url)) : '';

		// The secret first: nothing of the request is used before the sender is proven to be the service.
		if (!secretMatches(this.getHeaderData()[SECRET_HEADER], expected)) {
			this.logger.debug(`Service Bot Trigger "${node.name}": refused a request without the right secret`);
			this.getResponseObject().status(403).end();
			return { noWebhookResponse: true };
		}

		const body: unknown = this.getBodyData();
		if (!isUpdate(body)) {
			this.logger.warn(`Service Bot Trigger "${node.name}": acknowledged a request that is not an update`);
			return {};
		}

		const options = optionsOf(this);
		const verdict = applyFilters(body, {
			types: selectedTypes(this).filterTypes,
			chatIds: parseIdList(options.chatIds),
			userIds: parseIdList(options.userIds),
		});
		if (!verdict.pass) {
			this.logger.debug(`Service Bot Trigger "${node.name}": update ${body.update_id} not run: ${verdict.reason}`);
			return {};
		}

		if (seenBefore(fingerprint('dedupe', expected), body.update_id, this.getWorkflowStaticData('node'))) {
			this.logger.debug(`Service Bot Trigger "${node.name}": update ${body.update_id} already received, not run again`);
			return {};
		}

		const item = options.addHandyFields ? withHandyFields(body) : (body as IDataObject);
		return { workflowData: [this.helpers.returnJsonArray([item])] };
	}
}
