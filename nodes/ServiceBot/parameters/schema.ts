/**
 * What the zod schemas of the node's structured inputs share (zod/v4, which n8n ships; the package
 * only imports it): a failed parse as the node's problems, each saying where it is, in the node's
 * style. The schemas live with their kinds (keyboard/schema.ts, commands.ts, entities.ts) and with
 * Call Method.
 */
import type { z } from 'zod/v4';

import type { Problem } from './errors';

export type Checked<T> = { ok: true; value: T } | { ok: false; problems: Problem[] };

/** Problems of a list, placed at "<noun> <n>"; one problem per place and message. */
export function checkList<T>(schema: z.ZodType<T>, value: unknown, noun: string): Checked<T> {
	const result = schema.safeParse(value);
	if (result.success) return { ok: true, value: result.data };
	const problems = new Map<string, Problem>();
	for (const issue of result.error.issues) {
		const [index] = issue.path;
		const problem = { at: typeof index === 'number' ? `${noun} ${index + 1}` : undefined, message: issue.message };
		problems.set(`${problem.at}|${problem.message}`, problem);
	}
	return { ok: false, problems: [...problems.values()] };
}

