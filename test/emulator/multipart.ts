/**
 * Uploads, as Telegram-compatible services take them (the spec: "the endpoint and payload for
 * uploading a media file: not shown"): a method's body as `multipart/form-data` (RFC 7578), the file
 * in the method's media field, the other parameters as text fields. Written from the RFC and the
 * convention alone.
 */
import { createHash } from 'node:crypto';

import { imageType } from './files';
import { ApiError } from './util';

/** Telegram's limit for files a bot uploads: 50 MB. */
export const UPLOAD_LIMIT_BYTES = 50 * 1024 * 1024;

/** A file part of a multipart body. */
export class UploadedFile {
	private content: Buffer | undefined;

	constructor(
		readonly fileName: string | undefined,
		readonly mimeType: string | undefined,
		readonly size: number,
		/** SHA-256 of the bytes, hex: tests compare what arrived with what was sent. */
		readonly sha256: string,
		/** The first bytes, for the service's look at what the file is. */
		readonly head: Buffer,
		content: Buffer,
	) {
		this.content = content;
	}

	/** The file's bytes while its request runs (the media method keeps them as the new media's content). */
	get bytes(): Buffer | undefined {
		return this.content;
	}

	/** Drops the bytes once the request is answered: the recorded call keeps the file's name, type, size and hash, not its content. */
	release(): void {
		this.content = undefined;
	}

	/** How a recorded call shows the file (the control API's JSON). */
	toJSON(): Record<string, unknown> {
		return { file: { name: this.fileName, type: this.mimeType, size: this.size, sha256: this.sha256 } };
	}
}

function boundaryOf(contentType: string): string {
	const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
	const boundary = match?.[1] ?? match?.[2];
	if (!boundary) throw new ApiError(400, 'Bad Request: multipart/form-data without a boundary');
	return boundary;
}

/** A header parameter (`name`, `filename`) of a Content-Disposition; quoted strings as RFC 7578 writes them. */
function dispositionParam(disposition: string, name: string): string | undefined {
	const match = new RegExp(`(?:^|;)\\s*${name}="((?:[^"\\\\]|\\\\.)*)"`, 'i').exec(disposition) ?? new RegExp(`(?:^|;)\\s*${name}=([^;\\s]+)`, 'i').exec(disposition);
	if (!match) return undefined;
	// Browsers and HTTP clients percent-encode " and line breaks in names (the WHATWG form encoding).
	return match[1].replace(/\\(.)/g, '$1').replace(/%22/g, '"').replace(/%0D/gi, '\r').replace(/%0A/gi, '\n');
}

/** The fields of a multipart body: text fields as strings, file parts as `UploadedFile`. */
export function parseMultipart(raw: Buffer, contentType: string): Record<string, unknown> {
	const delimiter = Buffer.from(`--${boundaryOf(contentType)}`);
	const fields: Record<string, unknown> = {};
	let at = raw.indexOf(delimiter);
	if (at < 0) throw new ApiError(400, 'Bad Request: the multipart body has no parts');
	for (;;) {
		at += delimiter.length;
		if (raw.subarray(at, at + 2).toString() === '--') break; // the closing delimiter
		at += 2; // CRLF after the delimiter
		const headersEnd = raw.indexOf('\r\n\r\n', at);
		if (headersEnd < 0) throw new ApiError(400, 'Bad Request: a multipart part has no header end');
		const headers = raw.subarray(at, headersEnd).toString('utf8').split('\r\n');
		const next = raw.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headersEnd + 4);
		if (next < 0) throw new ApiError(400, 'Bad Request: the multipart body ends before its closing boundary');
		const content = raw.subarray(headersEnd + 4, next);
		const header = (name: string): string | undefined =>
			headers.find((line) => line.toLowerCase().startsWith(`${name}:`))?.slice(name.length + 1).trim();
		const disposition = header('content-disposition') ?? '';
		const name = dispositionParam(disposition, 'name');
		if (name === undefined) throw new ApiError(400, 'Bad Request: a multipart part has no name');
		const fileName = dispositionParam(disposition, 'filename');
		if (fileName !== undefined || header('content-type') !== undefined) {
			const hash = createHash('sha256').update(content).digest('hex');
			fields[name] = new UploadedFile(fileName, header('content-type'), content.length, hash, Buffer.from(content.subarray(0, 16)), Buffer.from(content));
		} else fields[name] = content.toString('utf8');
		at = next + 2;
	}
	return fields;
}

/** Whether the first bytes are an image the service can process (JPEG, PNG, GIF, WebP, BMP). */
export function isImage(head: Buffer): boolean {
	return imageType(head) !== undefined;
}
