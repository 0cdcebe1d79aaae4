/**
 * The webhook's lifecycle, as n8n drives it: `checkExists` then `create` when a workflow is published
 * (mode 'trigger') or when the editor listens for a test event (mode 'manual', on the test URL), and
 * `delete` when it is unpublished or the test ends (mode 'internal' for both, with the URL of the
 * registration being removed). n8n does not call them again when it restarts.
 *
 * A bot has one webhook; the triggers of this n8n share it (listeners.ts):
 * - a trigger joins the bot's listeners, or registers alone when there are none; a test in the
 *   editor is one more listener, so published workflows keep receiving while it listens;
 * - leaving, it registers the others again (the next one receives when it was the receiver), or
 *   removes the webhook when it was the last;
 * - a foreign webhook (another n8n, another system) is replaced only with "Take Over Existing
 *   Webhook", and never deleted.
 */
import type { IDataObject, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { callMethod, messageOf, pause } from '../../shared/transport';
import type { Run } from '../../shared/trigger/identity';
import { fingerprint, identityOf, runOf } from '../../shared/trigger/identity';
import { describeWorkflows, forgetHolder, holderOf, holdersOf, recordHolder, warnOfSharedClicks } from '../../shared/trigger/holders';
import type { WebhookOptions } from '../../shared/trigger/settings';
import { ALLOWED_UPDATES, readDeliverySettings, readWebhookOptions, requireToken, serviceBaseUrl } from '../../shared/trigger/settings';
import { displayUrl, webhookInfo } from '../../shared/trigger/webhookInfo';
import type { Listener } from './listeners';
import { MAX_LISTENERS, inServingOrder, listenerOf, listenersOf, registeredUrlOf, webhookIdOf } from './listeners';
import { deriveSecret, secretDigest, sharedSecret } from './secret';
import { sameUrl, webhookUrlProblem } from './urls';

/** What create() registered, kept in the node's static data (a test's own static data for a test). */
interface RegistrationRecord {
	url: string;
	/** One-way tag of the secret and the options sent with it; never the secret itself. */
	tag: string;
	/** Digest of the secret the service was given (`secretDigest`), so pushes stay accepted after a token change. */
	secretDigest?: string;
	/**
	 * Digest of this trigger's shared secret as a receiver (`sharedSecret`) under the token of create():
	 * another listener may register the bot with it (listeners.ts), and the service keeps sending it
	 * after a token change, as it keeps the direct one.
	 */
	sharedSecretDigest?: string;
	/** Absent in records of version 0.1.0, which registered production webhooks only in practice. */
	run?: Run;
	/** A test that took over a foreign webhook: where it pointed (for display only). */
	tookOverFrom?: string;
}

const REGISTRATION_KEY = 'registration';

/** How often a trigger writes the listeners again when another registration replaced its own. */
const MAX_WRITES = 5;

/** The URL n8n registers for this node: the test URL during a test in the editor. */
function registeredUrl(ctx: IHookFunctions): string {
	const url = ctx.getNodeWebhookUrl('default');
	if (!url) throw new NodeOperationError(ctx.getNode(), 'n8n did not provide a webhook URL for this trigger');
	return url;
}

function readRecord(ctx: IHookFunctions | IWebhookFunctions): RegistrationRecord | undefined {
	const record = ctx.getWorkflowStaticData('node')[REGISTRATION_KEY] as RegistrationRecord | undefined;
	return record && typeof record.url === 'string' ? record : undefined;
}

/** The digests of the secrets the service may push to the production webhook with, as create() kept them. */
export function registeredSecretDigests(ctx: IWebhookFunctions): string[] {
	const record = readRecord(ctx);
	if (record?.run !== 'production') return [];
	return [record.secretDigest, record.sharedSecretDigest].filter((digest): digest is string => typeof digest === 'string');
}

function forgetRecord(ctx: IHookFunctions): void {
	delete ctx.getWorkflowStaticData('node')[REGISTRATION_KEY];
}

function registrationTag(secret: string, allowedUpdates: readonly string[], maxConnections: number | undefined): string {
	return fingerprint(secret, allowedUpdates.join(','), String(maxConnections ?? ''));
}

interface Registration {
	url: string;
	token: string;
	run: Run;
	options: WebhookOptions;
	/** What registering alone sends. */
	body: IDataObject;
	tag: string;
	secret: string;
	/** This trigger among the bot's listeners, and the origin of this n8n's webhook URLs. */
	self: Listener;
	origin: string;
}

/** Everything create() would send, with every parameter (and n8n's webhook URL) checked first. */
async function planRegistration(ctx: IHookFunctions): Promise<Registration> {
	readDeliverySettings(ctx);
	const options = readWebhookOptions(ctx);
	const token = await requireToken(ctx);
	const url = registeredUrl(ctx);
	const problem = webhookUrlProblem(url, await serviceBaseUrl(ctx));
	if (problem) throw new NodeOperationError(ctx.getNode(), problem);
	const run = runOf(ctx);
	const secret = deriveSecret(token, identityOf(ctx), run);
	const body: IDataObject = { url, secret_token: secret, allowed_updates: [...ALLOWED_UPDATES] };
	if (options.maxConnections !== undefined) body.max_connections = options.maxConnections;
	if (options.dropPendingUpdates) body.drop_pending_updates = true;
	const self = listenerOf(url, run);
	return { url, token, run, options, body, secret, tag: registrationTag(secret, ALLOWED_UPDATES, options.maxConnections), self, origin: new URL(url).origin };
}

function among(listeners: readonly Listener[] | undefined, self: Listener): boolean {
	return listeners?.some((listener) => listener.path === self.path) ?? false;
}

/**
 * Registers the bot's webhook for several listeners: the first receives, with the secret every
 * listener can derive for it. Max Connections stays what the service has (the receiver's choice);
 * pending updates are never dropped, as they belong to every listener.
 */
async function registerListeners(
	ctx: IHookFunctions,
	token: string,
	origin: string,
	listeners: readonly Listener[],
	maxConnections: number | undefined,
): Promise<void> {
	const receiver = listeners[0];
	const body: IDataObject = {
		url: registeredUrlOf(origin, listeners),
		secret_token: sharedSecret(token, webhookIdOf(receiver) ?? '', receiver.run),
		allowed_updates: [...ALLOWED_UPDATES],
	};
	if (maxConnections !== undefined) body.max_connections = maxConnections;
	await callMethod(ctx, 'setWebhook', body);
}

/**
 * The service has no compare-and-set: a trigger that read the listeners just before this one wrote
 * them can write its own list a moment later. Reading back after twice the time the write took (a
 * round trip to the service, plus a margin) sees such a write.
 */
async function settle(startedAt: number): Promise<void> {
	await pause(2 * (Date.now() - startedAt) + 50);
}

/**
 * True when this trigger is among the bot's listeners: for a trigger alone, only when the webhook was
 * registered by create() with the secret and options this node would use now. The service never
 * reveals a webhook's secret, so "its secret is known" is proven by the record create() keeps in
 * static data; without that record (or after a token or option change) n8n calls create(), which
 * sets the same URL again — harmless, and it makes sure the service has the current secret.
 */
export async function checkExists(this: IHookFunctions): Promise<boolean> {
	const plan = await planRegistration(this);
	const { url: current = '' } = await webhookInfo(this);
	const listeners = listenersOf(current, plan.origin, plan.self);
	if (!listeners || !among(listeners, plan.self)) return false;
	const record = readRecord(this);
	const exists = listeners.length > 1 || (record !== undefined && sameUrl(record.url, plan.url) && record.tag === plan.tag);
	// n8n asks at every start: a published workflow whose webhook is in place holds the bot again.
	if (exists) recordHolder(plan.token, holderOf(this, 'webhook', plan.run));
	return exists;
}

export async function create(this: IHookFunctions): Promise<boolean> {
	const plan = await planRegistration(this);
	const node = this.getNode();
	const record: RegistrationRecord = { url: plan.url, tag: plan.tag, run: plan.run };
	record.sharedSecretDigest = secretDigest(sharedSecret(plan.token, webhookIdOf(plan.self) ?? '', plan.run));
	const pollers = holdersOf(plan.token, 'polling');
	if (pollers.length > 0) {
		throw new NodeOperationError(
			node,
			`The published ${describeWorkflows(pollers)} ${pollers.length > 1 ? 'poll' : 'polls'} this bot (Service Bot Polling Trigger), and a bot that is polled cannot have a webhook. Unpublish ${pollers.length > 1 ? 'them' : 'it'} first, or use the same trigger in every workflow of this bot (both kinds serve several workflows, each kind alone)`,
		);
	}

	let info = await webhookInfo(this);
	const current = info.url ?? '';
	let listeners = listenersOf(current, plan.origin, plan.self);
	if (listeners === undefined) {
		const shown = displayUrl(current, plan.token);
		if (!plan.options.takeOver) {
			throw new NodeOperationError(
				node,
				`The bot's webhook belongs to someone else: it delivers to ${shown}. Workflows of this n8n share a bot, another n8n or system cannot: deactivate the workflow or system that owns it, or turn on "Take Over Existing Webhook" in this trigger (the other receiver then stops getting updates)`,
			);
		}
		if (plan.run === 'test') record.tookOverFrom = shown;
		this.logger.warn(
			`Service Bot Trigger "${node.name}": taking over the bot's webhook from ${shown} ("Take Over Existing Webhook" is on). It stops receiving updates and does not get the webhook back: register it again there when you are done (for an n8n workflow: deactivate and activate it)`,
		);
		listeners = [];
	}

	for (let write = 1; ; write++) {
		const others = listeners.filter((listener) => listener.path !== plan.self.path);
		if (others.length >= MAX_LISTENERS) {
			throw new NodeOperationError(
				node,
				`${others.length} workflows already listen to this bot, the most one bot can serve here (every update is sent once to each). Unpublish one, or stop its test, then publish this workflow again`,
			);
		}
		const startedAt = Date.now();
		if (others.length === 0) {
			await callMethod(this, 'setWebhook', plan.body);
			record.secretDigest = secretDigest(plan.secret);
		} else {
			delete record.secretDigest;
			await registerListeners(this, plan.token, plan.origin, inServingOrder([...others, plan.self]), info.max_connections ?? plan.options.maxConnections);
			this.logger.info(`Service Bot Trigger "${node.name}": listening to the bot with ${others.length} other trigger(s) of this n8n`);
		}
		await settle(startedAt);
		info = await webhookInfo(this);
		const now = listenersOf(info.url ?? '', plan.origin, plan.self);
		if (among(now, plan.self)) break;
		if (now === undefined || write === MAX_WRITES) {
			throw new NodeOperationError(
				node,
				`Another registration replaced the bot's webhook while this trigger registered (it now delivers to ${displayUrl(info.url ?? '', plan.token)}): publish this workflow again`,
			);
		}
		listeners = now;
	}
	this.getWorkflowStaticData('node')[REGISTRATION_KEY] = record as unknown as IDataObject;
	const self = holderOf(this, 'webhook', plan.run);
	recordHolder(plan.token, self);
	warnOfSharedClicks(this, plan.token, self);
	return true;
}

/**
 * Leaves the bot's listeners: the others are registered again (the next one receives when this one
 * did), or the webhook is removed when this one was the last. A webhook that is already gone, or that
 * belongs to someone else now, is left alone and is not an error. Failures are logged with what to do
 * and reported as `false` rather than thrown: a throw here would stop n8n from deregistering the
 * workflow's other webhooks and from finishing the deactivation.
 */
export async function remove(this: IHookFunctions): Promise<boolean> {
	const node = this.getNode();
	const record = readRecord(this);
	let url = '';
	try {
		url = registeredUrl(this);
		const token = await requireToken(this);
		// delete() runs in mode 'internal' for both; the URL n8n gives is the registration's own.
		const run = record?.run ?? 'production';
		forgetHolder(token, holderOf(this, 'webhook', run));
		const self = listenerOf(url, run);
		const origin = new URL(url).origin;
		for (let write = 1; write <= MAX_WRITES; write++) {
			const info = await webhookInfo(this);
			const current = info.url ?? '';
			const listeners = listenersOf(current, origin, self);
			if (listeners === undefined) {
				this.logger.warn(
					`Service Bot Trigger "${node.name}": the bot's webhook now points to another URL (${displayUrl(current, token)}), so it was left untouched`,
				);
				break;
			}
			if (!among(listeners, self)) break;
			const others = listeners.filter((listener) => listener.path !== self.path);
			const startedAt = Date.now();
			if (others.length === 0) {
				await callMethod(this, 'deleteWebhook', {});
				if (record?.tookOverFrom) {
					this.logger.warn(
						`Service Bot Trigger "${node.name}": the test has ended and the bot has no webhook now. Before the test it delivered to ${record.tookOverFrom}: register it again there (for an n8n workflow: deactivate and activate it)`,
					);
				}
			} else {
				await registerListeners(this, token, origin, inServingOrder(others), info.max_connections);
			}
			await settle(startedAt);
		}
		forgetRecord(this);
		return true;
	} catch (error) {
		const message = messageOf(error);
		this.logger.error(`Service Bot Trigger "${node.name}": could not remove this trigger from the bot's webhook${url ? ` (${url})` : ''}: ${message}`, {
			workflowId: this.getWorkflow().id,
			node: node.name,
		});
		return false;
	}
}
