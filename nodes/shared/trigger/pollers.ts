/**
 * The published polling triggers of this n8n process, by bot. A bot serves one poller at a time, and
 * a bot with a webhook cannot be polled: so publishing a second poller of a bot, or a webhook trigger
 * on a bot a workflow polls, would silently take the updates away from the workflow that has them
 * (n8n shows "Published" for both; only its log says more, a minute later). With this list, the
 * trigger being published fails at once, naming the workflow that polls the bot, where the user acts.
 *
 * n8n runs every published trigger() on its (leader) main, and activates webhooks there too, so
 * memory is where they meet. Another n8n on the same bot is not in this list: the service's 409
 * still tells (poll.ts).
 */
import { fingerprint, keyed } from './identity';

export interface PollingWorkflow {
	readonly workflowId: string;
	readonly workflowName: string;
	readonly nodeName: string;
}

const pollers = new Map<string, PollingWorkflow>();

function botKey(token: string): string {
	return fingerprint('polled-bot', keyed(token, 'bot:v1', []));
}

/** The published workflow polling this bot in this n8n, if any. */
export function pollerOf(token: string): PollingWorkflow | undefined {
	return pollers.get(botKey(token));
}

/** Records a published poller; returns what forgets it (only while it is still the one recorded). */
export function recordPoller(token: string, workflow: PollingWorkflow): () => void {
	const key = botKey(token);
	pollers.set(key, workflow);
	return () => {
		if (pollers.get(key) === workflow) pollers.delete(key);
	};
}

/** `"Name"` (or the workflow id when it has no name), for messages. */
export function describePoller(workflow: PollingWorkflow): string {
	return workflow.workflowName ? `"${workflow.workflowName}"` : `with id ${workflow.workflowId}`;
}
