/**
 * A Fixed value that looks like an expression: `{{ $json.callback_query_id }}` typed key by key into
 * a field stays in Fixed mode in n8n 2.41 (only pasting `{{` switches the field to Expression), and a
 * Fixed value is the text it shows. In a field that takes an ID or a number that text can never be
 * meant: the item fails before any request, naming the field and how to switch it. In a free text (a
 * message, a caption) braces may be meant: the text is sent as written and the run shows a warning
 * naming the field.
 *
 * n8n saves an expression with a leading `=` and a Fixed value without; the saved value is the same
 * for every item, so each field is looked at once per node run, not once per item.
 */
import type { IExecuteFunctions, INodeParameters } from 'n8n-workflow';

import { SWITCH_TO_EXPRESSION, fixedLooksLikeExpression } from '../../shared/fixedMode';
import { inputError, show } from './errors';
import type { ReadItem } from './kind';
import type { Param } from './param';


/** What one node run has seen: the saved parameters, and per field path its Fixed text that looks like an expression ('' for none). */
interface RunSeen {
	readonly parameters: INodeParameters;
	readonly fixedTexts: Map<string, string>;
}

// Keyed by the run's context, which n8n creates anew for every run of the node.
const runs = new WeakMap<IExecuteFunctions, RunSeen>();

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
 * Whether braces in the parameter can only be a mistake: every kind but free text takes IDs, numbers,
 * URLs, codes or JSON, and a text parameter named `…_id` (callback_query_id) is an ID.
 */
function takesFreeText(param: Param): boolean {
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
	}
	if (text === '' || takesFreeText(param)) return;
	throw inputError(
		item.at,
		param.displayName,
		`${show(text)} is in Fixed mode, so it would be sent as this text. ${SWITCH_TO_EXPRESSION.charAt(0).toUpperCase()}${SWITCH_TO_EXPRESSION.slice(1)} or remove the braces`,
	);
}
