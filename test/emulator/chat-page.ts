/**
 * The chat page the emulator serves at its address (`GET /`): the demo chats as the service holds
 * them, live (new and edited messages, formatting rendered, the files the bot and the users sent —
 * photos shown, voice and video playable, every file opened or saved by its name —, keyboards, "Demo
 * Bot is typing…" under the chat), a box to write as a chosen user or send a file with the text as
 * its caption, inline buttons that tap (the bot's
 * callback answer shown as a client shows it: a toast, or an alert) and reply keyboards that send
 * their text. Plain HTML and JavaScript using only the control API (`/_emulator/…`): no build step,
 * nothing loaded from elsewhere. Every text of a user or a bot reaches the page as text
 * (`textContent`, attribute values), never as markup.
 */
import { USER_FILE_LIMIT_BYTES } from './files';

/** What a client shows for each chat action of the spec, after the bot's name (Telegram's wording). */
const ACTION_WORDS: Record<string, string> = {
	typing: 'is typing…',
	upload_photo: 'is sending a photo…',
	record_video: 'is recording a video…',
	upload_video: 'is sending a video…',
	record_voice: 'is recording a voice message…',
	upload_voice: 'is sending a voice message…',
	upload_document: 'is sending a file…',
	choose_sticker: 'is choosing a sticker…',
	find_location: 'is finding a location…',
};

/** "Demo Bot is typing…": a chat action as a client shows it under the chat. */
export function chatActionText(botName: string, action: string): string {
	return `${botName} ${ACTION_WORDS[action] ?? 'is busy…'}`;
}

const STYLE = `
body { font: 15px/1.4 system-ui, sans-serif; margin: 0; background: #e7ebf0; color: #111; }
header { background: #2b5278; color: #fff; padding: 10px 16px; display: flex; flex-wrap: wrap; gap: 6px 12px; align-items: center; }
header select { max-width: 100%; }
header h1 { font-size: 16px; margin: 0 auto 0 0; }
select, input, button { font: inherit; }
#log { max-width: 760px; margin: 0 auto; padding: 12px 16px 180px; }
.msg { max-width: 80%; margin: 6px 0; padding: 6px 10px; border-radius: 10px; background: #fff; box-shadow: 0 1px 1px #0002; white-space: pre-wrap; word-wrap: break-word; }
.msg.user { margin-left: auto; background: #effdde; }
.who { font-size: 12px; color: #2b5278; font-weight: 600; }
.meta { font-size: 11px; color: #888; text-align: right; }
.media { margin: 2px 0 4px; white-space: normal; }
.media .preview { display: block; max-width: 100%; max-height: 320px; border-radius: 8px; }
.media video { display: block; max-width: 100%; max-height: 320px; border-radius: 8px; background: #000; }
.media audio { display: block; width: 300px; max-width: 100%; height: 40px; }
.file { display: flex; align-items: center; gap: 10px; margin-top: 4px; }
.file .icon { flex: none; width: 40px; height: 40px; border-radius: 50%; background: #4f8fcf; color: #fff; display: flex; align-items: center; justify-content: center; font-size: 11px; font-weight: 700; letter-spacing: 0.3px; }
.file .about { min-width: 0; }
.file .name { display: block; font-weight: 600; color: #2b5278; overflow-wrap: anywhere; }
.file .detail { font-size: 12px; color: #777; }
.file .save { flex: none; margin-left: auto; color: #2b5278; text-decoration: none; font-size: 18px; padding: 0 4px; }
.file.missing .icon { background: #bbb; }
.file.missing .name { color: #555; font-weight: normal; font-style: italic; }
pre, code { font-family: ui-monospace, monospace; background: #f3f3f3; border-radius: 4px; }
pre { padding: 6px; overflow-x: auto; }
blockquote { border-left: 3px solid #2b5278; margin: 4px 0; padding-left: 8px; }
.keyboard { display: grid; gap: 4px; margin-top: 6px; }
.row { display: flex; gap: 4px; }
.row button, .row a { flex: 1; padding: 6px; border: 0; border-radius: 6px; background: #dbe7f3; color: #2b5278; cursor: pointer; text-align: center; text-decoration: none; }
footer { position: fixed; bottom: 0; left: 0; right: 0; background: #fff; border-top: 1px solid #ccc; padding: 4px 16px 8px; }
#typing { max-width: 760px; margin: 0 auto 4px; min-height: 18px; font-size: 13px; color: #2b5278; font-style: italic; visibility: hidden; animation: pulse 1.4s ease-in-out infinite; }
@keyframes pulse { 50% { opacity: 0.45; } }
footer form { display: flex; gap: 8px; max-width: 760px; margin: 0 auto; }
footer input { flex: 1; padding: 6px 8px; }
.attach { flex: none; display: flex; align-items: center; padding: 0 10px; border: 1px solid #b8c7d6; border-radius: 6px; color: #2b5278; cursor: pointer; user-select: none; }
.attach input { display: none; }
#attached { max-width: 760px; margin: 0 auto 4px; font-size: 13px; color: #2b5278; display: none; align-items: center; gap: 6px; }
#attached .name { font-weight: 600; overflow-wrap: anywhere; }
#attached button { border: 0; background: #dbe7f3; color: #2b5278; border-radius: 50%; width: 22px; height: 22px; cursor: pointer; padding: 0; }
#replyKeyboard { max-width: 760px; margin: 6px auto 0; }
#toast { position: fixed; top: 60px; left: 50%; transform: translateX(-50%); background: #000c; color: #fff; padding: 8px 14px; border-radius: 8px; display: none; }
#alert { position: fixed; inset: 0; background: #0006; display: none; align-items: center; justify-content: center; }
#alert div { background: #fff; padding: 16px 20px; border-radius: 10px; max-width: 360px; }
`;

