/**
 * Publishing with a credential the service refuses, or a base URL where it is not: the activation
 * fails after few requests, with the credential test's words, naming the credential and the field.
 * Runs through n8n-core's real HookContext against the emulator.
 */
import type { Emulator } from '../../emulator';
import { makeHarness } from '../../harness/trigger-nodes';
import { credentialsFor, useEmulator } from '../../harness/emulator-suite';
import { ServiceBotPollingTrigger } from '../../../nodes/ServiceBotPollingTrigger/ServiceBotPollingTrigger.node';

let emu: Emulator;
useEmulator({ started: (started) => (emu = started) });

// The credential the harness gives every node (test/harness/execute-node.ts), as n8n names it.
const CREDENTIAL = 'Service Bot account';
// The credential test's words (credentials/ServiceBotApi.credentials.ts rules), written here from its 401/404 rules.
const TOKEN_REFUSED = 'The service rejected the access token (401)';
const NOTHING_HERE = 'Nothing answered at this address (404)';

type Kind = 'webhook' | 'polling';

async function publish(kind: Kind, credentials: { accessToken: string; baseUrl: string }): Promise<unknown> {
	const harness = await makeHarness(emu, {
		credentials,
		...(kind === 'polling' ? { nodeType: new ServiceBotPollingTrigger(), parameters: { updates: ['*'], options: {} } } : {}),
	});
	try {
		if (kind === 'polling') await harness.startTrigger();
		else await harness.activate();
	} catch (error) {
		return error;
	}
	throw new Error('publishing succeeded');
}

describe.each<Kind>(['webhook', 'polling'])('publishing the %s trigger with a bad credential', (kind) => {
	test('a refused token names the credential and Access Token, after one request, without the token', async () => {
		const token = '7000000999:not-a-valid-token-at-all';
		const error = (await publish(kind, { accessToken: token, baseUrl: emu.baseUrl })) as Error;
		expect(error.message).toContain(`"${CREDENTIAL}"`);
		expect(error.message).toContain('Access Token');
		expect(error.message).toContain(TOKEN_REFUSED);
		expect(JSON.stringify(error)).not.toContain('not-a-valid-token-at-all');
		expect(emu.calls.length).toBeGreaterThanOrEqual(1);
		expect(emu.calls.length).toBeLessThanOrEqual(2);
	});

	test('a base URL ending in /bot<token> names the credential and Base URL, after at most two requests', async () => {
		const { accessToken } = credentialsFor(emu);
		const error = (await publish(kind, { accessToken, baseUrl: `${emu.baseUrl}/bot${accessToken}` })) as Error;
		expect(error.message).toContain(`"${CREDENTIAL}"`);
		expect(error.message).toContain('Base URL');
		expect(error.message).toContain(NOTHING_HERE);
		expect(error.message).not.toContain(accessToken);
		expect(emu.calls.length).toBeLessThanOrEqual(2);
	});

	test('a base URL where nothing listens names the credential and Base URL', async () => {
		const { accessToken } = credentialsFor(emu);
		const error = (await publish(kind, { accessToken, baseUrl: 'http://127.0.0.1:9' })) as Error;
		expect(error.message).toContain(`"${CREDENTIAL}"`);
		expect(error.message).toContain('Base URL');
		expect(error.message).toMatch(/Nothing listens at this address/);
		expect(error.message).not.toContain(accessToken);
	});
});
