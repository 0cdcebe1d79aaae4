/**
 * The webhook trigger's pieces on their own: secret derivation and comparison, URL ownership and the
 * spec's webhook URL rules.
 */
import { createHmac } from 'node:crypto';

import type { TriggerIdentity } from '../../nodes/shared/trigger/identity';
import { deriveSecret, legacySecret, secretMatches } from '../../nodes/ServiceBotTrigger/webhook/secret';
import { listenersOf } from '../../nodes/ServiceBotTrigger/webhook/listeners';
import { webhookUrlProblem } from '../../nodes/ServiceBotTrigger/webhook/urls';
import { SECRET_PATTERN } from './helpers';

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

describe('webhook URLs', () => {
	const own = 'https://n8n.example.com/webhook/0b7c5e0e-6c1f-4a59-9f87-3c1d2e4f5a6b/webhook';
	const webhookId = '0b7c5e0e-6c1f-4a59-9f87-3c1d2e4f5a6b';

	test('the trigger reads the bot\'s webhook: none, its own URL, its other (test) URL, another trigger of this n8n, or foreign', () => {
		const origin = 'https://n8n.example.com';
		const self = { run: 'production' as const, path: new URL(own).pathname };
		expect(listenersOf('', origin, self)).toEqual([]);
		expect(listenersOf(own, origin, self)).toEqual([self]);
		expect(listenersOf(`${own}/`, origin, self)).toEqual([self]);
		expect(listenersOf(own.replace('/webhook/', '/webhook-test/'), origin, self)).toEqual([{ run: 'test', path: self.path.replace('/webhook/', '/webhook-test/') }]);
		// Another trigger of this n8n is a listener of the bot; another host, another path: foreign.
		const other = own.replace(webhookId, '9a1e0000-0000-4000-8000-000000000000');
		expect(listenersOf(other, origin, self)).toEqual([{ run: 'production', path: new URL(other).pathname }]);
		expect(listenersOf(own.replace('n8n.example.com', 'other.example.com'), origin, self)).toBeUndefined();
		expect(listenersOf('https://n8n.example.com/hooks/bot', origin, self)).toBeUndefined();
		expect(listenersOf('not a url', origin, self)).toBeUndefined();
	});

	test('the spec: HTTPS on port 443, 80, 8080 or 8443; loopback only for a service on this machine', () => {
		const remote = 'https://api.service.example';
		for (const url of ['https://n8n.example.com/webhook/x', 'https://n8n.example.com:8443/x', 'https://n8n.example.com:80/x', 'https://n8n.example.com:8080/x']) {
			expect({ url, problem: webhookUrlProblem(url, remote) }).toEqual({ url, problem: undefined });
		}
		expect(webhookUrlProblem('http://n8n.example.com/webhook/x', remote)).toMatch(/not HTTPS.*WEBHOOK_URL.*Polling Trigger/);
		expect(webhookUrlProblem('https://n8n.example.com:5678/webhook/x', remote)).toMatch(/port 5678.*443, 80, 8080, 8443.*WEBHOOK_URL/);
		expect(webhookUrlProblem('http://localhost:5678/webhook/x', remote)).toMatch(/this machine.*cannot reach.*WEBHOOK_URL.*Polling Trigger/);
		expect(webhookUrlProblem('http://127.0.0.1:5678/webhook/x', remote)).toMatch(/this machine/);
		expect(webhookUrlProblem('http://[::1]:5678/webhook/x', remote)).toMatch(/this machine/);
		// The emulator (or a test service) on this machine can reach n8n's loopback URL.
		expect(webhookUrlProblem('http://127.0.0.1:5678/webhook/x', 'http://127.0.0.1:8081')).toBeUndefined();
		expect(webhookUrlProblem('http://localhost:5678/webhook/x', 'http://localhost:8081')).toBeUndefined();
	});
});
