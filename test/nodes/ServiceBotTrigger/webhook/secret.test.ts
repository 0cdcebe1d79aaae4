/** The webhook's secret on its own: how it is derived (and 0.1.0's), and how a header is compared with it. */
import { createHmac } from 'node:crypto';

import type { TriggerIdentity } from '../../../../nodes/shared/trigger/identity';
import { deriveSecret, legacySecret, secretMatches } from '../../../../nodes/ServiceBotTrigger/webhook/secret';
import { SECRET_PATTERN } from '../../../harness/trigger-nodes';

const identity: TriggerIdentity = { workflowId: 'wf-1', nodeId: 'node-1', webhookId: 'hook-1' };

describe('deriveSecret', () => {
	test('is stable, 43 allowed characters, and changes with the token, every part of the identity and the run', () => {
		const secret = deriveSecret('123:token', identity, 'production');
		expect(secret).toMatch(SECRET_PATTERN);
		expect(secret).toHaveLength(43);
		expect(deriveSecret('123:token', { ...identity }, 'production')).toBe(secret);

		const variants = [
			deriveSecret('123:other', identity, 'production'),
			deriveSecret('123:token', { ...identity, workflowId: 'wf-2' }, 'production'),
			deriveSecret('123:token', { ...identity, nodeId: 'node-2' }, 'production'),
			deriveSecret('123:token', { ...identity, webhookId: 'hook-2' }, 'production'),
			deriveSecret('123:token', identity, 'test'),
		];
		expect(new Set([secret, ...variants]).size).toBe(variants.length + 1);
	});

	test('parts cannot be shifted into each other', () => {
		const a = deriveSecret('t', { ...identity, workflowId: 'ab', nodeId: 'c' }, 'production');
		const b = deriveSecret('t', { ...identity, workflowId: 'a', nodeId: 'bc' }, 'production');
		expect(a).not.toBe(b);
	});

	test('legacySecret is the secret version 0.1.0 registered (HMAC-SHA256 over the identity and the URL)', () => {
		// Written out here from 0.1.0's derivation, so the test does not take it from the code under test.
		const url = 'https://n8n.example.com/webhook/hook-1/webhook';
		const message = JSON.stringify(['n8n-nodes-service-bot:webhook-secret:v1', 'wf-1', 'node-1', 'hook-1', url]);
		const expected = createHmac('sha256', '123:token').update(message, 'utf8').digest('base64url');
		expect(legacySecret('123:token', identity, url)).toBe(expected);
		expect(legacySecret('123:token', identity, url)).not.toBe(deriveSecret('123:token', identity, 'production'));
	});
});

describe('secretMatches', () => {
	const expected = deriveSecret('123:token', identity, 'production');
	const legacy = legacySecret('123:token', identity, 'https://n8n.example.com/webhook/hook-1/webhook');

	test('only an exact accepted string matches', () => {
		expect(secretMatches(expected, [expected])).toBe(true);
		expect(secretMatches(legacy, [expected, legacy])).toBe(true);
		expect(secretMatches(expected, [expected, legacy])).toBe(true);
		expect(secretMatches(legacy, [expected])).toBe(false);
		expect(secretMatches(`${expected} `, [expected])).toBe(false);
		expect(secretMatches(expected.slice(1), [expected])).toBe(false);
		expect(secretMatches(`${expected.slice(0, -1)}${expected.endsWith('A') ? 'B' : 'A'}`, [expected])).toBe(false);
	});

	test('absent, empty, repeated or non-string headers never match', () => {
		for (const received of [undefined, null, '', [expected, expected], [expected], 42]) {
			expect(secretMatches(received, [expected])).toBe(false);
		}
		// An empty accepted secret matches nothing, not even an empty header.
		expect(secretMatches('', [''])).toBe(false);
		expect(secretMatches('x', [])).toBe(false);
	});
});
