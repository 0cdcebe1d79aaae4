/**
 * webhook(): one push from the service (or a copy another workflow of the bot forwarded). The secret is
 * checked first; nothing of the request is used before the sender is proven to be the service. Then
 * the shared delivery step decides. A push that starts a run is answered once its execution exists,
 * or, with Confirm Delivery "When the Run Ends", once the run has ended (answer.ts).
 */
import type { IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { answerDesk } from '../../shared/trigger/answerDelivery';
import { deliverUpdate } from '../../shared/trigger/deliver';
import type { Settle } from '../../shared/trigger/duplicates';
import { claim } from '../../shared/trigger/duplicates';
import { hasFilesToDownload, withFiles } from '../../shared/trigger/files';
import type { Run, TriggerIdentity } from '../../shared/trigger/identity';
import { deliveryKey, fingerprint, identityOf, runOf } from '../../shared/trigger/identity';
import { goOnWithRecent, recentToken, tokenOf } from '../../shared/transport/token';
import { routed } from '../../shared/trigger/output';
import { updateIdOf } from '../../shared/trigger/update';
import { readDeliverySettings, requireToken } from '../../shared/trigger/settings';
import { streamAnswers } from '../../shared/trigger/stream/pushStream';
import { showTyping } from '../../shared/trigger/typing';
import { ANSWER_TIMING, answerAfterRun } from './answer';
import { registeredSecretDigests } from './lifecycle';
import { forwardToListeners, isProbe } from './forward';
import { confirmsAfterRun, streamsAnswers } from './options';
import { SECRET_HEADER, deriveSecret, forwardSecret, legacySecret, matchesDigest, secretMatches, sharedSecret } from './secret';

const WARN_INTERVAL_MS = 60_000;

/**
 * Reading the credential makes n8n take an expression isolate: about 10 ms of CPU per push in a
 * queue-mode webhook process (measured, test/e2e/queue/README.md), the largest part of what this
 * trigger costs beyond a trigger that reads nothing. So a process checks pushes with the token it
 * read in the last few seconds (for any node of this credential: `recentToken`); a push that does not
 * match is checked again with the token read anew, so a changed token is never a reason to refuse the
 * service. (Copies forwarded to other workflows are signed with the same token: for up to those
 * seconds after a token change, with the old one.)
 */
const TOKEN_REUSE_MS = 5_000;

/** When each trigger last warned about refused pushes (bounded: one entry per trigger served). */
const lastWarned = new Map<string, number>();

/**
 * A push without the right secret is refused with 403 (it may be anyone). When it is the service
 * itself, the usual cause is a changed bot token: the webhook still has the old token's secret and
 * every update is refused. That must not stay a debug line, nor flood the log: warn once a minute.
 */
function warnRefused(ctx: IWebhookFunctions, key: string, test: boolean): void {
	const now = Date.now();
	const last = lastWarned.get(key);
	if (last !== undefined && now - last < WARN_INTERVAL_MS) return;
	if (lastWarned.size >= 1000) lastWarned.clear();
	lastWarned.set(key, now);
	const again = test ? 'listen for a test event again' : 'deactivate and activate the workflow';
	ctx.logger.warn(
		`Service Bot Trigger "${ctx.getNode().name}": refused a request without this trigger's secret (403). If the bot token in the credential was changed, the bot's webhook still carries the secret made with the old token and every update is refused: ${again} to register it with the new one. Logged at most once a minute.`,
	);
}

/** Who sent a push with `received` as its secret, checked with `token`. */
function senderOf(ctx: IWebhookFunctions, token: string, received: unknown, identity: TriggerIdentity, run: Run): 'service' | 'trigger' | undefined {
	const direct = [deriveSecret(token, identity, run), sharedSecret(token, identity.webhookId, run)];
	if (run === 'production') {
		// Registrations of version 0.1.0, which n8n keeps using across upgrades and restarts.
		const productionUrl = ctx.getNodeWebhookUrl('default');
		if (productionUrl) direct.push(legacySecret(token, identity, productionUrl));
	}
	// After a token change the service still sends the secret it was given (kept as a digest).
	if (secretMatches(received, direct) || (run === 'production' && registeredSecretDigests(ctx).some((kept) => matchesDigest(received, kept)))) return 'service';
	// An update another trigger of this bot received and forwarded (listeners.ts).
	if (secretMatches(received, [forwardSecret(token, identity.webhookId, run)])) return 'trigger';
	return undefined;
}

/**
 * Who sent the push, and the token that tells: the token read in the last few seconds, else the
 * credential read anew. When n8n cannot read the credential (its database timing out under load), a
 * push carrying a secret of the token this process read last is received with that token, which
 * proves the sender as well as a read would (measured: 8 of ~560 pushes in queue scenario 7 failed on
 * this read, each answered 500 and sent again); its "typing…" and its file go with that token too.
 * Any other push keeps n8n's failure (500: the service sends it again). A push checked with the token
 * of the last few seconds still reads the credential for what it sends itself: the service signs
 * with the secret of the token it was given, also after the token was changed in n8n, and those
 * requests must go with the new token.
 */
async function checkSender(
	ctx: IWebhookFunctions,
	received: unknown,
	identity: TriggerIdentity,
	run: Run,
): Promise<{ token: string; sender: 'service' | 'trigger' | undefined }> {
	const provenBy = (token: string | undefined): { token: string; sender: 'service' | 'trigger' } | undefined => {
		const sender = token === undefined ? undefined : senderOf(ctx, token, received, identity, run);
		return token !== undefined && sender ? { token, sender } : undefined;
	};
	const recent = provenBy(recentToken(ctx, TOKEN_REUSE_MS));
	if (recent) return recent;
	const withLastToken = await tokenOf(ctx).then(
		() => undefined,
		async (error: unknown) => provenBy(recentToken(ctx, Number.POSITIVE_INFINITY)) ?? (await Promise.reject(error)),
	);
	if (withLastToken) {
		// Reading the credential for its "typing…" and its file would fail alike.
		goOnWithRecent(ctx, withLastToken.token);
		return withLastToken;
	}
	// The read above, now checked for a token (the context keeps what it read).
	const token = await requireToken(ctx);
	return { token, sender: senderOf(ctx, token, received, identity, run) };
}

/** What of n8n's response to a push the trigger needs: Node's ServerResponse, seen structurally. */
interface PushResponse {
	readonly statusCode?: unknown;
	end?: (...args: unknown[]) => unknown;
}

/**
 * Settles the push's claim on its update (duplicates.ts `claim`) with n8n's answer: 200 once the
 * execution exists (response mode onReceived), or once the run ended (Confirm Delivery "When the Run
 * Ends", answer.ts, which ends through this); 5xx when n8n could not create the execution (measured
 * in queue mode with a saturated database: "Workflow could not be started!", "There was a problem
 * executing the workflow") or webhook() failed. A 5xx takes the update out of the window, so its
 * next push runs. Read where the answer is written (`end`, its status set), not at `finish`: a
 * sender that gave up waiting closed the connection, and then `finish` never comes. The price, read
 * in n8n 2.41.1 and not seen in any run: in queue mode n8n also answers 5xx when a hook fails after
 * the job was queued (`workflow-runner.js` ~504–506), and that job still runs; its update then runs a
 * second time when the service sends it again.
 */
function settleOnAnswer(ctx: IWebhookFunctions, settle: Settle): void {
	const res = ctx.getResponseObject() as unknown as PushResponse;
	const end = res.end?.bind(res);
	if (!end) return settle(true);
	res.end = (...args: unknown[]): unknown => {
		settle(Number(res.statusCode ?? 200) < 500);
		return end(...args);
	};
}

export async function receive(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const arrivedAt = Date.now();
	const node = this.getNode();
	const identity = identityOf(this);
	const run = runOf(this);
	const received = this.getHeaderData()[SECRET_HEADER];
	const { token, sender } = await checkSender(this, received, identity, run);
	const fromService = sender === 'service';
	if (!sender) {
		warnRefused(this, fingerprint('refused', identity.workflowId, identity.nodeId, run), run === 'test');
		this.getResponseObject().status(403).end();
		return { noWebhookResponse: true };
	}
	// Another trigger of this bot asks whether this one is still served: it is, as it answers.
	if (sender === 'trigger' && isProbe(this.getBodyData())) return {};

	const afterRun = confirmsAfterRun(this);
	// When the run ends, the copies are answered after their runs: waited for up to the bound, beside this run.
	const waitMs = afterRun ? Math.max(0, arrivedAt + ANSWER_TIMING.boundMs - Date.now()) : undefined;
	const forwarding = fromService ? forwardToListeners(this, token, { webhookId: identity.webhookId, run }, waitMs) : Promise.resolve();
	const settings = readDeliverySettings(this);
	const windowKey = deliveryKey(token, identity, 'webhook', run);
	const body = this.getBodyData();
	const updateId = updateIdOf(body);
	const settle = updateId === undefined ? undefined : await claim(windowKey, updateId);
	if (updateId !== undefined && !settle) {
		// An earlier push of this update still waits for n8n's answer: the sender tries again later.
		this.logger.debug(`Service Bot Trigger "${node.name}": update ${updateId} answered 503: an earlier push of it is still waiting for n8n`);
		this.getResponseObject().status(503).json({ message: 'This update is still being received; send it again later' });
		await forwarding;
		return { noWebhookResponse: true };
	}
	if (settle) settleOnAnswer(this, settle);
	const delivery = await deliverUpdate(body, {
		settings,
		windowKey,
		// The trigger the service pushed to brings answers (a test too, while it receives the bot's
		// pushes); a forwarded copy never does, so an answer is brought once.
		answers: answerDesk(this, fromService, 'whenAsked'),
	});
	if (!delivery.run) await forwarding;
	if (!delivery.run && 'answer' in delivery) {
		this.logger.debug(`Service Bot Trigger "${node.name}": update ${delivery.updateId} not run: ${await delivery.answer.bring()}`);
		return {};
	}
	if (!delivery.run) {
		if (delivery.updateId === undefined) {
			this.logger.warn(`Service Bot Trigger "${node.name}": acknowledged a request that is ${delivery.reason}`);
		} else {
			this.logger.debug(`Service Bot Trigger "${node.name}": update ${delivery.updateId} not run: ${delivery.reason}`);
		}
		return {};
	}
	if (afterRun) {
		// The service is answered once this run and the copies' runs ended, or at the bound (answer.ts); a
		// file is downloaded before the run starts, within the same bound.
		const ran = answerAfterRun(this, arrivedAt, forwarding);
		if (settings.showTyping) showTyping(this, delivery.update, ran);
		const item = hasFilesToDownload([delivery.update], settings) ? await withFiles(this, [delivery.update], delivery.item, settings) : { json: delivery.item };
		// noWebhookResponse: n8n still hands this response to the execution and ends it at the run's end,
		// and its request handler is done at once. Without it, in streaming mode the handler never gets a
		// reply and never releases the expression isolate it took for this push (answer.ts: one leaked
		// per push, the webhook processes' memory grew by GBs in minutes and their database pings failed).
		return { workflowData: routed(delivery.update, item, settings), noWebhookResponse: true };
	}
	// When the run starts: the service is answered only once the other workflows of the bot took their copies.
	await forwarding;
	// Stream AI Answers: the push is answered now, and the execution's end is known (its response ends).
	const ended = streamsAnswers(this) ? streamAnswers(this, delivery.update) : undefined;
	if (settings.showTyping) showTyping(this, delivery.update, ended);
	// Streaming answered the push itself (its end is the run's): n8n's answer (a 5xx when it cannot start) is not seen there.
	if (ended) settle?.(true);
	if (!hasFilesToDownload([delivery.update], settings)) {
		return { workflowData: routed(delivery.update, { json: delivery.item }, settings), ...(ended && { noWebhookResponse: true }) };
	}
	// n8n answers the service only once webhook() returned, and a file of up to 20 MB can take longer
	// than the service waits for an answer (then it sends the update again). So the service is
	// answered now, with what n8n answers (every copy for other workflows was taken above), and the
	// execution starts once the file is on the item. A failed download still runs the message.
	if (!ended) this.getResponseObject().status(200).json({ message: 'Workflow was started' });
	const item = await withFiles(this, [delivery.update], delivery.item, settings);
	return { workflowData: routed(delivery.update, item, settings), noWebhookResponse: true };
}
