/**
 * The webhook's lifecycle, as n8n drives it: `checkExists` then `create` when a workflow is published
 * (mode 'trigger') or when the editor listens for a test event (mode 'manual', on the test URL), and
 * `delete` when it is unpublished or the test ends (mode 'internal' for both, with the URL of the
 * registration being removed). n8n does not call them again when it restarts.
 *
 * A bot has one webhook, so the lifecycle is about ownership:
 * - a foreign webhook (another workflow, another system) is replaced only with "Take Over Existing
 *   Webhook", and never deleted;
 * - this trigger's own test registration is replaced by its production one without asking;
 * - a test may take over this trigger's published webhook (with "Take Over Existing Webhook"), and
 *   gives it back when the test ends: its secret can be derived again, and its URL and options are
 *   those the service reported before the take-over.
 */
import type { IDataObject, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { callMethod } from '../../shared/transport';
import type { Run, TriggerIdentity } from '../../shared/trigger/identity';
import { fingerprint, identityOf, runOf } from '../../shared/trigger/identity';
import type { WebhookOptions } from '../../shared/trigger/settings';
import { ALLOWED_UPDATES, readDeliverySettings, readWebhookOptions, requireToken, serviceBaseUrl } from '../../shared/trigger/settings';
import { displayUrl, webhookInfo } from '../../shared/trigger/webhookInfo';
import { deriveSecret, secretDigest } from './secret';
import { ownershipOf, sameUrl, webhookUrlProblem } from './urls';

/** What create() registered, kept in the node's static data (a test's own static data for a test). */
interface RegistrationRecord {
	url: string;
	/** One-way tag of the secret and the options sent with it; never the secret itself. */
	tag: string;
	/** Digest of the secret the service was given (`secretDigest`), so pushes stay accepted after a token change. */
	secretDigest?: string;
	/** Absent in records of version 0.1.0, which registered production webhooks only in practice. */
	run?: Run;
	/** A test that took over the published webhook: what to register again when the test ends. */
	handBack?: { url: string; allowedUpdates?: string[]; maxConnections?: number };
	/** A test that took over a foreign webhook: where it pointed (for display only). */
	tookOverFrom?: string;
}

const REGISTRATION_KEY = 'registration';

/**
 * Triggers whose published workflow was unpublished while a test of it held the bot's webhook: that
 * test must then remove the webhook when it ends instead of handing it back. n8n runs both on the
 * main process (one process per instance unless in multi-main), so memory is where they meet.
 */
const unpublishedDuringTest = new Set<string>();

function testKey(identity: TriggerIdentity): string {
	return fingerprint('test-hand-back', identity.workflowId, identity.nodeId);
}

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

/** The digest of the secret the production webhook was registered with, if create() kept one. */
export function registeredSecretDigest(ctx: IWebhookFunctions): string | undefined {
	const record = readRecord(ctx);
	return record?.run === 'production' && typeof record.secretDigest === 'string' ? record.secretDigest : undefined;
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
	identity: TriggerIdentity;
	options: WebhookOptions;
	body: IDataObject;
	tag: string;
	secret: string;
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
	const identity = identityOf(ctx);
	const secret = deriveSecret(token, identity, run);
	const body: IDataObject = { url, secret_token: secret, allowed_updates: [...ALLOWED_UPDATES] };
	if (options.maxConnections !== undefined) body.max_connections = options.maxConnections;
	if (options.dropPendingUpdates) body.drop_pending_updates = true;
	return { url, token, run, identity, options, body, secret, tag: registrationTag(secret, ALLOWED_UPDATES, options.maxConnections) };
}

/**
 * True only when the bot's webhook is this node's URL and was registered by create() with the
 * secret and options this node would use now. The service never reveals a webhook's secret, so
 * "its secret is known" is proven by the record create() keeps in static data; without that record
 * (or after a token or option change) n8n calls create(), which sets the same URL again — harmless,
 * and it makes sure the service has the current secret.
 */
export async function checkExists(this: IHookFunctions): Promise<boolean> {
	const plan = await planRegistration(this);
	const { url: current = '' } = await webhookInfo(this);
	if (!sameUrl(current, plan.url)) return false;
	const record = readRecord(this);
	return record !== undefined && sameUrl(record.url, plan.url) && record.tag === plan.tag;
}

export async function create(this: IHookFunctions): Promise<boolean> {
	const plan = await planRegistration(this);
	const node = this.getNode();

	const info = await webhookInfo(this);
	const current = info.url ?? '';
	const shown = displayUrl(current, plan.token);
	const record: RegistrationRecord = { url: plan.url, tag: plan.tag, run: plan.run, secretDigest: secretDigest(plan.secret) };
	switch (ownershipOf(current, plan.url, node.webhookId)) {
		case 'sibling':
			if (plan.run === 'production') {
				this.logger.info(`Service Bot Trigger "${node.name}": replacing this trigger's test registration (${shown}) with its production webhook`);
				break;
			}
			if (!plan.options.takeOver) {
				throw new NodeOperationError(
					node,
					`This workflow is published and its trigger owns the bot's webhook (${shown}), so a test cannot receive updates. Turn on "Take Over Existing Webhook" to test anyway (the published workflow gets its webhook back when the test ends), unpublish the workflow, or test with another bot`,
				);
			}
			record.handBack = { url: current, allowedUpdates: info.allowed_updates, maxConnections: info.max_connections };
			this.logger.warn(
				`Service Bot Trigger "${node.name}": this test takes the bot's webhook over from the published workflow (${shown}); it is handed back when the test ends`,
			);
			break;
		case 'foreign':
			if (!plan.options.takeOver) {
				throw new NodeOperationError(
					node,
					`The bot's webhook belongs to someone else: it delivers to ${shown}. A bot has one webhook: deactivate the workflow or system that owns it, or turn on "Take Over Existing Webhook" in this trigger (the other receiver then stops getting updates)`,
				);
			}
			if (plan.run === 'test') record.tookOverFrom = shown;
			this.logger.warn(
				`Service Bot Trigger "${node.name}": taking over the bot's webhook from ${shown} ("Take Over Existing Webhook" is on). It stops receiving updates and does not get the webhook back: register it again there when you are done (for an n8n workflow: deactivate and activate it)`,
			);
			break;
		case 'this':
		case 'none':
			break;
	}

	await callMethod(this, 'setWebhook', plan.body);
	if (plan.run === 'production') unpublishedDuringTest.delete(testKey(plan.identity));
	this.getWorkflowStaticData('node')[REGISTRATION_KEY] = record as unknown as IDataObject;
	return true;
}

/** Sets the published workflow's webhook again, as it was before a test took it over. */
async function handBack(ctx: IHookFunctions, target: NonNullable<RegistrationRecord['handBack']>, identity: TriggerIdentity): Promise<void> {
	const { url, allowedUpdates, maxConnections } = target;
	const body: IDataObject = {
		url,
		secret_token: deriveSecret(await requireToken(ctx), identity, 'production'),
		// The service did not say: what the trigger always asks for.
		allowed_updates: allowedUpdates ?? [...ALLOWED_UPDATES],
	};
	if (maxConnections !== undefined) body.max_connections = maxConnections;
	await callMethod(ctx, 'setWebhook', body);
}

/**
 * Removes the bot's webhook only while it is still this registration's URL — or, when a test had
 * taken over this trigger's published webhook, hands it back. A webhook that is already gone, or that
 * now belongs to someone else, is left alone and is not an error. Failures are logged with what to do
 * and reported as `false` rather than thrown: a throw here would stop n8n from deregistering the
 * workflow's other webhooks and from finishing the deactivation.
 */
export async function remove(this: IHookFunctions): Promise<boolean> {
	const node = this.getNode();
	const record = readRecord(this);
	// delete() runs in mode 'internal' for both; the record create() left says which this is. Without
	// one (create() failed, or static data was lost) neither test-only nor production-only steps run.
	const role = record === undefined ? undefined : (record.run ?? 'production');
	const identity = identityOf(this);
	const key = testKey(identity);
	let url = '';
	try {
		url = registeredUrl(this);
		const token = await requireToken(this);
		const { url: current = '' } = await webhookInfo(this);
		const ownership = ownershipOf(current, url, node.webhookId);
		if (ownership === 'sibling' && role === 'production') {
			unpublishedDuringTest.add(key);
			this.logger.info(
				`Service Bot Trigger "${node.name}": the editor's test of this workflow holds the bot's webhook; it is removed when that test ends`,
			);
		} else if (ownership === 'sibling' || ownership === 'foreign') {
			this.logger.warn(
				`Service Bot Trigger "${node.name}": the bot's webhook now points to another URL (${displayUrl(current, token)}), so it was left untouched`,
			);
		} else if (ownership === 'this') {
			if (role === 'test' && record?.handBack && !unpublishedDuringTest.has(key)) {
				await handBack(this, record.handBack, identity);
				this.logger.info(`Service Bot Trigger "${node.name}": the test has ended; the bot's webhook is handed back to the published workflow`);
			} else {
				await callMethod(this, 'deleteWebhook', {});
				if (record?.tookOverFrom) {
					this.logger.warn(
						`Service Bot Trigger "${node.name}": the test has ended and the bot has no webhook now. Before the test it delivered to ${record.tookOverFrom}: register it again there (for an n8n workflow: deactivate and activate it)`,
					);
				}
			}
		}
		if (role === 'test') unpublishedDuringTest.delete(key);
		forgetRecord(this);
		return true;
	} catch (error) {
		const message = error instanceof Error ? error.message : String(error);
		const lost = role === 'test' && record?.handBack !== undefined;
		this.logger.error(
			lost
				? `Service Bot Trigger "${node.name}": could not hand the bot's webhook back to the published workflow: ${message}. Publish the workflow again (or deactivate and activate it) to restore it`
				: `Service Bot Trigger "${node.name}": could not remove the bot's webhook${url ? ` (${url})` : ''}: ${message}`,
			{ workflowId: this.getWorkflow().id, node: node.name },
		);
		return false;
	}
}
