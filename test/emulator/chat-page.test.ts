/**
 * What the chat page (`GET /`) needs from the emulator and how it shows it: the chat's current
 * action ("Demo Bot is typing…", Telegram's convention: from sendChatAction until the bot's next
 * message in the chat, 5 seconds at most), the files the bot sent, served from the control API, and
 * a file the user attaches, sent with the text as its caption.
 * The page's own script runs here in a `vm` context with a small stand-in for the DOM, so what it
 * renders is checked without a browser.
 */
import { createHash } from 'node:crypto';
import { runInNewContext } from 'node:vm';

import { CHAT_ACTIONS } from '../spec';
import type { DemoData, Emulator, Message } from './index';
import type { ChatState, CurrentChatAction } from './types';
import { ok, methodUrl, useEmulator } from './helpers';
import { MEDIA_BYTES_KEPT_MAX } from './state';

let emu: Emulator;
let d: DemoData;
useEmulator((started) => {
	emu = started;
	d = started.demo;
});

/** Telegram: a chat action shows for 5 seconds or less (until the bot's next message). */
const ACTION_MS = 5000;

async function chatState(chatId: string): Promise<ChatState> {
	const response = await fetch(`${emu.baseUrl}/_emulator/chats/${encodeURIComponent(chatId)}/state`);
	expect(response.status).toBe(200);
	return (await response.json()) as ChatState;
}

async function uploadDocument(data: Buffer, name: string, type: string, caption?: string): Promise<Message> {
	const form = new FormData();
	form.append('chat_id', d.privateChatId);
	if (caption !== undefined) form.append('caption', caption);
	form.append('document', new Blob([data], { type }), name);
	const response = await fetch(methodUrl(emu, 'sendDocument'), { method: 'POST', body: form });
	const answer = (await response.json()) as { ok: boolean; result: Message; description?: string };
	if (!answer.ok) throw new Error(`sendDocument failed: ${answer.description ?? response.status}`);
	return answer.result;
}

describe('the chat state the page polls: GET /_emulator/chats/<id>/state', () => {
	it('holds the chat\'s messages as history() has them', async () => {
		await ok(emu, 'sendMessage', { chat_id: d.privateChatId, text: 'hello' });
		const state = await chatState(d.privateChatId);
		expect(state.messages).toEqual(emu.history(d.privateChatId));
		expect(state.actions).toEqual([]);
	});

	it('says "Demo Bot is typing…" after sendChatAction typing, and no longer after the bot\'s sendMessage to that chat', async () => {
		const before = Date.now();
		await ok(emu, 'sendChatAction', { chat_id: d.privateChatId, action: 'typing' });
		const typing = await chatState(d.privateChatId);
		expect(typing.actions).toHaveLength(1);
		expect(typing.actions[0]).toMatchObject({ botId: d.botId, botName: 'Demo Bot', action: 'typing', text: 'Demo Bot is typing…' });
		expect(typing.actions[0].at).toBeGreaterThanOrEqual(before);
		expect(typing.actions[0].until).toBe(typing.actions[0].at + ACTION_MS);
		// Only in the chat it was sent to.
		expect((await chatState(d.groupChatId)).actions).toEqual([]);
		// A user's message does not end the bot's action; the bot's own message does.
		await emu.userSends({ chatId: d.privateChatId, userId: d.userId, text: 'still there?' });
		expect((await chatState(d.privateChatId)).actions).toHaveLength(1);
		await ok(emu, 'sendMessage', { chat_id: d.privateChatId, text: 'here I am' });
		expect((await chatState(d.privateChatId)).actions).toEqual([]);
	});

	it('a chat action shows for 5 seconds at most', async () => {
		await ok(emu, 'sendChatAction', { chat_id: d.privateChatId, action: 'typing' });
		const { at } = (await chatState(d.privateChatId)).actions[0];
		const clock = jest.spyOn(Date, 'now');
		try {
			clock.mockReturnValue(at + ACTION_MS - 1);
			expect(emu.chatState(d.privateChatId).actions).toHaveLength(1);
			clock.mockReturnValue(at + ACTION_MS);
			expect(emu.chatState(d.privateChatId).actions).toEqual([]);
		} finally {
			clock.mockRestore();
		}
	});

	it('names every action of the spec in words, with the bot\'s current name; a new action replaces the previous one', async () => {
		await ok(emu, 'setMyName', { name: 'Helper' });
		const texts: string[] = [];
		for (const action of CHAT_ACTIONS) {
			await ok(emu, 'sendChatAction', { chat_id: d.groupChatId, action });
			const { actions } = await chatState(d.groupChatId);
			expect(actions).toHaveLength(1);
			expect(actions[0].action).toBe(action);
			texts.push(actions[0].text);
		}
		expect(texts[0]).toBe('Helper is typing…');
		expect(texts[CHAT_ACTIONS.indexOf('upload_photo')]).toBe('Helper is sending a photo…');
		for (const text of texts) expect(text).toMatch(/^Helper is [a-z][a-z ]+…$/);
		expect(new Set(texts).size).toBe(CHAT_ACTIONS.length);
	});

	it('answers 404 for an unknown chat', async () => {
		const response = await fetch(`${emu.baseUrl}/_emulator/chats/${encodeURIComponent('@nobody_here')}/state`);
		expect(response.status).toBe(404);
	});
});

