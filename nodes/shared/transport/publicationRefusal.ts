/**
 * A publication refused for a reason that holds until a person changes something: a credential the
 * service refuses (credentialProblems.ts), a bot whose webhook another system or this n8n's polling
 * holds (the webhook trigger's lifecycle). Here, beside the credential's words, because the transport
 * room may import only its own files.
 *
 * n8n 2.41 activates a published trigger up to 5 times, 1, 2, 4 and 8 s apart (15 s in which the editor
 * shows "Publishing…"), for every error but a WebhookPathTakenError, the one it takes as final
 * (`retryTriggerActivation` and `isTransientActivationError` in
 * n8n/dist/workflows/triggers/trigger-activation-retry.js). So while a person publishes, such a refusal
 * is of that class, with its own words: n8n reads only its class to decide, and shows its message.
 * n8n 1.x retries nothing when a person publishes. It serves the webhook trigger's methods only: n8n
 * wraps whatever a trigger() node throws at activation in an error of its own (n8n-core
 * active-workflow-triggers.js) and tries that again, so the polling trigger's refusals come after n8n's
 * 5 attempts, whatever it throws.
 */
import type { IHookFunctions, INode, ITriggerFunctions } from 'n8n-workflow';
import { NodeOperationError, WebhookPathTakenError } from 'n8n-workflow';

class PublicationRefusedError extends WebhookPathTakenError {
	constructor(node: INode, message: string, description: string | undefined) {
		super(node.name);
		this.message = message;
		this.description = description;
		this.node = node;
	}
}

/**
 * The error that refuses this publication: final while a person publishes (n8n's activation modes
 * 'activate' and 'update'); else (n8n's start, a change of leader, a test in the editor) an ordinary
 * NodeOperationError, left to n8n's retries, since nobody waits and a later attempt may find it fixed.
 */
export function publicationRefusal(ctx: IHookFunctions | ITriggerFunctions, message: string, description?: string): Error {
	const mode = ctx.getActivationMode();
	if (mode === 'activate' || mode === 'update') return new PublicationRefusedError(ctx.getNode(), message, description);
	return new NodeOperationError(ctx.getNode(), message, description === undefined ? {} : { description });
}
