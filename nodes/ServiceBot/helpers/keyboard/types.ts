/** Which markups an operation accepts: 'inline' for edits and copies, which take an inline keyboard only. */
export type KeyboardScope = 'any' | 'inline';

/** The two keyboards the UI can build: the values of the Reply Markup option that have rows. */
export type KeyboardKind = 'inline' | 'reply';

/**
 * One thing wrong with a markup. `path` says where ("row 3, button 2", "keyboard", "JSON", "labels");
 * `row` and `button` are 0-based positions, set when the problem is in a button or a row, so a caller
 * can add its own context (the auto grid names the label a button came from).
 */
export interface Problem {
	path: string;
	message: string;
	row?: number;
	button?: number;
}

export type InlineButton = {
	text: string;
	callback_data?: string;
	url?: string;
	switch_inline_query?: string;
};

export type ReplyButton = { text: string };

/** A markup read from the UI, not yet validated; `relabel` adds mode-specific context to a validator problem. */
export type BuildResult =
	| { ok: true; markup: Record<string, unknown>; relabel?: (problem: Problem) => Problem }
	| { ok: false; problems: Problem[] };

export function formatProblem(problem: Problem): string {
	return problem.path === '' ? problem.message : `${problem.path}: ${problem.message}`;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** "a string", "a number", "an array", "null"…: for messages saying what was found instead. */
export function describeValue(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'an array';
	const type = typeof value;
	return type === 'object' || type === 'undefined' ? `an ${type}` : `a ${type}`;
}

/** Quotes a value for a message, shortened so a huge label or URL cannot flood the error. */
export function quote(value: string, max = 40): string {
	const shown = value.length > max ? `${value.slice(0, max - 1)}…` : value;
	return JSON.stringify(shown);
}

export function rowPath(row: number): string {
	return `row ${row + 1}`;
}

export function buttonPath(row: number, button: number): string {
	return `row ${row + 1}, button ${button + 1}`;
}