describe('the files the bot sent: GET /_emulator/media/<id>', () => {
	it('serves a document uploaded with multipart sendDocument byte for byte, with its MIME type and its file name in Content-Disposition', async () => {
		const data = Buffer.from('Quarterly report\nrevenue: 42\nprofit: 7\n\u00e9');
		const sent = await uploadDocument(data, 'report.txt', 'text/plain', 'The report');
		const [stored] = emu.history(d.privateChatId);
		expect(stored.media_url).toBe(`/_emulator/media/${sent.document?.file_id}`);
		const response = await fetch(`${emu.baseUrl}${stored.media_url}`);
		expect(response.status).toBe(200);
		expect(response.headers.get('content-type')).toBe('text/plain');
		expect(response.headers.get('content-disposition')).toMatch(/filename="report\.txt"/);
		expect(response.headers.get('content-length')).toBe(String(data.length));
		const body = Buffer.from(await response.arrayBuffer());
		expect(createHash('sha256').update(body).digest('hex')).toBe(createHash('sha256').update(data).digest('hex'));
		expect(body.equals(data)).toBe(true);
	});

	it('serves an uploaded file sent again by its media id', async () => {
		const data = Buffer.from('%PDF-1.4 a tiny pdf');
		const first = await uploadDocument(data, 'Jahresbericht «2025».pdf', 'application/pdf');
		await ok(emu, 'sendDocument', { chat_id: d.groupChatId, document: first.document?.file_id });
		const [again] = emu.history(d.groupChatId);
		const response = await fetch(`${emu.baseUrl}${again.media_url}`);
		expect(Buffer.from(await response.arrayBuffer()).equals(data)).toBe(true);
		// A name outside ASCII: a plain fallback, and the exact name in filename* (RFC 6266).
		expect(response.headers.get('content-disposition')).toBe(
			`inline; filename="Jahresbericht _2025_.pdf"; filename*=UTF-8''${encodeURIComponent('Jahresbericht «2025».pdf')}`,
		);
	});

	it('serves a file registered with content (addMedia) and sent by its media id', async () => {
		const voice = Buffer.from('OggS and a voice');
		const { mediaId } = emu.addMedia({ kind: 'voice', fileName: 'hello.ogg', mimeType: 'audio/ogg', bytes: voice });
		await ok(emu, 'sendVoice', { chat_id: d.privateChatId, voice: mediaId });
		const message = emu.history(d.privateChatId).at(-1);
		expect(message?.voice).toMatchObject({ file_id: mediaId, file_size: voice.length, mime_type: 'audio/ogg' });
		const served = await fetch(`${emu.baseUrl}${message?.media_url}`);
		expect(served.headers.get('content-type')).toBe('audio/ogg');
		expect(Buffer.from(await served.arrayBuffer()).equals(voice)).toBe(true);
	});

	it('keeps at most MEDIA_BYTES_KEPT_MAX of file content: the oldest file\'s bytes go first, its message stays without a link', async () => {
		const half = MEDIA_BYTES_KEPT_MAX / 2;
		const first = emu.addMedia({ kind: 'document', fileName: 'a.bin', bytes: Buffer.alloc(half, 1) }).mediaId;
		const second = emu.addMedia({ kind: 'document', fileName: 'b.bin', bytes: Buffer.alloc(half, 2) }).mediaId;
		await ok(emu, 'sendDocument', { chat_id: d.privateChatId, document: first });
		expect(emu.history(d.privateChatId)[0].media_url).toBeDefined();
		const third = emu.addMedia({ kind: 'document', fileName: 'c.bin', bytes: Buffer.alloc(1, 3) }).mediaId;
		expect(emu.history(d.privateChatId)[0].media_url).toBeUndefined();
		expect((await fetch(`${emu.baseUrl}/_emulator/media/${first}`)).status).toBe(404);
		for (const id of [second, third]) expect((await fetch(`${emu.baseUrl}/_emulator/media/${id}`)).status).toBe(200);
	});

	it('keeps an upload\'s bytes with the media, not in the recorded call', async () => {
		await uploadDocument(Buffer.from('kept once'), 'once.txt', 'text/plain');
		const recorded = emu.callsTo('sendDocument')[0].body.document as { bytes?: Buffer; toJSON(): unknown };
		expect(recorded.bytes).toBeUndefined();
		expect(JSON.stringify(recorded)).not.toContain('kept once');
		const [message] = emu.history(d.privateChatId);
		expect(await (await fetch(`${emu.baseUrl}${message.media_url}`)).text()).toBe('kept once');
	});

	it('answers a byte range with 206 (browsers seek in audio and video that way)', async () => {
		const data = Buffer.from('0123456789abcdef');
		const { mediaId } = emu.addMedia({ kind: 'video', fileName: 'clip.mp4', mimeType: 'video/mp4', bytes: data });
		const response = await fetch(`${emu.baseUrl}/_emulator/media/${mediaId}`, { headers: { range: 'bytes=4-7' } });
		expect(response.status).toBe(206);
		expect(response.headers.get('content-range')).toBe(`bytes 4-7/${data.length}`);
		expect(await response.text()).toBe('4567');
	});

	it('has no link for media registered without content, and the route never holds the bot token: 404 for unknown ids', async () => {
		await ok(emu, 'sendPhoto', { chat_id: d.privateChatId, photo: d.media.photo });
		const { mediaId } = emu.addMedia({ kind: 'document', fileName: 'x.txt', mimeType: 'text/plain', bytes: Buffer.from('x') });
		await ok(emu, 'sendDocument', { chat_id: d.privateChatId, document: mediaId });
		const [demoPhoto, uploaded] = emu.history(d.privateChatId);
		expect(demoPhoto.media_url).toBeUndefined();
		expect((await fetch(`${emu.baseUrl}/_emulator/media/${d.media.photo}`)).status).toBe(404);
		expect(uploaded.media_url).toMatch(/^\/_emulator\/media\/[0-9a-f-]{36}$/);
		expect(uploaded.media_url).not.toContain(d.token);
		expect(uploaded.media_url).not.toContain(encodeURIComponent(d.token));
		for (const id of ['00000000-0000-5000-8000-000000000000', 'not-a-uuid', '..%2F..%2Fetc%2Fpasswd']) {
			const response = await fetch(`${emu.baseUrl}/_emulator/media/${id}`);
			expect(response.status).toBe(404);
			expect(response.headers.get('content-type')).toBe('application/json');
		}
	});
});

