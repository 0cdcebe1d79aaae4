/**
 * The fields of Send and Wait for Response. Names follow n8n's own send-and-wait nodes (`message`,
 * `responseType`, `approvalOptions`), so that n8n's generated human-review tool for AI agents
 * (`serviceBotHitlTool`) recognises them: it replaces the message and fixes the response type to an
 * approval.
 */
import type { INodeProperties } from 'n8n-workflow';

import { LIMITS } from '../../shared/spec';
import { fieldsOf } from '../describe/fields';
import { chat, parseMode } from '../methods/method';

/** The question's chat, as every other operation asks for it. */
export const QUESTION_CHAT = chat('Chat', 'Chat to ask in: its UUID, or the public username of a group or channel starting with @');
/** The question's parse mode (option `parseMode`), as Send Message offers it. */
export const QUESTION_PARSE_MODE = parseMode();

export const RESPONSE_TYPES = ['approval', 'choice', 'freeText'] as const;
export type ResponseType = (typeof RESPONSE_TYPES)[number];

const forResponse = (...types: ResponseType[]) => ({ show: { responseType: types } });

export const sendAndWaitFields: INodeProperties[] = [
	...fieldsOf(QUESTION_CHAT),
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		required: true,
		default: '',
		typeOptions: { rows: 4 },
		description: `The question (up to ${LIMITS.messageText.max.toLocaleString('en-US')} characters)`,
	},
	{
		displayName: 'Response Type',
		name: 'responseType',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Approval', value: 'approval', description: 'Approve (and optionally Decline) buttons' },
			{ name: 'Choice', value: 'choice', description: 'One button per option; the tapped one is the answer' },
			{ name: 'Free Text', value: 'freeText', description: 'A written answer: a reply to the message, or a small form' },
		],
		default: 'approval',
	},
	{
		displayName: 'Approval Options',
		name: 'approvalOptions',
		type: 'fixedCollection',
		placeholder: 'Add option',
		default: {},
		displayOptions: forResponse('approval'),
		options: [
			{
				displayName: 'Values',
				name: 'values',
				values: [
					{
						displayName: 'Type of Approval',
						name: 'approvalType',
						type: 'options',
						options: [
							{ name: 'Approve Only', value: 'single' },
							{ name: 'Approve and Decline', value: 'double' },
						],
						default: 'double',
					},
					{
						displayName: 'Approve Button Label',
						name: 'approveLabel',
						type: 'string',
						default: '✅ Approve',
					},
					{
						displayName: 'Decline Button Label',
						name: 'disapproveLabel',
						type: 'string',
						default: '❌ Decline',
						displayOptions: { show: { approvalType: ['double'] } },
					},
				],
			},
		],
	},
	{
		displayName: 'Choices',
		name: 'choices',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Small, Medium, Large',
		displayOptions: forResponse('choice'),
		description: 'The options: an expression returning a list, one per line, or a comma-separated list. The tapped one is the answer.',
	},
	{
		displayName: 'Buttons per Row',
		name: 'choicesPerRow',
		type: 'number',
		typeOptions: { minValue: LIMITS.buttonsPerRow.min, maxValue: LIMITS.buttonsPerRow.max },
		default: 2,
		displayOptions: forResponse('choice'),
		description: `How many option buttons each row holds (${LIMITS.buttonsPerRow.min} to ${LIMITS.buttonsPerRow.max})`,
	},
	{
		displayName: 'Answer Button Label',
		name: 'answerLabel',
		type: 'string',
		default: '✍️ Answer',
		displayOptions: forResponse('freeText'),
		description: 'Label of the button that asks for the written answer',
	},
	{
		displayName: 'Collect Answers',
		name: 'collectAnswers',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'In the Chat',
				value: 'inChat',
				description:
					'Buttons in the chat (free text: a reply to the message). Needs a published Service Bot Trigger or Service Bot Polling Trigger on the same bot.',
			},
			{
				name: 'On a Web Page',
				value: 'webPage',
				description: 'Link buttons to an answer page of this n8n; the phone must reach this n8n, no trigger is needed',
			},
		],
		default: 'inChat',
	},
	{
		displayName:
			'In the Chat needs a published Service Bot Trigger or Service Bot Polling Trigger on the same bot, in any workflow: it receives the taps and resumes this execution. This node cannot see whether one is published. The question also carries a link to a web answer page.',
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
			{
				displayName: 'After the Answer',
				name: 'afterAnswer',
				type: 'options',
				options: [
					{ name: 'Show the Answer in the Message', value: 'edit', description: 'Add the answer to the message and remove its buttons' },
					{ name: 'Remove the Buttons', value: 'removeButtons' },
					{ name: 'Leave the Message', value: 'leave' },
				],
				default: 'edit',
				description: 'What happens to the question message once it is answered',
			},
			{
				displayName: 'Limit Wait Time',
				name: 'limitWaitTime',
				type: 'fixedCollection',
				placeholder: 'Add limit',
				default: {},
				description:
					'Whether to stop waiting at some point. Without an answer by then, the workflow continues with {"timedOut": true}.',
				options: [
					{
						displayName: 'Values',
						name: 'values',
						values: [
							{
								displayName: 'Limit Type',
								name: 'limitType',
								type: 'options',
								options: [
									{ name: 'After Time Interval', value: 'afterTimeInterval' },
									{ name: 'At Specified Time', value: 'atSpecifiedTime' },
								],
								default: 'afterTimeInterval',
							},
							{
								displayName: 'Amount',
								name: 'resumeAmount',
								type: 'number',
								displayOptions: { show: { limitType: ['afterTimeInterval'] } },
								typeOptions: { minValue: 0, numberPrecision: 2 },
								default: 1,
								description: 'The time to wait',
							},
							{
								displayName: 'Unit',
								name: 'resumeUnit',
								type: 'options',
								displayOptions: { show: { limitType: ['afterTimeInterval'] } },
								options: [
									{ name: 'Minutes', value: 'minutes' },
									{ name: 'Hours', value: 'hours' },
									{ name: 'Days', value: 'days' },
								],
								default: 'hours',
							},
							{
								displayName: 'Max Date and Time',
								name: 'maxDateAndTime',
								type: 'dateTime',
								displayOptions: { show: { limitType: ['atSpecifiedTime'] } },
								default: '',
								description: 'Continue at this time at the latest',
							},
						],
					},
				],
			},
			...fieldsOf(QUESTION_PARSE_MODE),
			{
				displayName: 'Restrict to User IDs',
				name: 'allowedUserIds',
				type: 'string',
				default: '',
				placeholder: 'e.g. 4b9f2c1d-8e7a-4f3b-b2c6-5d1e0a9f8c3b',
				description:
					'Comma-separated user IDs that may answer. Others get a short notice and nothing resumes. Answers on the web page are refused then, as the page cannot tell who answers.',
			},
			{
				displayName: 'Web Answer Button Label',
				name: 'webLabel',
				type: 'string',
				default: '🌐 Answer in the browser',
				description: 'Label of the link to the answer page (In the Chat adds it below the answer buttons)',
			},
		],
	},
];
