/**
 * Whether the answers of a question asked in the chat can arrive. A tap on an answer button reaches
 * no code of this package unless a Service Bot Trigger or Service Bot Polling Trigger of this n8n
 * receives the bot's updates and brings it (shared/trigger/answerDelivery.ts): without one, the
 * question is asked, every tap spins in the chat and the workflow waits with nothing to say why. So
 * before asking, the node checks what it can know, and refuses with the next step where it knows
 * nobody will bring the answer:
 * - a published trigger of this n8n process holds the bot (shared/trigger/holders.ts): answers arrive;
 * - else the bot's webhook (one `getWebhookInfo`): pointing to this n8n (a trigger of another n8n
 *   process behind the same address, as in queue mode, or a test in the editor), answers arrive,
 *   unless the webhook lists several workflows and the one that receives (the first) is no longer
 *   served: n8n answers the service 404, no workflow of the bot receives anything (a "deaf" bot:
 *   shared/trigger/listeners.ts, `isServed`), refused, saying what repairs it. This is the one place
 *   a deaf bot can show where users look: after a restart n8n 2.41 runs nothing of the triggers
 *   (CONTRIBUTING, "Several workflows on one bot"). Pointing elsewhere, taps go to another system,
 *   which cannot resume this n8n's execution: refused;
 * - no webhook and no holder: only a polling trigger could bring the answers, and n8n runs every
 *   published trigger() in one process (a regular n8n, or the leader main in queue mode). Run from the
 *   editor in that process (it runs polling triggers of other bots: `runsPollingTriggers`), nothing
 *   polls this bot: refused. The service holding updates of the bot that nothing took (its
 *   `pending_update_count`) says the same wherever the node runs: refused (from the editor only: the
 *   update that started a production run may be one of them). Otherwise the node may be on
 *   a worker, which sees none of the main's triggers (n8n 3.0 runs editor executions on workers in
 *   queue mode; n8n 2.x with OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS), or in an n8n where nothing polls
 *   and nobody wrote to the bot yet; it cannot tell, so the question is asked, as in a production run
 *   (README, "Send and Wait for Response", says how to check).
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { holdersOf, runsPollingTriggers } from '../../../shared/trigger/holders';
import { isServed, receiverOf } from '../../../shared/trigger/listeners';
import { displayUrl, webhookInfo } from '../../../shared/webhookInfo';
import { tokenOf } from '../../../shared/transport/token';
import type { At } from '../../parameters/errors';
import { inputError } from '../../parameters/errors';

const FIELD = 'Collect Answers';

function originOf(url: string): string | undefined {
	try {
		return new URL(url).origin;
	} catch {
		return undefined;
	}
}

/**
 * Fails, before anything is sent, when no trigger can bring the answers of a question asked in the
 * chat. `resumeUrl` is this execution's `$execution.resumeUrl`: n8n's webhook URLs share its origin.
 */
export async function checkAnswersCanArrive(ctx: IExecuteFunctions, at: At, resumeUrl: string): Promise<void> {
	const token = await tokenOf(ctx);
	if (holdersOf(token).length > 0) return;
	const info = await webhookInfo(ctx);
	const webhook = info.url ?? '';
	const n8nOrigin = originOf(resumeUrl);
	if (webhook !== '') {
		if (n8nOrigin === undefined) return;
		if (originOf(webhook) === n8nOrigin) {
			const receiver = receiverOf(webhook);
			if (receiver === undefined || (await isServed(ctx, n8nOrigin, token, receiver))) return;
			throw inputError(
				at,
				FIELD,
				`the bot's webhook delivers every update to ${displayUrl(webhook, token)}, a workflow this n8n no longer serves (it was unpublished while the service could not be told, e.g. during an outage of the service), so no workflow of this bot receives anything, taps on the answer buttons included. Publish any workflow with a Service Bot Trigger on this bot (or unpublish and publish one): that takes the unpublished workflow off the bot's webhook; or set Collect Answers to On a Web Page`,
			);
		}
		throw inputError(
			at,
			FIELD,
			`the bot's webhook points to ${displayUrl(webhook, token)}, not to this n8n (${n8nOrigin}), so taps on the answer buttons would go there and resume nothing. Publish a workflow with a Service Bot Trigger on this bot in this n8n (its option Take Over Existing Webhook replaces the other webhook), or set Collect Answers to On a Web Page`,
		);
	}
	// A production run goes on: the update that started it may itself be one the service still holds.
	if (ctx.getMode() !== 'manual') return;
	const waiting = info.pending_update_count ?? 0;
	if (waiting > 0) {
		throw inputError(
			at,
			FIELD,
			`the service still holds ${waiting} update${waiting === 1 ? '' : 's'} of this bot that no published trigger has taken, so no Service Bot Trigger or Service Bot Polling Trigger of this n8n receives its updates, and taps on the answer buttons would reach nothing. ${PUBLISH_ONE}`,
		);
	}
	if (!runsPollingTriggers()) return;
	throw inputError(
		at,
		FIELD,
		`no published workflow of this n8n has a Service Bot Trigger or Service Bot Polling Trigger on this bot, so taps on the answer buttons would reach nothing. ${PUBLISH_ONE}`,
	);
}

const PUBLISH_ONE = 'Publish one (any Trigger On: an answer never starts its workflow), or set Collect Answers to On a Web Page';