// ---------- the page's own script, with a stand-in DOM ----------

/** Just enough of a DOM element for the page's rendering functions; no way to parse markup. */
class FakeElement {
	readonly children: Array<FakeElement | string> = [];
	readonly attributes = new Map<string, string>();
	readonly style: Record<string, string> = {};
	readonly dataset: Record<string, string> = {};
	className = '';
	/** form controls: a text box's text, a file input's chosen files */
	value = '';
	placeholder = '';
	files: PageFile[] | undefined;
	constructor(readonly tagName: string) {}
	append(...nodes: Array<FakeElement | string>): void {
		this.children.push(...nodes);
	}
	replaceChildren(...nodes: Array<FakeElement | string>): void {
		this.children.length = 0;
		this.append(...nodes);
	}
	setAttribute(name: string, value: string): void {
		this.attributes.set(name, String(value));
	}
	getAttribute(name: string): string | null {
		return this.attributes.get(name) ?? null;
	}
	set textContent(text: string) {
		this.replaceChildren(String(text));
	}
	get textContent(): string {
		return this.children.map((child) => (typeof child === 'string' ? child : child.textContent)).join('');
	}
	set innerHTML(_html: string) {
		throw new Error('the page must not build markup from strings');
	}
	insertAdjacentHTML(): void {
		throw new Error('the page must not build markup from strings');
	}
	canPlayType(type: string): string {
		return type === 'audio/ogg' || type === 'video/mp4' ? 'maybe' : '';
	}
	/** As a browser serializes the element: text and attribute values escaped. */
	get outerHTML(): string {
		const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
		const attributes = [...this.attributes].map(([name, value]) => ` ${name}="${escape(value)}"`).join('');
		const classes = this.className ? ` class="${escape(this.className)}"` : '';
		const inner = this.children.map((child) => (typeof child === 'string' ? escape(child) : child.outerHTML)).join('');
		return `<${this.tagName}${classes}${attributes}>${inner}</${this.tagName}>`;
	}
	all(): FakeElement[] {
		return [this, ...this.children.flatMap((child) => (typeof child === 'string' ? [] : child.all()))];
	}
}

