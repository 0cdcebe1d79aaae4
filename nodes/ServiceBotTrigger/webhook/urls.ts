/**
 * The URLs a webhook trigger deals with: its own (test or production), the service's, and the spec's
 * rules for a webhook URL. Whose the bot's current webhook is: listeners.ts.
 */
import type { IDataObject } from 'n8n-workflow';

import { LIMITS } from '../../shared/spec';
import { CREDENTIAL_TYPE } from '../../shared/transport/token';
import type { TriggerContext } from '../../shared/trigger/identity';

export function sameUrl(a: string, b: string): boolean {
	return a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}

function isLoopback(hostname: string): boolean {
	const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
	return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

const PORTS = LIMITS.webhookPorts.join(', ');
const FIX =
	`Set n8n's WEBHOOK_URL to the public HTTPS address that reaches n8n (on port ${PORTS}), or use the Service Bot Polling Trigger, which needs no public address`;

/**
 * Why the service would refuse (or could never reach) n8n's webhook URL, or undefined when it is
 * fine. The spec's rules: HTTPS, port 443, 80, 8080 or 8443. A loopback URL (localhost, 127.x, ::1)
 * is accepted only when the service itself is on this machine (the emulator, a local test service),
 * the one case where it can reach it; a remote service never could.
 */
export function webhookUrlProblem(url: string, serviceBaseUrl: string): string | undefined {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		return `n8n's webhook URL "${url}" is not a valid URL. ${FIX}`;
	}
	if (isLoopback(parsed.hostname)) {
		let serviceIsLocal = false;
		try {
			serviceIsLocal = isLoopback(new URL(serviceBaseUrl).hostname);
		} catch {
			serviceIsLocal = false;
		}
		if (serviceIsLocal) return undefined;
		return `n8n's webhook URL ${parsed.origin}/… points to this machine, which the service cannot reach. ${FIX}`;
	}
	if (parsed.protocol !== 'https:') {
		return `n8n's webhook URL ${parsed.origin}/… is not HTTPS, and the service delivers updates only over HTTPS. ${FIX}`;
	}
	const port = parsed.port === '' ? 443 : Number(parsed.port);
	if (!LIMITS.webhookPorts.includes(port)) {
		return `n8n's webhook URL ${parsed.origin}/… uses port ${port}, and the service delivers updates only to ports ${PORTS}. ${FIX}`;
	}
	return undefined;
}

/** The credential's base URL (to tell a service on this machine, such as the emulator, from a remote one). */
export async function serviceBaseUrl(ctx: TriggerContext): Promise<string> {
	const credentials: IDataObject = await ctx.getCredentials(CREDENTIAL_TYPE);
	return typeof credentials.baseUrl === 'string' ? credentials.baseUrl : '';
}
