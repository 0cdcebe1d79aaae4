import { badRequest } from './util';

/** Where the parameters came from: a JSON body (strict types) or a form / query string (everything is a string). */
export type ParamSource = 'json' | 'form';

/**
 * Typed access to a method's parameters. With a JSON body the types are strict (a string where an
 * integer is expected is a 400); with form-encoded bodies and query strings, strings are coerced the
 * way Telegram does. Objects and arrays may always arrive JSON-serialized in a string.
 * `null` counts as absent.
 */
export class Params {
	constructor(
		readonly raw: Record<string, unknown>,
		readonly source: ParamSource,
	) {}

	has(name: string): boolean {
		return this.raw[name] !== undefined && this.raw[name] !== null;
	}

	string(name: string): string | undefined {
		const v = this.raw[name];
		if (v === undefined || v === null) return undefined;
		if (typeof v !== 'string') throw badRequest(`field "${name}" must be of type String`);
		return v;
	}

	requiredString(name: string, emptyMessage?: string): string {
		const v = this.string(name);
		if (v === undefined) throw badRequest(emptyMessage ?? `${name} is empty`);
		return v;
	}

	int(name: string): number | undefined {
		const v = this.raw[name];
		if (v === undefined || v === null) return undefined;
		if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
		if (this.source === 'form' && typeof v === 'string' && /^-?\d{1,15}$/.test(v.trim())) return Number(v.trim());
		throw badRequest(`field "${name}" must be of type Integer`);
	}

	requiredInt(name: string): number {
		const v = this.int(name);
		if (v === undefined) throw badRequest(`${name} is empty`);
		return v;
	}

	bool(name: string): boolean | undefined {
		const v = this.raw[name];
		if (v === undefined || v === null) return undefined;
		if (typeof v === 'boolean') return v;
		if (this.source === 'form' && typeof v === 'string') {
			const s = v.trim().toLowerCase();
			if (s === 'true' || s === '1') return true;
			if (s === 'false' || s === '0' || s === '') return false;
		}
		throw badRequest(`field "${name}" must be of type Boolean`);
	}

	/** An object or array parameter, also accepted JSON-serialized in a string. */
	json(name: string): unknown {
		const v = this.raw[name];
		if (v === undefined || v === null) return undefined;
		if (typeof v === 'string') {
			try {
				return JSON.parse(v) as unknown;
			} catch {
				throw badRequest(`can't parse ${name} JSON object`);
			}
		}
		return v;
	}

	/** An array of strings (e.g. allowed_updates), also accepted JSON-serialized. */
	stringArray(name: string): string[] | undefined {
		const v = this.json(name);
		if (v === undefined || v === null) return undefined;
		if (!Array.isArray(v) || !v.every((x): x is string => typeof x === 'string')) {
			throw badRequest(`field "${name}" must be an Array of String`);
		}
		return v;
	}
}
