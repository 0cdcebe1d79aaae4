/**
 * `npm run say -- "hi"` and `npm run tap -- "Cherry"`: act as the demo user against the emulator of
 * `npm run dev`, from a terminal or a script, without ids. `say` writes a message; `tap` taps the
 * button with that label under the bot's latest message that has one. Both print what the bot answers
 * in the next seconds (its chat actions — "… Demo Bot is typing" —, new and edited messages with the
 * address of a file it sent, and a tap's callback answer).
 *
 * Options: --chat private|group|<chat id> (default private), --as demo|other|<user id> (default demo);
 * `say --file <path> ["caption"]` sends a file, the text as its caption, as a messenger sends it:
 * images as a photo, .ogg/.oga/.mp3/.m4a as a voice message, .mp4 as a video, anything else as a document.
 * The emulator: SERVICE_BOT_EMULATOR_URL, else http://127.0.0.1:<SERVICE_BOT_DEV_EMULATOR_PORT or 8081>.
 */
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';

interface Demo {
	privateChatId: string;
	groupChatId: string;
	userId: string;
	otherUserId: string;
}

interface MediaRef {
	file_name?: string;
}

interface Message {
	message_id: number;
	text?: string;
	caption?: string;
	edit_date?: number;
	sent_by_bot?: boolean;
	reply_markup?: { inline_keyboard?: Array<Array<{ text: string; callback_data?: string }>> };
	/** an object when the bot sent it; a user's photo is the array of its sizes */
	photo?: MediaRef | MediaRef[];
	video?: MediaRef;
	document?: MediaRef;
	voice?: MediaRef;
	/** where the emulator serves the file (`/_emulator/media/<id>`), when it keeps its bytes */
	media_url?: string;
}

/** The emulator's `GET /_emulator/chats/<id>/state`: the messages and the chat actions showing now. */
interface ChatState {
	messages: Message[];
	actions: Array<{ botId: string; text: string; at: number }>;
}

const base = process.env.SERVICE_BOT_EMULATOR_URL || `http://127.0.0.1:${process.env.SERVICE_BOT_DEV_EMULATOR_PORT || '8081'}`;

async function control<T>(path: string, body?: unknown): Promise<T> {
	let response: Response;
	try {
		response = await fetch(`${base}/_emulator${path}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
	} catch {
		throw new Error(`no emulator at ${base}: start it with \`npm run dev\` (or set SERVICE_BOT_EMULATOR_URL)`);
	}
	const data = (await response.json()) as T & { error?: string };
	if (!response.ok) throw new Error(data.error ?? `${response.status} ${response.statusText}`);
	return data;
}

type FileKind = 'photo' | 'video' | 'document' | 'voice';

/** What a file is sent as, and its MIME type, by its extension (the emulator works out the type of the others). */
const BY_EXTENSION: Record<string, { kind: FileKind; mimeType: string }> = {
	'.jpg': { kind: 'photo', mimeType: 'image/jpeg' },
	'.jpeg': { kind: 'photo', mimeType: 'image/jpeg' },
	'.png': { kind: 'photo', mimeType: 'image/png' },
	'.gif': { kind: 'photo', mimeType: 'image/gif' },
	'.webp': { kind: 'photo', mimeType: 'image/webp' },
	'.bmp': { kind: 'photo', mimeType: 'image/bmp' },
	'.ogg': { kind: 'voice', mimeType: 'audio/ogg' },
	'.oga': { kind: 'voice', mimeType: 'audio/ogg' },
	'.mp3': { kind: 'voice', mimeType: 'audio/mpeg' },
	'.m4a': { kind: 'voice', mimeType: 'audio/mp4' },
	'.mp4': { kind: 'video', mimeType: 'video/mp4' },
	'.pdf': { kind: 'document', mimeType: 'application/pdf' },
	'.txt': { kind: 'document', mimeType: 'text/plain' },
};

