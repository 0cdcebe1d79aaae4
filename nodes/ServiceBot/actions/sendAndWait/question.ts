/**
 * The question of a Send and Wait for Response, as its fields give it: read (and checked) when it
 * is sent. The waiting execution keeps it as it was asked (`AskedQuestion`), so that the answer is
 * judged and the question updated by what the person saw: the fields are often expressions of the
 * input (`Refund order #{{ $json.id }}?`, `$fromAI(…)` of an agent's tool call), which n8n cannot
 * evaluate again once the answer has resumed the execution (n8n 2.41 releases the expression engine
 * of a waiting webhook when `webhook()` returns), and which could give another value by then.
 */
import type { IDataObject } from 'n8n-workflow';
import { z } from 'zod/v4';

import { LIMITS, UUID_PATTERN } from '../../../shared/spec';
import type { At } from '../../parameters/errors';
import { inputError, show } from '../../parameters/errors';
import { parseLabels } from '../../parameters/keyboard/grid';
import { escapeHtml } from '../../../shared/markdown/html';
import { readText } from '../../parameters/text';
import type { ResponseType } from './fields';
import { DEFAULT_LABELS, QUESTION_PARSE_MODE, RESPONSE_TYPES } from './fields';

export type Read = (name: string, fallback: unknown) => unknown;

export interface Question {
	responseType: ResponseType;
	/** The answers' labels, in order: approval Approve (and Decline), choice the options. */
	labels: string[];
	/** Choice: option buttons per row. */
	perRow: number;
	/** Free text: the label of the button that asks for the answer. */
	answerLabel: string;
	collect: 'inChat' | 'webPage';
	afterAnswer: 'edit' | 'removeButtons' | 'leave';
	parseMode?: string;
	/** Normalised (lower-case) user IDs that may answer; empty: anyone in the chat. */
	allowedUserIds: string[];
	webLabel: string;
}


/** A button label: what a button may show (spec part 8: up to 128 characters, not empty). */
function label(at: At, field: string, value: string): string {
	const trimmed = value.trim();
	const { max } = LIMITS.inlineButtonText;
	if (trimmed === '') throw inputError(at, field, 'is empty; a button needs a label');
	if (trimmed.length > max) throw inputError(at, field, `is ${trimmed.length} characters, the limit is ${max}`);
	return trimmed;
}

function oneOf<T extends string>(at: At, field: string, value: unknown, allowed: readonly T[]): T {
	if (!allowed.includes(value as T)) throw inputError(at, field, `${show(value)} is not one of ${allowed.join(', ')}`);
	return value as T;
}

