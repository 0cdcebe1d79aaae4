/**
 * A file a request uploads, and the body that carries it. A body with one goes out as
 * `multipart/form-data` (the Telegram convention the spec leaves to: the file in the method's media
 * field, the other parameters as form fields).
 */
import type { IDataObject } from 'n8n-workflow';

/**
 * A file a request uploads. Its bytes are read as the request goes out, from a fresh `read()` on
 * each attempt.
 */
export class FileUpload {
	constructor(
		readonly fileName: string,
		readonly mimeType: string,
		/** Bytes, when known: the request then carries a Content-Length; otherwise it is sent chunked. */
		readonly size: number | undefined,
		readonly read: () => AsyncIterable<Uint8Array>,
	) {}
}

/** A file field as HTTP clients read a standard FormData's files (`name`, `type`, `size`, `stream()`). */
interface FormFile {
	readonly name: string;
	readonly type: string;
	readonly size: number | undefined;
	stream(): AsyncIterable<Uint8Array>;
}

/**
 * The body of an upload, in the shape of a standard FormData: n8n's HTTP client (axios) streams such
 * a form part by part, with a Content-Length when every size is known. The global FormData takes only
 * Blobs held in memory (or opened from a path), and a node may import no stream class; this form
 * takes a file that is read while it is sent, so a 50 MB upload never sits whole in memory.
 */
class MultipartBody {
	readonly [Symbol.toStringTag] = 'FormData';
	private readonly fields: Array<[string, string | FormFile]> = [];

	append(name: string, value: string | FormFile): void {
		this.fields.push([name, value]);
	}

	entries(): IterableIterator<[string, string | FormFile]> {
		return this.fields[Symbol.iterator]();
	}

	[Symbol.iterator](): IterableIterator<[string, string | FormFile]> {
		return this.entries();
	}
}

/** The upload in a body, if it has one. */
export function uploadIn(body: IDataObject): FileUpload | undefined {
	return Object.values(body).find((value): value is FileUpload => value instanceof FileUpload);
}

/** A body with an upload as form fields: text as it is, other values as the JSON the service parses. */
export function multipartBody(body: IDataObject): MultipartBody {
	const form = new MultipartBody();
	for (const [name, value] of Object.entries(body)) {
		if (value === undefined || value === null) continue;
		if (value instanceof FileUpload) {
			form.append(name, { name: value.fileName, type: value.mimeType, size: value.size, stream: value.read });
		} else form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
	}
	return form;
}
