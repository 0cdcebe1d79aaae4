/**
 * The fields of Send and Wait for Response. Names follow n8n's own send-and-wait nodes (`message`,
 * `responseType`, `approvalOptions`), so that n8n's generated human-review tool for AI agents
 * (`serviceBotHitlTool`) recognises them: it replaces the message and fixes the response type to an
 * approval.
 */
import type { INodeProperties } from 'n8n-workflow';
import { SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import { LIMITS } from '../../../shared/spec';
import { fieldsOf } from '../../parameters/body';
import { FROM_TRIGGER_SINCE, NODE_VERSIONS } from '../../parameters/param';
import type { OperationOutsideTheTable } from '../../resources/method';
import { about, chat, parseMode } from '../../resources/method';

/** The question's chat, as every other operation asks for it. */
export const QUESTION_CHAT = chat('Chat', 'Chat to ask in: its UUID, or the public username of a group or channel starting with @');
/** The question's parse mode (option `parseMode`), as Send Message offers it. */
export const QUESTION_PARSE_MODE = parseMode(['HTML', 'Markdown', 'MarkdownV2']);

export const RESPONSE_TYPES = ['approval', 'choice', 'freeText'] as const;
export type ResponseType = (typeof RESPONSE_TYPES)[number];

const forResponse = (...types: ResponseType[]) => ({ show: { responseType: types } });

/** The labels a question's buttons have unless the user changes them. */
export const DEFAULT_LABELS = {
	approve: '✅ Approve',
	decline: '❌ Decline',
	answer: '✍️ Answer',
	web: '🌐 Answer in the browser',
} as const;

type Choice = [name: string, value: string, description?: string];

/** A field choosing one of `choices`. */
function pick(displayName: string, name: string, choices: Choice[], defaultValue: string, extra: Partial<INodeProperties> = {}): INodeProperties {
	return {
		displayName,
		name,
		type: 'options',
		options: choices.map(([label, value, description]) => ({ name: label, value, ...(description ? { description } : {}) })),
		default: defaultValue,
		...extra,
	};
}

function text(displayName: string, name: string, defaultValue: string, extra: Partial<INodeProperties> = {}): INodeProperties {
	return { displayName, name, type: 'string', default: defaultValue, ...extra };
}

/** One group of fields under `values`, the shape n8n's own send-and-wait nodes give these options. */
function group(displayName: string, name: string, values: INodeProperties[], extra: Partial<INodeProperties> = {}): INodeProperties {
	return { displayName, name, type: 'fixedCollection', placeholder: 'Add option', default: {}, options: [{ displayName: 'Values', name: 'values', values }], ...extra };
}

const afterInterval = { show: { limitType: ['afterTimeInterval'] } };

const NEWEST_VERSION = NODE_VERSIONS[NODE_VERSIONS.length - 1];

/** The question's chat: By ID by default in the versions before From Trigger, From Trigger since. */
const questionChat: INodeProperties[] = [
	...fieldsOf(QUESTION_CHAT, FROM_TRIGGER_SINCE - 1).map((field) => ({ ...field, displayOptions: { show: { '@version': [{ _cnd: { lte: FROM_TRIGGER_SINCE - 1 } }] } } })),
	...fieldsOf(QUESTION_CHAT, FROM_TRIGGER_SINCE).map((field) => ({ ...field, displayOptions: { show: { '@version': [{ _cnd: { gte: FROM_TRIGGER_SINCE } }] } } })),
];

export const sendAndWaitFields: INodeProperties[] = [
	...questionChat,
	text('Message', 'message', '', {
		required: true,
		typeOptions: { rows: 4 },
		description: `The question (up to ${LIMITS.messageText.max.toLocaleString('en-US')} characters)`,
	}),
	pick(
		'Response Type',
		'responseType',
		[
			['Approval', 'approval', 'Approve (and optionally Decline) buttons'],
			['Choice', 'choice', 'One button per option; the tapped one is the answer'],
			['Free Text', 'freeText', 'A written answer: a reply to the message, or a small form'],
		],
		'approval',
		{ noDataExpression: true },
	),
	group(
		'Approval Options',
		'approvalOptions',
		[
			pick('Type of Approval', 'approvalType', [['Approve Only', 'single'], ['Approve and Decline', 'double']], 'double'),
			text('Approve Button Label', 'approveLabel', DEFAULT_LABELS.approve),
			text('Decline Button Label', 'disapproveLabel', DEFAULT_LABELS.decline, { displayOptions: { show: { approvalType: ['double'] } } }),
		],
		{
			displayOptions: forResponse('approval'),
			// An empty "Add option" read as "no buttons" to a new user: the button says what is asked
			// without it. (A filled-in default is not possible: n8n-workflow 2.41's getNodeParameters reads a
			// single-value fixedCollection's default items from the node's own values and throws.)
			placeholder: `Change the Buttons (default: ${DEFAULT_LABELS.approve}, ${DEFAULT_LABELS.decline})`,
		},
	),
	text('Choices', 'choices', '', {
		required: true,
		placeholder: 'e.g. Small, Medium, Large',
		displayOptions: forResponse('choice'),
		description: 'The options: an expression returning a list, one per line, or a comma-separated list. The tapped one is the answer.',
	}),
	{
		displayName: 'Buttons per Row',
		name: 'choicesPerRow',
		type: 'number',
		typeOptions: { minValue: LIMITS.buttonsPerRow.min, maxValue: LIMITS.buttonsPerRow.max },
		default: 2,
		displayOptions: forResponse('choice'),
		description: `How many option buttons each row holds (${LIMITS.buttonsPerRow.min} to ${LIMITS.buttonsPerRow.max})`,
	},
	text('Answer Button Label', 'answerLabel', DEFAULT_LABELS.answer, {
		displayOptions: forResponse('freeText'),
		description: 'Label of the button that asks for the written answer',
	}),
	pick(
		'Collect Answers',
		'collectAnswers',
		[
			[
				'In the Chat',
				'inChat',
				'Buttons in the chat (free text: a reply to the message). Needs a published Service Bot Trigger or Service Bot Polling Trigger on the same bot.',
			],
			['On a Web Page', 'webPage', 'Link buttons to an answer page of this n8n; the phone must reach this n8n, no trigger is needed'],
		],
		'inChat',
		{ noDataExpression: true },
	),
	{
		displayName:
			'In the Chat needs a published Service Bot Trigger or Service Bot Polling Trigger on the same bot, in any workflow: it receives the taps and resumes this execution. Run from the editor without one, the node stops before asking and says so. The question also carries a link to a web answer page.',
		name: 'inChatNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { collectAnswers: ['inChat'] } },
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			pick(
				'After the Answer',
				'afterAnswer',
				[
					['Show the Answer in the Message', 'edit', 'Add the answer to the message and remove its buttons'],
					['Remove the Buttons', 'removeButtons'],
					['Leave the Message', 'leave'],
				],
				'edit',
				{ description: 'What happens to the question message once it is answered' },
			),
			group(
				'Limit Wait Time',
				'limitWaitTime',
				[
					pick('Limit Type', 'limitType', [['After Time Interval', 'afterTimeInterval'], ['At Specified Time', 'atSpecifiedTime']], 'afterTimeInterval'),
					{
						displayName: 'Amount',
						name: 'resumeAmount',
						type: 'number',
						displayOptions: afterInterval,
						typeOptions: { minValue: 0, numberPrecision: 2 },
						default: 1,
						description: 'The time to wait',
					},
					pick('Unit', 'resumeUnit', [['Minutes', 'minutes'], ['Hours', 'hours'], ['Days', 'days']], 'hours', { displayOptions: afterInterval }),
					{
						displayName: 'Max Date and Time',
						name: 'maxDateAndTime',
						type: 'dateTime',
						displayOptions: { show: { limitType: ['atSpecifiedTime'] } },
						default: '',
						description: 'Continue at this time at the latest',
					},
				],
				{
					placeholder: 'Add limit',
					description: 'Whether to stop waiting at some point. Without an answer by then, the workflow continues with {"timedOut": true}.',
				},
			),
			...fieldsOf(QUESTION_PARSE_MODE, NEWEST_VERSION),
			text('Restrict to User IDs', 'allowedUserIds', '', {
				placeholder: 'e.g. 4b9f2c1d-8e7a-4f3b-b2c6-5d1e0a9f8c3b',
				description:
					'Comma-separated user IDs that may answer. Others get a short notice and nothing resumes. Answers on the web page are refused then, as the page cannot tell who answers.',
			}),
			text('Web Answer Button Label', 'webLabel', DEFAULT_LABELS.web, {
				description: 'Label of the link to the answer page (In the Chat adds it below the answer buttons)',
			}),
		],
	},
];

/** The operation in the editor, under Message. */
export const SEND_AND_WAIT: OperationOutsideTheTable = {
	// n8n's own value for this kind of operation: n8n waits for it, and offers the node to AI agents as a human review tool.
	...about(SEND_AND_WAIT_OPERATION, 'Send a message and wait for the response', 'Asks a question and waits until it is answered, in the chat or on a web page'),
	displayName: 'Send and Wait for Response',
	resource: 'message',
	properties: sendAndWaitFields,
};