/** What the page reads of a File the user chose. */
interface PageFile {
	name: string;
	type: string;
	size: number;
	arrayBuffer(): Promise<ArrayBuffer>;
}

interface PageFunctions {
	media(message: Record<string, unknown>): FakeElement | undefined;
	showActions(actions: CurrentChatAction[]): void;
	/** what the form does on Send */
	submit(): Promise<void>;
	kindOf(file: Pick<PageFile, 'name' | 'type'>): string;
	/** the page's fetch; replaced to let it reach the emulator once loaded */
	fetch: (path: string, init?: RequestInit) => Promise<Response>;
}

/** The script of the served page, run with the stand-in DOM (its start() waits forever on fetch). */
async function pageScript(): Promise<{ page: PageFunctions; byId: Map<string, FakeElement> }> {
	const html = await (await fetch(`${emu.baseUrl}/`)).text();
	const script = /<script>([\s\S]*)<\/script>/.exec(html)?.[1];
	if (script === undefined) throw new Error('the page has no script');
	const byId = new Map<string, FakeElement>();
	const document = {
		createElement: (tag: string) => new FakeElement(tag.toLowerCase()),
		getElementById: (id: string) => {
			if (!byId.has(id)) byId.set(id, new FakeElement('div'));
			return byId.get(id);
		},
		body: new FakeElement('body'),
	};
	const context: Record<string, unknown> = { document, window: {}, fetch: () => new Promise(() => undefined), setInterval, setTimeout, clearTimeout, btoa };
	runInNewContext(script, context);
	return { page: context as unknown as PageFunctions, byId };
}

