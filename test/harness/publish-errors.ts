/**
 * Publishing a trigger with a credential the service refuses, or a base URL where it is not: shared by
 * the webhook trigger's and the polling trigger's tests (each node's publishErrors test).
 */
import { WebhookPathTakenError } from 'n8n-workflow';

import type { Emulator } from '../emulator';
import { ServiceBotPollingTrigger } from '../../nodes/ServiceBotPollingTrigger/ServiceBotPollingTrigger.node';
import { credentialsFor, useEmulator } from './emulator-suite';
import { makeHarness } from './trigger-nodes';

// The credential the harness gives every node (execute-node.ts), by the name n8n shows.
const CREDENTIAL = 'Service Bot account';
// The credential test's words for a 401 and a 404, as the credential's test rules say them.
const TOKEN_REFUSED = 'The service rejected the access token (401)';
const NOTHING_HERE = 'Nothing answered at this address (404)';
const NOTHING_LISTENS = 'Nothing listens at this address';

/**
 * Whether n8n 2.41 tries the activation again after this error: `retryTriggerActivation`
 * (n8n/dist/workflows/triggers/trigger-activation-retry.js) makes 5 attempts, 1, 2, 4 and 8 s apart,
 * for every error but a WebhookPathTakenError (`isTransientActivationError`), for both kinds of trigger.
 */
export const n8nRetries = (error: Error): boolean => !(error instanceof WebhookPathTakenError);

export type TriggerKind = 'webhook' | 'polling';

/** Publishes (webhook: checkExists/create; polling: the trigger's start) and returns the error it fails with. */
async function publishingError(emu: Emulator, kind: TriggerKind, credentials: { accessToken: string; baseUrl: string }): Promise<Error> {
	const polling = kind === 'polling' ? { nodeType: new ServiceBotPollingTrigger(), parameters: { updates: ['*'], options: {} } } : {};
	const harness = await makeHarness(emu, { credentials, ...polling });
	try {
		if (kind === 'polling') await harness.startTrigger();
		else await harness.activate();
	} catch (error) {
		return error as Error;
	}
	throw new Error('publishing succeeded');
}

/**
 * The cases of publishing a trigger of `kind` with a bad credential: the error names the credential and
 * the field in the credential test's words, after at most two requests, without the token.
 */
export function describePublishingWithBadCredential(kind: TriggerKind): void {
	let emu: Emulator;
	useEmulator({ started: (started) => (emu = started) });

	describe(`publishing the ${kind} trigger with a bad credential`, () => {
		test('a refused token names the credential and Access Token, after at most two requests, without the token', async () => {
			const token = '7000000999:not-a-valid-token-at-all';
			const error = await publishingError(emu, kind, { accessToken: token, baseUrl: emu.baseUrl });
			expect(error.message).toContain(`"${CREDENTIAL}"`);
			expect(error.message).toContain('(Access Token)');
			expect(error.message).toContain(TOKEN_REFUSED);
			expect(JSON.stringify({ ...error, message: error.message })).not.toContain('not-a-valid-token-at-all');
			expect(emu.calls.length).toBeGreaterThanOrEqual(1);
			expect(emu.calls.length).toBeLessThanOrEqual(2);
		});

		// n8n wraps what a trigger() node throws at activation ("There was a problem activating the
		// workflow", n8n-core active-workflow-triggers.js) and tries it again whatever it was: only the
		// webhook trigger's checkExists can refuse a publication at once.
		if (kind === 'webhook') {
			test('a refused token fails the publication at once: an error n8n does not try again (15 s of retries otherwise)', async () => {
				const error = await publishingError(emu, kind, { accessToken: '7000000999:not-a-valid-token-at-all', baseUrl: emu.baseUrl });
				expect(error.message).toContain(TOKEN_REFUSED);
				expect(n8nRetries(error)).toBe(false);
			});

			test("at n8n's start a refused token is an error n8n tries again (nobody waits; the credential may be fixed meanwhile)", async () => {
				const harness = await makeHarness(emu, { credentials: { accessToken: '7000000999:not-a-valid-token-at-all', baseUrl: emu.baseUrl } });
				const error = await harness.activateAtStart().then(
					() => new Error('publishing succeeded'),
					(thrown: unknown) => thrown as Error,
				);
				expect(error.message).toContain(TOKEN_REFUSED);
				expect(n8nRetries(error)).toBe(true);
			});

			test('a base URL where the service is not (404) fails the publication at once: an error n8n does not try again', async () => {
				const { accessToken } = credentialsFor(emu);
				const error = await publishingError(emu, kind, { accessToken, baseUrl: `${emu.baseUrl}/bot${accessToken}` });
				expect(error.message).toContain(NOTHING_HERE);
				expect(n8nRetries(error)).toBe(false);
			});
		}

		test('a base URL ending in /bot<token> names the credential and Base URL, after at most two requests', async () => {
			const { accessToken } = credentialsFor(emu);
			const error = await publishingError(emu, kind, { accessToken, baseUrl: `${emu.baseUrl}/bot${accessToken}` });
			expect(error.message).toContain(`"${CREDENTIAL}"`);
			expect(error.message).toContain('(Base URL)');
			expect(error.message).toContain(NOTHING_HERE);
			expect(error.message).not.toContain(accessToken);
			expect(emu.calls.length).toBeLessThanOrEqual(2);
		});

		test('a base URL where nothing listens names the credential and Base URL', async () => {
			const { accessToken } = credentialsFor(emu);
			const error = await publishingError(emu, kind, { accessToken, baseUrl: 'http://127.0.0.1:9' });
			expect(error.message).toContain(`"${CREDENTIAL}"`);
			expect(error.message).toContain('(Base URL)');
			expect(error.message).toContain(NOTHING_LISTENS);
			expect(error.message).not.toContain(accessToken);
			// Nothing answered: the service may be starting, and n8n's own retries may find it.
			expect(n8nRetries(error)).toBe(true);
		});
	});
}
