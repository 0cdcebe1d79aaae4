/**
 * The text of an ID field (a chat, user, file, message or click ID, a @username): what no ID of this
 * service holds, `{`, `}` or `$`, is what an expression gives that did not evaluate (the kinds refuse
 * spaces by their formats; the click ID, which has none, here).
 * n8n's single-line editor garbles an expression typed key by key (`{{ json.callback_query_id }}$ }}`
 * evaluates to `$ }}`): such a value is refused before anything is sent, quoted, with the way out.
 */
import type { At } from './errors';
import { inputError, show } from './errors';
import { readText } from './text';

/** What an expression left behind, which no ID holds: braces, `$`. */
const LEFT_BY_AN_EXPRESSION = /[{}$]/u;

export const DID_NOT_EVALUATE =
	'this looks like an expression that did not evaluate: switch the field to Expression mode (hover it, click "Expression") and map the value again, e.g. by dragging it from the input';

/**
 * The ID's text, trimmed; the input error naming the field when it holds braces or `$` (or, with
 * `noSpaces`, a space: where the kind has no format of its own that refuses one with its own words).
 */
export function readIdText(at: At, field: string, value: unknown, noSpaces = false): string {
	const text = readText(at, field, value).trim();
	const odd = (noSpaces ? /[{}$\s]/u : LEFT_BY_AN_EXPRESSION).exec(text)?.[0];
	if (odd === undefined) return text;
	const holds = /\s/u.test(odd) ? 'a space' : `"${odd}"`;
	throw inputError(at, field, `${show(text)} holds ${holds}, which no ID holds: ${DID_NOT_EVALUATE}`);
}
