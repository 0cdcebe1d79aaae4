/**
 * What the service's Bot API document fixes and both nodes use: the limits of its part 8 and the
 * update types of its part 6. Written from the document; where it says "not shown", Telegram's
 * convention fills in and the entry says so.
 */

/** Lengths are counted in UTF-16 code units, as the Telegram-compatible services count them. */
export const LIMITS = {
	messageText: { max: 32768 },
	caption: { max: 32768 },
	inlineButtonText: { max: 128 },
	callbackDataBytes: { min: 1, max: 64 },
	inlineKeyboardRows: { max: 100 },
	buttonsPerRow: { min: 1, max: 8 },
	callbackAnswerText: { max: 200 },
	botName: { min: 1, max: 100 },
	botDescription: { max: 512 },
	botShortDescription: { max: 120 },
	secretToken: { min: 1, max: 256, pattern: /^[A-Za-z0-9_-]+$/ },
	maxConnections: { min: 1, max: 100, default: 40 },
	webhookPorts: [443, 80, 8080, 8443] as readonly number[],
	updatesLimit: { min: 1, max: 100, default: 100 },
	updatesTimeout: { min: 0, max: 50, default: 0 },
	/** Spec: not shown. Telegram's convention, which Telegram-compatible services follow. */
	commandName: { min: 1, max: 32, pattern: /^[a-z0-9_]+$/ },
	commandDescription: { min: 1, max: 256 },
	commandsPerList: { max: 100 },
	/** Spec: "the endpoint and payload for uploading: not shown". Telegram's 50 MB for files bots upload. */
	uploadBytes: { max: 50 * 1024 * 1024 },
	/** Spec: no download endpoint shown. Telegram's 20 MB for files bots download (getFile, then the file path). */
	downloadBytes: { max: 20 * 1024 * 1024 },
} as const;

export const UPDATE_TYPES = ['message', 'callback_query'] as const;

/**
 * Part 5, rule 3: the header the service puts a webhook's `secret_token` in (Node lower-cases
 * incoming header names); the triggers of one n8n send each other their secrets in it too.
 */
export const SECRET_HEADER = 'x-service-bot-api-secret-token';

/**
 * Part 1, rule 5: chat and user identifiers are UUID strings (any version, either case). As a string
 * too, for the editor's regex validation.
 */
export const UUID_SOURCE = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
export const UUID_PATTERN = new RegExp(UUID_SOURCE);

/** A chat's @username after the `@` (Telegram's convention; the spec shows usernames with `@`). */
export const USERNAME_BODY = '[A-Za-z0-9_]{1,64}';

/** Where the package's documentation (its README) lives; each node links to its own section. */
export const DOCUMENTATION_URL = 'https://github.com/n8n-nodes-service-bot/n8n-nodes-service-bot';
