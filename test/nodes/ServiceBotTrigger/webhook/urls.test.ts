/** n8n's webhook URL against the spec's rules, with the fix in the message. */
import { webhookUrlProblem } from '../../../../nodes/ServiceBotTrigger/webhook/urls';

describe('webhook URLs', () => {
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
