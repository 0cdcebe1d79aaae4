/**
 * The parse mode kind: how the service formats a text. Its field offers the modes of the parameter
 * (the service's, and Markdown From AI), its reader checks the one chosen, and its request step does
 * what Markdown From AI means: the text (or caption) converted to the service's HTML (markdown/) and
 * sent as HTML; if the service refuses that HTML after all, the text goes out plain.
 */
import type { IDataObject, INodePropertyOptions } from 'n8n-workflow';

import { failureOf, messageOf } from '../../shared/transport/failure';
import type { At } from './errors';
import { inputError, show } from './errors';
import type { Fallback, ParamKindDefinition } from './kind';
import { baseField } from './kind';
import { markdownToHtml } from '../../shared/markdown/blocks';
import { visibleText } from '../../shared/markdown/html';
import { readText } from './text';

/** The parse mode value of Markdown from a chat model: converted here, sent as HTML. */
export const MARKDOWN_FROM_AI = 'markdownFromAi';

/** The modes of a parse mode parameter that names none of its own: the service's three, and Markdown From AI. */
const PARSE_MODES: readonly string[] = ['HTML', 'Markdown', 'MarkdownV2', MARKDOWN_FROM_AI];

const PARSE_MODE_NOTES: Record<string, string> = {
	HTML: 'Tags such as <b>, <i>, <a href="…">',
	Markdown: 'Legacy Markdown: *bold*, _italic_, [link](url)',
	MarkdownV2: 'Markdown with escaping rules and more styles',
	[MARKDOWN_FROM_AI]: 'The Markdown chat models write (headings, lists, tables, code): converted to HTML, so it always sends',
};

const PARSE_MODE_NAMES: Record<string, string> = { [MARKDOWN_FROM_AI]: 'Markdown From AI' };

/** The fields of a request that a parse mode formats. */
const FORMATTED_FIELDS = ['text', 'caption'];

/** `''` and `none` send no parse_mode; modes match case-insensitively. */
function checkParseMode(at: At, field: string, value: unknown, allowed: readonly string[]): string | undefined {
	const text = readText(at, field, value).trim();
	if (text === '' || text.toLowerCase() === 'none') return undefined;
	const match = allowed.find((mode) => mode.toLowerCase() === text.toLowerCase());
	if (!match) throw inputError(at, field, `${show(text)} is not one of None, ${allowed.join(', ')}`);
	return match;
}

/**
 * The same request without its formatting: its text (or caption) as a reader would have seen it, and
 * no parse mode. Sent when the service refuses the converted HTML after all (a service whose rules
 * differ from the spec's), so a model's answer is never lost to formatting.
 */
function withoutFormatting(body: IDataObject): IDataObject {
	const plain: IDataObject = { ...body };
	delete plain.parse_mode;
	for (const field of FORMATTED_FIELDS) {
		if (typeof body[field] === 'string') plain[field] = visibleText(body[field]);
	}
	return plain;
}

/** Whether the service refused a request for its formatting ("Bad Request: can't parse entities: …"). */
function formattingRefused(error: unknown): boolean {
	const failure = failureOf(error);
	return failure?.kind === 'refused' && failure.status === 400 && /can't parse entities/i.test(failure.description);
}

const asPlainText: Fallback = {
	answers: formattingRefused,
	body: withoutFormatting,
	warning: (error, itemIndex) => `the service refused the formatting of item ${itemIndex} (${messageOf(error)}); sent it as plain text`,
	flag: 'sentAsPlainText',
};

export const parseModeKind: ParamKindDefinition = {
	fields: (param) => [
		{
			...baseField(param),
			type: 'options',
			options: [
				{ name: 'None', value: 'none', description: 'Send the text as it is; no parse mode is sent' },
				...(param.values ?? PARSE_MODES).map((mode): INodePropertyOptions => ({ name: PARSE_MODE_NAMES[mode] ?? mode, value: mode, description: PARSE_MODE_NOTES[mode] })),
			],
			default: 'none',
		},
	],
	read: (value, param, { at }) => checkParseMode(at, param.displayName, value, param.values ?? PARSE_MODES),
	/** Markdown From AI: the text (or caption) converted, sent as HTML. Any other mode sends the body as it is. */
	prepare(body) {
		if (body.parse_mode !== MARKDOWN_FROM_AI) return undefined;
		const converted: IDataObject = { ...body, parse_mode: 'HTML' };
		for (const field of FORMATTED_FIELDS) {
			if (typeof body[field] === 'string') converted[field] = markdownToHtml(body[field]);
		}
		return { body: converted, fallback: asPlainText };
	},
};