export function readQuestion(read: Read, at: At): Question {
	/** A field's text (readText), or `fallback` when the field is not there. */
	const text = (field: string, value: unknown, fallback: string): string =>
		value === undefined || value === null ? fallback : readText(at, field, value);
	const responseType = oneOf(at, 'Response Type', read('responseType', 'approval'), RESPONSE_TYPES);
	const options = (read('options', {}) ?? {}) as IDataObject;
	const perRow = Number(read('choicesPerRow', 2));
	let labels: string[] = [];
	if (responseType === 'approval') {
		const approval = ((read('approvalOptions', {}) as IDataObject)?.values ?? {}) as IDataObject;
		labels = [label(at, 'Approve Button Label', text('Approve Button Label', approval.approveLabel, DEFAULT_LABELS.approve))];
		if (approval.approvalType !== 'single') labels.push(label(at, 'Decline Button Label', text('Decline Button Label', approval.disapproveLabel, DEFAULT_LABELS.decline)));
	} else if (responseType === 'choice') {
		const parsed = parseLabels(read('choices', ''));
		if (!parsed.ok) throw inputError(at, 'Choices', [parsed.problem]);
		if (parsed.labels.length === 0) throw inputError(at, 'Choices', 'the list is empty; give at least one option');
		labels = parsed.labels.map((choice, index) => label(at, `Choices → option ${index + 1}`, choice));
		const { min, max } = LIMITS.buttonsPerRow;
		if (!Number.isInteger(perRow) || perRow < min || perRow > max) {
			throw inputError(at, 'Buttons per Row', `${show(perRow)}; it must be a whole number from ${min} to ${max}`);
		}
		// One row stays for the link to the answer page.
		const rows = Math.ceil(labels.length / perRow);
		if (rows > LIMITS.inlineKeyboardRows.max - 1) {
			throw inputError(at, 'Choices', `${labels.length} options at ${perRow} per row make ${rows} rows, the limit is ${LIMITS.inlineKeyboardRows.max - 1}`);
		}
	}
	const allowedUserIds = text('Restrict to User IDs', options.allowedUserIds, '')
		.split(/[\s,;]+/)
		.map((id) => id.trim().toLowerCase())
		.filter((id) => id !== '');
	for (const id of allowedUserIds) {
		if (!UUID_PATTERN.test(id)) throw inputError(at, 'Restrict to User IDs', `${show(id)} is not a user UUID`);
	}
	const parseMode = text('Parse Mode', options.parseMode, 'none');
	return {
		responseType,
		labels,
		perRow,
		answerLabel: responseType === 'freeText' ? label(at, 'Answer Button Label', text('Answer Button Label', read('answerLabel', DEFAULT_LABELS.answer), DEFAULT_LABELS.answer)) : '',
		collect: oneOf(at, 'Collect Answers', read('collectAnswers', 'inChat'), ['inChat', 'webPage'] as const),
		afterAnswer: oneOf(at, 'After the Answer', options.afterAnswer ?? 'edit', ['edit', 'removeButtons', 'leave'] as const),
		parseMode: parseMode === 'none' ? undefined : oneOf(at, 'Parse Mode', parseMode, QUESTION_PARSE_MODE.values ?? []),
		allowedUserIds,
		webLabel: label(at, 'Web Answer Button Label', text('Web Answer Button Label', options.webLabel, DEFAULT_LABELS.web)),
	};
}

/**
 * The field of the node's input, while the execution waits, that keeps the question as asked (and
 * of its output when the wait runs out, which passes that input on). Named for the package, so that
 * an input field of the user's (a form's `question`, say) is left as it was.
 */
export const ASKED_QUESTION_FIELD = 'serviceBotQuestion';

/** The question as it was sent: its fields' values and the message text. */
export interface AskedQuestion extends Question {
	text: string;
}

const ASKED_QUESTION = z.object({
	text: z.string(),
	responseType: z.enum(RESPONSE_TYPES),
	labels: z.array(z.string()),
	perRow: z.number(),
	answerLabel: z.string(),
	collect: z.enum(['inChat', 'webPage']),
	afterAnswer: z.enum(['edit', 'removeButtons', 'leave']),
	parseMode: z.string().optional(),
	allowedUserIds: z.array(z.string()),
	webLabel: z.string(),
});

export function askedQuestion(question: Question, text: string): AskedQuestion {
	const { parseMode, ...rest } = question;
	return parseMode === undefined ? { ...rest, text } : { ...rest, parseMode, text };
}

/**
 * The question a waiting execution keeps, or undefined when it keeps none (a question asked by an
 * earlier version of this package: its fields are read again).
 */
export function readAskedQuestion(value: unknown): AskedQuestion | undefined {
	const parsed = ASKED_QUESTION.safeParse(value);
	if (!parsed.success) return undefined;
	const { parseMode, ...rest } = parsed.data;
	return parseMode === undefined ? rest : { ...rest, parseMode };
}

/** Text in the question's parse mode: the characters its markup gives a meaning are escaped. */
export function escapeFor(parseMode: string | undefined, value: string): string {
	if (parseMode === 'HTML') return escapeHtml(value);
	if (parseMode === 'Markdown') return value.replace(/([_*`[])/g, '\\$1');
	if (parseMode === 'MarkdownV2') return value.replace(/([_*[\]()~`>#+\-=|{}.!\\])/g, '\\$1');
	return value;
}