/** Runs in the browser: reads the demo data, polls the chat, sends what the user writes and taps. */
const SCRIPT = `
const api = (path, body) => fetch('/_emulator' + path, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
	.then(async (response) => { const data = await response.json(); if (!response.ok) throw new Error(data.error || response.statusText); return data; });
const $ = (id) => document.getElementById(id);
let demo;
let shown = '';
const ALLOWED = { B: 'b', STRONG: 'b', I: 'i', EM: 'i', U: 'u', INS: 'u', S: 's', STRIKE: 's', DEL: 's', CODE: 'code', PRE: 'pre', BLOCKQUOTE: 'blockquote', A: 'a', SPAN: 'span', TG_SPOILER: 'span' };

/** The service's HTML as a client shows it: only its tags, links only to web, mail and tg. */
function html(text) {
	const source = new DOMParser().parseFromString('<body>' + text.replace(/\\n/g, '<br>') + '</body>', 'text/html').body;
	const copy = (from, to) => {
		for (const node of from.childNodes) {
			if (node.nodeType === 3) { to.append(node.textContent); continue; }
			if (node.nodeType !== 1) continue;
			if (node.tagName === 'BR') { to.append('\\n'); continue; }
			const tag = ALLOWED[node.tagName.replace('-', '_')];
			if (!tag) { copy(node, to); continue; }
			const element = document.createElement(tag);
			if (tag === 'a') {
				const href = node.getAttribute('href') || '';
				if (/^(https?:|mailto:|tg:)/i.test(href)) { element.href = href; element.target = '_blank'; }
			}
			to.append(element);
			copy(node, element);
		}
	};
	const out = document.createElement('span');
	copy(source, out);
	return out;
}

function rendered(text, mode) {
	if (mode === 'HTML') return html(text);
	const out = document.createElement('span');
	out.textContent = text;
	return out;
}

function size(bytes) {
	if (bytes < 1024) return bytes + ' B';
	if (bytes < 1048576) return (bytes / 1024).toFixed(1) + ' KB';
	return (bytes / 1048576).toFixed(1) + ' MB';
}

function element(tag, className, text) {
	const made = document.createElement(tag);
	if (className) made.className = className;
	if (text !== undefined) made.textContent = text;
	return made;
}

/** Whether the chat was scrolled to its end when it was last drawn: a photo that loads later keeps it there. */
let following = true;

const LABELS = { photo: 'Photo', video: 'Video', document: 'File', voice: 'Voice message' };
const BADGES = { photo: 'IMG', video: 'VID', document: 'FILE', voice: 'AUD' };

/** What the file's round icon says: its extension, else its type's (plain letters: no emoji font needed). */
function badge(kind, file) {
	const extension = /\\.([A-Za-z0-9]{1,4})$/.exec(file.file_name || '');
	const subtype = /\\/(?:x-)?([A-Za-z0-9]{1,4})$/.exec(file.mime_type || '');
	return extension ? extension[1].toUpperCase() : subtype ? subtype[1].toUpperCase() : BADGES[kind];
}

/** The file's name, size and type; its name opens it (in a new tab), ⬇ saves it under its name. */
function fileCard(kind, file, name, url) {
	const card = element('div', url ? 'file' : 'file missing');
	card.append(element('span', 'icon', badge(kind, file)));
	const about = element('div', 'about');
	const details = [file.file_size ? size(file.file_size) : '', file.mime_type || ''].filter(Boolean).join(' · ');
	if (url) {
		const open = element('a', 'name', name);
		open.setAttribute('href', url);
		open.setAttribute('target', '_blank');
		open.setAttribute('rel', 'noopener');
		about.append(open);
		about.append(element('div', 'detail', details));
		card.append(about);
		const save = element('a', 'save', '⬇');
		save.setAttribute('href', url);
		// Without a file name (voice, photo) the browser takes the one the emulator sends in Content-Disposition.
		save.setAttribute('download', file.file_name || '');
		save.setAttribute('title', 'Save ' + name);
		card.append(save);
	} else {
		about.append(element('span', 'name', name));
		about.append(element('div', 'detail', [details, 'the emulator keeps no content for this file'].filter(Boolean).join(' · ')));
		card.append(about);
	}
	return card;
}

/** A message's file: a photo shown, video and voice with controls where the browser plays them, and the file card. */
function media(message) {
	for (const kind of ['photo', 'video', 'document', 'voice']) {
		const file = message[kind];
		if (!file) continue;
		const one = Array.isArray(file) ? file[file.length - 1] : file;
		const name = one.file_name || LABELS[kind];
		// Only the emulator's own media route: the page opens nothing from elsewhere.
		const url = typeof message.media_url === 'string' && message.media_url.startsWith('/_emulator/media/') ? message.media_url : undefined;
		const box = element('div', 'media ' + kind);
		if (url && kind === 'photo') {
			const open = element('a');
			open.setAttribute('href', url);
			open.setAttribute('target', '_blank');
			open.setAttribute('rel', 'noopener');
			const image = element('img', 'preview');
			image.setAttribute('src', url);
			image.setAttribute('alt', LABELS.photo);
			image.onload = () => { if (following) window.scrollTo(0, document.body.scrollHeight); };
			open.append(image);
			box.append(open);
			return box;
		}
		if (url && (kind === 'video' || kind === 'voice')) {
			const player = element(kind === 'video' ? 'video' : 'audio');
			if (player.canPlayType(one.mime_type || '')) {
				player.setAttribute('controls', '');
				player.setAttribute('preload', 'metadata');
				player.setAttribute('src', url);
				box.append(player);
			}
		}
		box.append(fileCard(kind, one, name, url));
		return box;
	}
	return undefined;
}

/** Under the chat, as a messenger shows it: "Demo Bot is typing…" while the bot's action lasts. */
function showActions(actions) {
	const line = $('typing');
	const text = actions.map((action) => action.text).join(' · ');
	line.textContent = text;
	line.style.visibility = text ? 'visible' : 'hidden';
}

function toast(text) {
	$('toast').textContent = text;
	$('toast').style.display = 'block';
	clearTimeout(toast.timer);
	toast.timer = setTimeout(() => { $('toast').style.display = 'none'; }, 3000);
}

function alertBox(text) {
	$('alertText').textContent = text;
	$('alert').style.display = 'flex';
}

async function tap(message, button) {
	const chatId = $('chat').value;
	const update = await api('/clicks', { chatId, userId: $('user').value, messageId: message.message_id, data: button.callback_data });
	const id = update.callback_query && update.callback_query.id;
	for (let tries = 0; tries < 50; tries++) {
		const answer = (await api('/callback-answers')).find((entry) => entry.callback_query_id === id);
		if (answer) { if (answer.text) (answer.show_alert ? alertBox : toast)(answer.text); return; }
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
}

function keyboard(message) {
	const markup = message.reply_markup;
	if (!markup) return undefined;
	if (markup.inline_keyboard) {
		const box = document.createElement('div');
		box.className = 'keyboard';
		for (const row of markup.inline_keyboard) {
			const line = document.createElement('div');
			line.className = 'row';
			for (const button of row) {
				const element = document.createElement(button.url ? 'a' : 'button');
				element.textContent = button.text;
				if (button.url) { element.href = button.url; element.target = '_blank'; }
				else element.onclick = () => tap(message, button).catch((error) => toast(error.message));
				line.append(element);
			}
			box.append(line);
		}
		return box;
	}
	return undefined;
}

function replyKeyboard(messages) {
	const box = $('replyKeyboard');
	box.replaceChildren();
	const last = [...messages].reverse().find((message) => message.sent_by_bot && message.reply_markup && (message.reply_markup.keyboard || message.reply_markup.remove_keyboard));
	if (!last || !last.reply_markup.keyboard) return;
	for (const row of last.reply_markup.keyboard) {
		const line = document.createElement('div');
		line.className = 'row';
		for (const button of row) {
			const text = typeof button === 'string' ? button : button.text;
			const element = document.createElement('button');
			element.textContent = text;
			element.onclick = () => send(text);
			line.append(element);
		}
		box.append(line);
	}
}

async function refresh() {
	const state = await api('/chats/' + encodeURIComponent($('chat').value) + '/state');
	showActions(state.actions);
	const messages = state.messages;
	const key = JSON.stringify(messages);
	if (key === shown) return;
	shown = key;
	const log = $('log');
	const atBottom = window.innerHeight + window.scrollY >= document.body.scrollHeight - 40;
	following = atBottom;
	log.replaceChildren();
	for (const message of messages) {
		const box = document.createElement('div');
		box.className = 'msg ' + (message.sent_by_bot ? 'bot' : 'user');
		box.dataset.messageId = message.message_id;
		const who = document.createElement('div');
		who.className = 'who';
		who.textContent = message.from ? message.from.first_name : (message.sender_chat ? message.sender_chat.title : 'channel');
		box.append(who);
		const file = media(message);
		if (file) box.append(file);
		const text = message.text !== undefined ? message.text : message.caption;
		if (text !== undefined) {
			const body = rendered(text, message.parse_mode);
			body.className = 'text';
			box.append(body);
		}
		const buttons = keyboard(message);
		if (buttons) box.append(buttons);
		const meta = document.createElement('div');
		meta.className = 'meta';
		meta.textContent = '#' + message.message_id + (message.edit_date ? ' · edited' : '') + (message.pinned ? ' · pinned' : '');
		box.append(meta);
		log.append(box);
	}
	replyKeyboard(messages);
	if (atBottom) window.scrollTo(0, document.body.scrollHeight);
}

async function send(text) {
	if (!text) return;
	await api('/messages', { chatId: $('chat').value, userId: $('user').value, text });
	$('text').value = '';
	await refresh();
}

const USER_FILE_MAX = ${USER_FILE_LIMIT_BYTES};
const PHOTO_TYPES = ['jpg', 'jpeg', 'png', 'gif', 'webp', 'bmp'];
const VOICE_TYPES = ['ogg', 'oga', 'mp3', 'm4a'];

/** How a messenger sends a file: images as a photo, Ogg/MP3/M4A audio as a voice message, MP4 as a video, the rest as a document. */
function kindOf(file) {
	const extension = (/\\.([a-z0-9]+)$/.exec((file.name || '').toLowerCase()) || [])[1] || '';
	const type = (file.type || '').toLowerCase();
	if (PHOTO_TYPES.includes(extension) || /^image\\/(jpeg|png|gif|webp|bmp)$/.test(type)) return 'photo';
	if (VOICE_TYPES.includes(extension) || /^audio\\/(ogg|mpeg|mp4|x-m4a)$/.test(type)) return 'voice';
	if (extension === 'mp4' || type === 'video/mp4') return 'video';
	return 'document';
}

async function base64Of(file) {
	const bytes = new Uint8Array(await file.arrayBuffer());
	let binary = '';
	// In slices: one call with millions of arguments would overflow the stack.
	for (let at = 0; at < bytes.length; at += 32768) binary += String.fromCharCode.apply(null, bytes.subarray(at, at + 32768));
	return btoa(binary);
}

/** The chosen user sends a file, the text (if any) as its caption, as the control API takes it. */
async function sendFile(file, caption) {
	if (file.size > USER_FILE_MAX) throw new Error(file.name + ' is ' + size(file.size) + '; users send at most ' + size(USER_FILE_MAX) + ' here');
	const media = { kind: kindOf(file), contentBase64: await base64Of(file), fileName: file.name };
	if (file.type) media.mimeType = file.type;
	const body = { chatId: $('chat').value, userId: $('user').value, media };
	if (caption) body.caption = caption;
	await api('/messages', body);
	$('file').value = '';
	$('text').value = '';
	showAttached();
	await refresh();
}

/** The file chosen to send, named above the box (with a button that takes it away). */
function showAttached() {
	const file = $('file').files && $('file').files[0];
	const box = $('attached');
	box.replaceChildren();
	box.style.display = file ? 'flex' : 'none';
	$('text').placeholder = file ? 'Add a caption…' : 'Write a message…';
	if (!file) return;
	box.append(element('span', '', 'Sends as ' + kindOf(file) + ':'));
	box.append(element('span', 'name', file.name));
	box.append(element('span', '', size(file.size)));
	const remove = element('button', '', '×');
	remove.setAttribute('type', 'button');
	remove.setAttribute('title', 'Do not send this file');
	remove.onclick = () => { $('file').value = ''; showAttached(); };
	box.append(remove);
}

/** The form: a chosen file with the text as its caption, else the text. */
function submit() {
	const file = $('file').files && $('file').files[0];
	return file ? sendFile(file, $('text').value) : send($('text').value);
}

async function start() {
	demo = await api('/demo');
	const chats = [[demo.privateChatId, 'Private chat with @' + demo.botUsername], [demo.groupChatId, 'Demo Group'], [demo.channelChatId, 'Demo Channel']];
	for (const [id, name] of chats) $('chat').append(new Option(name, id));
	for (const [id, name] of [[demo.userId, 'Demo (user)'], [demo.otherUserId, 'Other (user)']]) $('user').append(new Option(name, id));
	$('chat').onchange = () => { shown = ''; refresh(); };
	$('form').onsubmit = (event) => { event.preventDefault(); submit().catch((error) => toast(error.message)); };
	$('file').onchange = showAttached;
	$('alert').onclick = () => { $('alert').style.display = 'none'; };
	// Every 250 ms, one refresh after the other: a bot's "typing…" often lasts only until its first words
	// (a streamed answer's come about a second later), and a poll every 700 ms missed it on a busy machine.
	for (;;) {
		await refresh().catch(() => {});
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}
start().catch((error) => { document.body.textContent = 'The emulator did not answer: ' + error.message; });
`;

export function chatPage(): string {
	return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Service emulator — chats</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>Service emulator</h1><label>Chat <select id="chat"></select></label><label>Write as <select id="user"></select></label></header>
<main id="log"></main>
<footer><div id="typing" role="status" aria-live="polite"></div><div id="attached"></div><form id="form"><label class="attach" title="Send a file (the text is its caption)">Attach<input type="file" id="file"></label><input id="text" placeholder="Write a message…" autocomplete="off"><button>Send</button></form><div id="replyKeyboard"></div></footer>
<div id="toast" role="status"></div>
<div id="alert" role="alertdialog"><div id="alertText"></div></div>
<script>${SCRIPT}</script>
</body>
</html>`;
}
