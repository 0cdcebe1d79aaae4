/**
 * A saved value that is most likely not what the user meant, told where they act.
 *
 * A Fixed value that looks like an expression: `{{ $json.callback_query_id }}` typed key by key into
 * a field stays in Fixed mode in n8n 2.41 (only pasting `{{` switches the field to Expression), and a
 * Fixed value is the text it shows. In a field that takes an ID or a number that text can never be
 * meant: the item fails before any request, naming the field and how to switch it. In a free text (a
 * message, a caption) braces may be meant: the text is sent as written and the run shows a warning
 * naming the field.
 *
 * An expression with a `}}` outside `{{ }}`: n8n's editor closes a typed `{{` itself, so a person who
 * types the `}}` too leaves one after the closing pair, and n8n keeps it in the text (it splits an
 * expression at the first `}}` after each `{{`, n8n-workflow `splitExpression`). A free text is sent as
 * n8n made it, with a warning; an ID field refuses the braces in its own check (idText.ts).
 *
 * n8n saves an expression with a leading `=` and a Fixed value without; the saved value is the same
 * for every item, so each field is looked at once per node run, not once per item.
 */
import type { IExecuteFunctions, INodeParameters } from 'n8n-workflow';

import { SWITCH_TO_EXPRESSION, fixedLooksLikeExpression } from '../../shared/fixedMode';
import { inputError, show } from './errors';
import type { ReadItem } from './kind';
import type { Param } from './param';


/** What one node run has seen: the saved parameters, and per field path looked at its Fixed text that looks like an expression ('' for none). */
interface RunSeen {
	readonly parameters: INodeParameters;
	readonly fixedTexts: Map<string, string>;
}

// Keyed by the run's context, which n8n creates anew for every run of the node.
const runs = new WeakMap<IExecuteFunctions, RunSeen>();

/** The node's saved parameters, read once per node run (n8n copies them on every getNode()). */
export function savedParametersOf(ctx: IExecuteFunctions): INodeParameters {
	return seenIn(ctx).parameters;
}

function seenIn(ctx: IExecuteFunctions): RunSeen {
	let seen = runs.get(ctx);
	if (!seen) {
		seen = { parameters: ctx.getNode().parameters, fixedTexts: new Map() };
		runs.set(ctx, seen);
	}
	return seen;
}

/** The saved value at a dotted path ('text', 'additionalFields.caption'); a resource locator's (the chat) is its `value`. */
export function savedAt(parameters: INodeParameters, path: string): unknown {
	let value: unknown = parameters;
	for (const key of path.split('.')) {
		if (value === null || typeof value !== 'object') return undefined;
		value = (value as Record<string, unknown>)[key];
	}
	return value !== null && typeof value === 'object' && '__rl' in value ? (value as { value?: unknown }).value : value;
}

/**
 * The text part of an expression (without its `=`) that holds a `}}` outside every `{{ }}`, from that
 * `}}` to the next `{{` or the end (at most 40 characters), as n8n splits it: a `{{` opens (unless
 * escaped as `\{{`), the first `}}` after it closes. One pass of index scans: linear in the text.
 */
export function strayClosing(expression: string): string | undefined {
	let at = 0;
	while (at < expression.length) {
		let open = expression.indexOf('{{', at);
		while (open > 0 && expression[open - 1] === '\\') open = expression.indexOf('{{', open + 2);
		const textEnd = open === -1 ? expression.length : open;
		const close = expression.indexOf('}}', at);
		if (close !== -1 && close < textEnd) return expression.slice(close, Math.min(textEnd, close + 40));
		if (open === -1) return undefined;
		const closing = expression.indexOf('}}', open + 2);
		if (closing === -1) return undefined;
		at = closing + 2;
	}
	return undefined;
}

/**
 * Whether braces in the parameter can only be a mistake: every kind but free text takes IDs, numbers,
 * URLs, codes or JSON, and a text parameter named `…_id` (callback_query_id) is an ID.
 */
export function takesFreeText(param: Param): boolean {
	return param.kind === 'text' && !param.name.endsWith('_id');
}

/**
 * Checks the field at `path` (its saved place among the node's parameters) of a parameter as read for
 * `item`: throws the input error where a Fixed value that looks like an expression cannot be meant,
 * and adds the run's warning (once) where it may be.
 */
export function checkFixedValue(item: ReadItem, param: Param, path: string): void {
	const seen = seenIn(item.ctx);
	let text = seen.fixedTexts.get(path);
	if (text === undefined) {
		// The field's first look in this run: its saved value is read once, for both mistakes.
		const saved = savedAt(seen.parameters, path);
		text = fixedLooksLikeExpression(saved) ? saved : '';
		seen.fixedTexts.set(path, text);
		if (text !== '' && takesFreeText(param)) {
			item.ctx.addExecutionHints({
				message: `${param.displayName}: ${show(text)} is in Fixed mode, so it was sent as this text, braces included. To fill it in from the input, ${SWITCH_TO_EXPRESSION}.`,
				type: 'warning',
				location: 'outputPane',
			});
		}
		const stray = typeof saved === 'string' && saved.startsWith('=') && takesFreeText(param) ? strayClosing(saved.slice(1)) : undefined;
		if (stray !== undefined) {
			item.ctx.addExecutionHints({
				message: `${param.displayName}: the expression has a }} outside {{ }} (in ${show(stray)}), so every message shows it. n8n's editor closes a typed {{ by itself: delete the extra }}.`,
				type: 'warning',
				location: 'outputPane',
			});
		}
	}
	if (text === '' || takesFreeText(param)) return;
	throw inputError(
		item.at,
		param.displayName,
		`${show(text)} is in Fixed mode, so it would be sent as this text. ${SWITCH_TO_EXPRESSION.charAt(0).toUpperCase()}${SWITCH_TO_EXPRESSION.slice(1)} or remove the braces`,
	);
}
