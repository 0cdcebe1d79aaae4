/**
 * The Service Bot API credential: its `test` request, run the way n8n runs it when a user saves the
 * credential (see test/harness/credential-tester.ts), and its `authenticate` at runtime.
 */
import { ServiceBotApi } from '../../credentials/ServiceBotApi.credentials';
import type { Emulator } from '../emulator';
import { executeNode, testCredential } from '../harness';
import { MethodCaller } from '../harness/test-nodes';
import { credentialsFor, useEmulator } from '../harness/emulator-suite';

const UNAUTHORIZED = 'The service rejected the access token (401). Check that the token is complete and still valid.';
const NOT_FOUND = 'Nothing answered at this address (404). Check the base URL (without /bot…) and the token.';

let emulator: Emulator;
useEmulator({ started: (started) => (emulator = started) });

const baseUrlField = () => new ServiceBotApi().properties.find((property) => property.name === 'baseUrl');

describe('credential test (as n8n runs it)', () => {
	it('succeeds against the service with the right token', async () => {
		const result = await testCredential(credentialsFor(emulator));
		expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
		// The test request went through `authenticate`: POST {baseUrl}/bot{token}/getMyName.
		expect(emulator.calls).toHaveLength(1);
		expect(emulator.calls[0]).toMatchObject({ token: emulator.demo.token, method: 'getMyName', httpMethod: 'POST', status: 200 });
	});

	it('fails with the 401 rule message when the token is wrong', async () => {
		const result = await testCredential({ accessToken: '7000000001:not-the-right-secret', baseUrl: emulator.baseUrl });
		expect(result).toEqual({ status: 'Error', message: UNAUTHORIZED });
		expect(emulator.calls[0]).toMatchObject({ method: 'getMyName', status: 401 });
	});

	it('fails with the 404 rule message when the base URL is wrong', async () => {
		const result = await testCredential({ accessToken: emulator.demo.token, baseUrl: `${emulator.baseUrl}/api` });
		expect(result).toEqual({ status: 'Error', message: NOT_FOUND });
		// The emulator answers 404 to anything outside /bot…, and records no Bot API call.
		expect(emulator.calls).toHaveLength(0);
	});

	it('fails with the 404 rule message when the base URL already contains /bot<token>', async () => {
		const result = await testCredential({
			accessToken: emulator.demo.token,
			baseUrl: `${emulator.baseUrl}/bot${emulator.demo.token}`,
		});
		expect(result).toEqual({ status: 'Error', message: NOT_FOUND });
	});

	it.each([
		['not a url'],
		['api.service.example'],
		['ftp://api.service.example'],
	])('a Base URL %p that is not an http(s) address fails with how to write one, before any request', async (baseUrl) => {
		const result = await testCredential({ accessToken: emulator.demo.token, baseUrl });
		expect(result).toEqual({
			status: 'Error',
			message: `Base URL '${baseUrl}' is not a web address: it must start with https:// or http://, e.g. https://api.service.example (http://127.0.0.1:8081 for the emulator of npm run dev)`,
		});
		expect(emulator.calls).toHaveLength(0);
	});

	it('a token pasted into the Base URL field is not shown in that message', async () => {
		const result = await testCredential({ accessToken: emulator.demo.token, baseUrl: `bot${emulator.demo.token}` });
		expect(result.status).toBe('Error');
		expect(result.message).not.toContain(emulator.demo.token);
		expect(result.message).toMatch(/^Base URL 'bot…' is not a web address: it must start with https:\/\/ or http:\/\//);
	});

	// n8n's credential test answers a request that got no response with the error's bare code (its
	// CredentialsTester, for a declarative `test` as for a node's `testedBy` request); the Base URL
	// field's hint, under the field the user corrects, says what each code means.
	it.each([
		['a closed port', 'ECONNREFUSED', 'http://127.0.0.1:1'],
		['an unknown host (RFC 2606 .invalid)', 'ENOTFOUND', 'http://service-bot.invalid'],
	])('against %s n8n shows %p; the Base URL hint says what that means and what to check', async (_label, code, baseUrl) => {
		const result = await testCredential({ accessToken: emulator.demo.token, baseUrl });
		expect(result).toEqual({ status: 'Error', message: code });
		expect(baseUrlField()?.hint).toBe(
			'Starts with https:// or http://. If the test says ECONNREFUSED, nothing listens at this address: is the service running? (npm run dev starts the emulator at http://127.0.0.1:8081). ENOTFOUND: the host name is unknown, check its spelling.',
		);
	});

	it.each([
		['one trailing slash', '/'],
		['several trailing slashes', '///'],
		['surrounding whitespace and a slash', '/  '],
	])('tolerates a base URL with %s', async (_label, suffix) => {
		const result = await testCredential({ accessToken: emulator.demo.token, baseUrl: `${emulator.baseUrl}${suffix}` });
		expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(emulator.calls[0]).toMatchObject({ token: emulator.demo.token, method: 'getMyName', status: 200 });
	});

	it('passes a token with URL-special characters to the service intact', async () => {
		const token = '123:a.b*c+d?e(f)[g]{h}|i^j$k#l%m&n=o';
		emulator.addBot({ token, name: 'Odd Token Bot' });
		const result = await testCredential({ accessToken: token, baseUrl: emulator.baseUrl });
		expect(emulator.calls[0]?.token).toBe(token);
		expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
	});
});

describe('credential at runtime', () => {
	it('a node request with a Base URL that is not a web address fails saying how to write one, naming no token', async () => {
		const { error } = await executeNode({
			nodeType: new MethodCaller(),
			parameters: { method: 'getMyName' },
			credentials: { accessToken: emulator.demo.token, baseUrl: 'api.service.example' },
		});
		expect(error?.message).toContain("Base URL 'api.service.example' is not a web address: it must start with https:// or http://");
		expect(error?.message).not.toContain(emulator.demo.token);
		expect(emulator.calls).toHaveLength(0);
	});

	it('applies the same base URL rules to node requests (trailing slash tolerated)', async () => {
		const { output, error } = await executeNode({
			nodeType: new MethodCaller(),
			parameters: { method: 'getMyName' },
			credentials: { accessToken: emulator.demo.token, baseUrl: `${emulator.baseUrl}/` },
		});
		expect(error).toBeUndefined();
		expect(output[0].json.result).toEqual({ name: 'Demo Bot' });
		expect(emulator.calls[0]).toMatchObject({ token: emulator.demo.token, method: 'getMyName' });
	});
});