describe('the page renders what the bot sent', () => {
	it('shows a file name with <script> only as text: escaped when serialized, never parsed as markup', async () => {
		const name = '<script>alert("x")</script><img src=x onerror=alert(1)>.txt';
		const { mediaId } = emu.addMedia({ kind: 'document', fileName: name, mimeType: 'text/plain', bytes: Buffer.from('boo') });
		const sent = await ok<Message>(emu, 'sendDocument', { chat_id: d.privateChatId, document: mediaId });
		const [stored] = (await chatState(d.privateChatId)).messages;
		expect(stored.document?.file_name).toBe(name);
		const { page } = await pageScript();
		const box = page.media(stored as unknown as Record<string, unknown>);
		if (!box) throw new Error('no media element');
		expect(box.outerHTML).not.toMatch(/<script|<img/i);
		expect(box.outerHTML).toContain('&lt;script&gt;alert("x")&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;.txt'.replace(/"/g, '&quot;'));
		const links = box.all().filter((element) => element.tagName === 'a');
		expect(links.map((link) => link.getAttribute('href'))).toEqual([`/_emulator/media/${sent.document?.file_id}`, `/_emulator/media/${sent.document?.file_id}`]);
		const [open, save] = links;
		expect(open.textContent).toBe(name);
		expect(open.getAttribute('target')).toBe('_blank');
		expect(save.getAttribute('download')).toBe(name);
		expect(box.all().map((element) => element.tagName)).not.toContain('script');
	});

	it('shows a photo as an image, a voice message with audio controls, and the file size and type next to a document', async () => {
		const { page } = await pageScript();
		const photo = page.media({ message_id: 1, photo: { file_id: 'p', file_unique_id: 'p', file_size: 2048 }, media_url: '/_emulator/media/p' });
		const image = photo?.all().find((element) => element.tagName === 'img');
		expect(image?.getAttribute('src')).toBe('/_emulator/media/p');
		const voice = page.media({ message_id: 2, voice: { file_id: 'v', file_unique_id: 'v', mime_type: 'audio/ogg', file_size: 10 }, media_url: '/_emulator/media/v' });
		const audio = voice?.all().find((element) => element.tagName === 'audio');
		expect(audio?.getAttribute('src')).toBe('/_emulator/media/v');
		expect(audio?.attributes.has('controls')).toBe(true);
		// A voice message has no file name: a label, its type on the icon, saved under the name the route sends.
		expect(voice?.textContent).toContain('Voice message');
		expect(voice?.all().find((element) => element.className === 'icon')?.textContent).toBe('OGG');
		expect(voice?.all().find((element) => element.className === 'save')?.getAttribute('download')).toBe('');
		const document = page.media({ message_id: 3, document: { file_id: 'd', file_unique_id: 'd', file_name: 'report.txt', mime_type: 'text/plain', file_size: 43 }, media_url: '/_emulator/media/d' });
		expect(document?.textContent).toContain('report.txt');
		expect(document?.textContent).toContain('43 B');
		expect(document?.textContent).toContain('text/plain');
		expect(document?.all().find((element) => element.className === 'icon')?.textContent).toBe('TXT');
		// No link where the emulator keeps no content, and none to anywhere but the media route.
		const bare = page.media({ message_id: 4, document: { file_id: 'n', file_unique_id: 'n', file_name: 'demo.pdf' } });
		expect(bare?.all().some((element) => element.tagName === 'a')).toBe(false);
		const elsewhere = page.media({ message_id: 5, document: { file_id: 'e', file_unique_id: 'e', file_name: 'e.pdf' }, media_url: 'https://example.com/e.pdf' });
		expect(elsewhere?.all().some((element) => element.tagName === 'a')).toBe(false);
	});

	it('shows the chat\'s current action under the chat, and nothing when there is none', async () => {
		const { page, byId } = await pageScript();
		const now = Date.now();
		page.showActions([{ botId: 'b', botName: '<i>Bot</i>', action: 'typing', text: '<i>Bot</i> is typing…', at: now, until: now + ACTION_MS }]);
		const typing = byId.get('typing');
		expect(typing?.textContent).toBe('<i>Bot</i> is typing…');
		expect(typing?.outerHTML).toContain('&lt;i&gt;Bot&lt;/i&gt; is typing…');
		expect(typing?.style.visibility).toBe('visible');
		page.showActions([]);
		expect(typing?.textContent).toBe('');
		expect(typing?.style.visibility).toBe('hidden');
	});
});

describe('the user attaches a file', () => {
	it('Send with a photo chosen sends it as the chosen user with the text as caption, and the page shows it as an image', async () => {
		const { page, byId } = await pageScript();
		// The page has loaded; from now on its requests reach the emulator.
		page.fetch = (path, init) => fetch(`${emu.baseUrl}${path}`, init);
		const image = Buffer.from('89504e470d0a1a0a0000000d49484452000003200000025808020000000000000000', 'hex');
		const chosen: PageFile = { name: 'cat.png', type: 'image/png', size: image.length, arrayBuffer: async () => new Uint8Array(image).buffer };
		const elementById = (id: string): FakeElement => {
			const found = byId.get(id) ?? new FakeElement('div');
			byId.set(id, found);
			return found;
		};
		elementById('chat').value = d.privateChatId;
		elementById('user').value = d.userId;
		elementById('text').value = 'A cat';
		elementById('file').files = [chosen];
		await page.submit();

		const sent = emu.history(d.privateChatId).at(-1);
		expect(sent).toMatchObject({ from: { id: d.userId }, caption: 'A cat', sent_by_bot: false });
		if (!Array.isArray(sent?.photo)) throw new Error(`no photo sizes: ${JSON.stringify(sent)}`);
		expect(sent.photo.map(({ width, height }) => [width, height])).toEqual([
			[90, 68],
			[320, 240],
			[800, 600],
		]);
		expect(emu.pendingUpdates().at(-1)?.message).toMatchObject({ caption: 'A cat', photo: sent.photo });
		const original = await fetch(`${emu.baseUrl}${sent.media_url}`);
		expect(Buffer.from(await original.arrayBuffer()).equals(image)).toBe(true);
		// The box is empty again, and the chat shows the user's photo with its caption.
		expect(elementById('text').value).toBe('');
		expect(elementById('file').value).toBe('');
		const shown = elementById('log').all().find((element) => element.className === 'msg user');
		expect(shown?.all().find((element) => element.tagName === 'img')?.getAttribute('src')).toBe(`/_emulator/media/${sent.photo[2].file_id}`);
		expect(shown?.textContent).toContain('Demo');
		expect(shown?.textContent).toContain('A cat');
	});

	it('sends images as a photo, Ogg, MP3 and M4A audio as voice, MP4 as video, anything else as a document', async () => {
		const { page } = await pageScript();
		const kinds = Object.fromEntries(
			[
				['cat.JPG', ''],
				['screen', 'image/webp'],
				['note.oga', ''],
				['song.mp3', 'audio/mpeg'],
				['memo.m4a', ''],
				['clip.mp4', 'video/mp4'],
				['report.pdf', 'application/pdf'],
				['drawing.svg', 'image/svg+xml'],
				['movie.mov', 'video/quicktime'],
			].map(([name, type]) => [name, page.kindOf({ name, type })]),
		);
		expect(kinds).toEqual({
			'cat.JPG': 'photo',
			screen: 'photo',
			'note.oga': 'voice',
			'song.mp3': 'voice',
			'memo.m4a': 'voice',
			'clip.mp4': 'video',
			'report.pdf': 'document',
			'drawing.svg': 'document',
			'movie.mov': 'document',
		});
	});

	it('shows a document the user sent by its name, size and a link, and a voice message with a player', async () => {
		await emu.userSends({ chatId: d.privateChatId, userId: d.userId, media: { kind: 'document', bytes: Buffer.from('%PDF-1.7 report'), fileName: 'report.pdf' } });
		await emu.userSends({ chatId: d.privateChatId, userId: d.userId, media: { kind: 'voice', bytes: Buffer.from('OggS voice'), mimeType: 'audio/ogg', duration: 2 } });
		const [document, voice] = (await chatState(d.privateChatId)).messages;
		const { page } = await pageScript();
		const card = page.media(document as unknown as Record<string, unknown>);
		expect(card?.textContent).toContain('report.pdf');
		expect(card?.textContent).toContain('15 B');
		expect(card?.all().find((element) => element.tagName === 'a')?.getAttribute('href')).toBe(`/_emulator/media/${document.document?.file_id}`);
		const player = page.media(voice as unknown as Record<string, unknown>)?.all().find((element) => element.tagName === 'audio');
		expect(player?.getAttribute('src')).toBe(`/_emulator/media/${voice.voice?.file_id}`);
	});
});
