/**
 * Whether the answers of a question asked in the chat can arrive. A tap on an answer button reaches
 * no code of this package unless a Service Bot Trigger or Service Bot Polling Trigger of this n8n
 * receives the bot's updates and brings it (shared/trigger/answerDelivery.ts): without one, the
 * question is asked, every tap spins in the chat and the workflow waits with nothing to say why. So
 * before asking, the node checks what it can know, and refuses with the next step where it knows
 * nobody will bring the answer:
 * - a published trigger of this n8n process holds the bot (shared/trigger/holders.ts): answers arrive;
 * - else the bot's webhook (one `getWebhookInfo`): pointing to this n8n (a trigger of another n8n
 *   process behind the same address, as in queue mode, or a test in the editor), answers arrive;
 *   pointing elsewhere, taps go to another system, which cannot resume this n8n's execution: refused;
 * - no webhook and no holder: in the editor (a manual run, which n8n runs in the process that holds
 *   the triggers) nothing polls the bot: refused. In a production run the triggers may be in another
 *   process (queue mode: a worker runs the execution, the main polls), which the node cannot see: the
 *   question is asked (README, "Send and Wait for Response", says how to check).
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { holdersOf } from '../../../shared/trigger/holders';
import { displayUrl, webhookInfo } from '../../../shared/trigger/webhookInfo';
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
	const webhook = (await webhookInfo(ctx)).url ?? '';
	const n8nOrigin = originOf(resumeUrl);
	if (webhook !== '') {
		if (n8nOrigin === undefined || originOf(webhook) === n8nOrigin) return;
		throw inputError(
			at,
			FIELD,
			`the bot's webhook points to ${displayUrl(webhook, token)}, not to this n8n (${n8nOrigin}), so taps on the answer buttons would go there and resume nothing. Publish a workflow with a Service Bot Trigger on this bot in this n8n (its option Take Over Existing Webhook replaces the other webhook), or set Collect Answers to On a Web Page`,
		);
	}
	if (ctx.getMode() !== 'manual') return;
	throw inputError(
		at,
		FIELD,
		"no published workflow of this n8n has a Service Bot Trigger or Service Bot Polling Trigger on this bot, so taps on the answer buttons would reach nothing. Publish one (any Trigger On: an answer never starts its workflow), or set Collect Answers to On a Web Page",
	);
}
