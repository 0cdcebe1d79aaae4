/**
 * n8n reports every node error to its ErrorReporter (Sentry in the cloud, the log otherwise), with the
 * message, stack and cause chain. The harness routes those reports into `errorReports` instead of the
 * console: tests stay quiet and can assert what n8n would have logged (e.g. that no token leaks).
 */
import { ErrorReporter } from 'n8n-core';
import { dirname } from 'node:path';

/**
 * n8n-core ships its own nested copy of @n8n/di, so its container must be loaded from n8n-core's
 * folder (through jest's require, so that it is the very instance n8n-core uses).
 */
function coreContainer(): typeof import('@n8n/di').Container {
	const diPath = require.resolve('@n8n/di', { paths: [dirname(require.resolve('n8n-core'))] });
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return (require(diPath) as typeof import('@n8n/di')).Container;
}

export const errorReports: unknown[] = [];

let installed = false;

/** Idempotent; the harness calls it before running anything. */
export function captureErrorReports(): void {
	if (installed) return;
	installed = true;
	const reporter = coreContainer().get(ErrorReporter) as unknown as { report: (error: unknown) => void };
	reporter.report = (error: unknown) => {
		errorReports.push(error);
	};
}
