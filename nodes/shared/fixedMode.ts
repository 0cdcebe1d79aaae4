/**
 * A value saved in Fixed mode that looks like an expression: `{{ $json.chat_id }}` typed key by key
 * into a field stays Fixed in n8n 2.41 (only pasting `{{` switches the field to Expression), and is
 * then the text it shows. Both nodes tell the user where they act; this is what they share.
 */

/** What to do about it, as the end of a message. */
export const SWITCH_TO_EXPRESSION = 'switch the field to Expression (hover the field, click "Expression")';

/** Whether a saved value is a Fixed text with `{{` and a `}}` after it (two index scans: linear in the text). */
export function fixedLooksLikeExpression(saved: unknown): saved is string {
	if (typeof saved !== 'string' || saved.startsWith('=')) return false;
	const open = saved.indexOf('{{');
	return open >= 0 && saved.indexOf('}}', open + 2) >= 0;
}