/** The control API's `media` of a message for the file at `path`. */
async function mediaOf(path: string): Promise<{ kind: FileKind; contentBase64: string; fileName: string; mimeType?: string }> {
	let bytes: Buffer;
	try {
		bytes = await readFile(path);
	} catch (error) {
		throw new Error(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
	}
	const known = BY_EXTENSION[extname(path).toLowerCase()];
	return { kind: known?.kind ?? 'document', contentBase64: bytes.toString('base64'), fileName: basename(path), mimeType: known?.mimeType };
}

function option(args: string[], name: string): string | undefined {
	const at = args.indexOf(name);
	if (at < 0) return undefined;
	const value = args[at + 1];
	args.splice(at, 2);
	return value;
}

/** "[document: report.txt] http://127.0.0.1:8081/_emulator/media/…": a file the bot sent, and where to open it. */
function fileOf(message: Message): string | undefined {
	for (const kind of ['photo', 'video', 'document', 'voice'] as const) {
		const sent = message[kind];
		const file = Array.isArray(sent) ? sent.at(-1) : sent;
		if (file) return `[${kind}${file.file_name ? `: ${file.file_name}` : ''}]${message.media_url ? ` ${base}${message.media_url}` : ''}`;
	}
	return undefined;
}

function shown(message: Message): string {
	const content = [fileOf(message), message.text ?? message.caption].filter((part) => part !== undefined).join(' ');
	return `#${message.message_id}${message.edit_date ? ' (edited)' : ''}: ${content || '(no text)'}`;
}

/**
 * Prints the bot's new or edited messages and its chat actions (once each) until it has been quiet
 * for 1.5 s with no action showing (at most 15 s).
 */
async function printAnswers(chatId: string, before: Message[]): Promise<void> {
	const seen = new Map(before.map((message) => [message.message_id, JSON.stringify(message)]));
	const seenActions = new Set<string>();
	const started = Date.now();
	let lastNews = Date.now();
	while (Date.now() - lastNews < 1500 && Date.now() - started < 15_000) {
		await new Promise((resolve) => setTimeout(resolve, 250));
		const state = await control<ChatState>(`/chats/${encodeURIComponent(chatId)}/state`);
		for (const message of state.messages) {
			const key = JSON.stringify(message);
			if (seen.get(message.message_id) === key) continue;
			seen.set(message.message_id, key);
			lastNews = Date.now();
			if (message.sent_by_bot) {
				const buttons = (message.reply_markup?.inline_keyboard ?? []).flat().map((button) => `[${button.text}]`).join(' ');
				process.stdout.write(`bot ${shown(message)}${buttons ? `\n    ${buttons}` : ''}\n`);
			}
		}
		// An action still showing came after the bot's last message (that message would have ended it);
		// while it shows, the bot is at work (an AI agent thinking): its answer is worth waiting for.
		for (const action of state.actions) {
			lastNews = Date.now();
			const key = `${action.botId} ${action.at}`;
			if (seenActions.has(key)) continue;
			seenActions.add(key);
			process.stdout.write(`… ${action.text.replace(/…$/, '')}\n`);
		}
	}
}

async function main(): Promise<void> {
	const args = process.argv.slice(2);
	const command = args.shift();
	const demo = await control<Demo>('/demo');
	const chatOption = option(args, '--chat') ?? 'private';
	const userOption = option(args, '--as') ?? 'demo';
	const chatId = chatOption === 'private' ? demo.privateChatId : chatOption === 'group' ? demo.groupChatId : chatOption;
	const userId = userOption === 'demo' ? demo.userId : userOption === 'other' ? demo.otherUserId : userOption;
	const file = option(args, '--file');
	const text = args.join(' ');
	if ((command !== 'say' && command !== 'tap') || (text === '' && file === undefined) || (command === 'tap' && file !== undefined)) {
		throw new Error(
			'usage: npm run say -- "your message"   |   npm run say -- --file <path> ["caption"]   |   npm run tap -- "button label"   (options: --chat private|group|<id>, --as demo|other|<id>)',
		);
	}
	const before = await control<Message[]>(`/chats/${encodeURIComponent(chatId)}/history`);
	if (command === 'say' && file !== undefined) {
		const media = await mediaOf(file);
		await control('/messages', { chatId, userId, media, ...(text === '' ? {} : { caption: text }) });
		process.stdout.write(`you: [${media.kind}: ${media.fileName}]${text === '' ? '' : ` ${text}`}\n`);
		return await printAnswers(chatId, before);
	}
	if (command === 'say') {
		await control('/messages', { chatId, userId, text });
		process.stdout.write(`you: ${text}\n`);
		return await printAnswers(chatId, before);
	}
	const target = [...before].reverse().find((message) => message.sent_by_bot && (message.reply_markup?.inline_keyboard ?? []).flat().some((button) => button.text === text));
	const button = target?.reply_markup?.inline_keyboard?.flat().find((candidate) => candidate.text === text);
	if (!target || !button?.callback_data) {
		const labels = [...new Set(before.flatMap((message) => (message.reply_markup?.inline_keyboard ?? []).flat().map((candidate) => candidate.text)))];
		throw new Error(`no button "${text}" under the bot's messages in this chat${labels.length > 0 ? `; buttons there: ${labels.map((label) => `"${label}"`).join(', ')}` : ''}`);
	}
	const update = await control<{ callback_query?: { id: string } }>('/clicks', { chatId, userId, messageId: target.message_id, data: button.callback_data });
	process.stdout.write(`you tapped "${text}" under #${target.message_id}\n`);
	await printAnswers(chatId, before);
	const answer = (await control<Array<{ callback_query_id: string; text?: string; show_alert: boolean }>>('/callback-answers')).find(
		(entry) => entry.callback_query_id === update.callback_query?.id,
	);
	if (answer) process.stdout.write(answer.text ? `the app shows ${answer.show_alert ? 'an alert' : 'a toast'}: ${answer.text}\n` : 'the tap was answered (nothing shown)\n');
	else process.stdout.write('the bot has not answered the tap (the app keeps showing a spinner for a while)\n');
}

main().catch((error: unknown) => {
	process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
	process.exitCode = 1;
});
