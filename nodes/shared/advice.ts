/**
 * Refusals of the service that a user can act on, and what to do about each: the transport appends
 * the advice to the error's message, because n8n's toast shows only the message. The service's own
 * words stay first (and alone in the typed failure, `failureOf`). The descriptions are the
 * Telegram-compatible ones the service answers with (the spec shows none).
 */
interface Advice {
	readonly status: number;
	readonly matches: RegExp;
	readonly advice: string;
}

export const REFUSAL_ADVICE: readonly Advice[] = [
	{
		status: 400,
		matches: /chat not found/i,
		advice:
			"Check the Chat ID: use the chat_id of an update the bot received (the trigger's chat_id field) or the @username of a public group or channel; the bot must be in that chat",
	},
	{
		status: 403,
		matches: /bot is not a member|bot was kicked|not enough rights|have no rights|administrator rights/i,
		advice: 'Add the bot to the chat (as an administrator where posting needs it, such as a channel), then run the workflow again',
	},
	{
		status: 403,
		matches: /blocked by the user/i,
		advice: 'The user blocked the bot: it can write to them again once they start it again',
	},
	{
		status: 400,
		matches: /message can't be edited/i,
		advice:
			"Only messages the bot sent can be edited: check the Message ID (a trigger's message_id is the user's message; a click's callback_query.message is the bot's)",
	},
	{
		status: 400,
		matches: /message to (edit|delete|pin|unpin|forward|copy) not found|message to be replied not found/i,
		advice: 'Check the Message ID: it must be a message of this chat that still exists',
	},
	{
		status: 400,
		matches: /query is too old|query ID is invalid/i,
		advice: 'Answer a button click once, within seconds of the tap (Answer Callback Query right after the trigger)',
	},
];

/** The service's description with what to do, when the refusal is one a user can act on. */
export function withAdvice(description: string, status: number): string {
	const found = REFUSAL_ADVICE.find((entry) => entry.status === status && entry.matches.test(description));
	return found ? `${description.replace(/[.\s]+$/, '')}. ${found.advice}` : description;
}
