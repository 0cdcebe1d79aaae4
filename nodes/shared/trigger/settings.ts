/**
 * The parameters both triggers have, read and checked before anything is sent: a value the service
 * would refuse, or one a filter could never match, fails with an error naming the field and the fix.
 * A trigger's own options are read beside their fields (webhook/options.ts, polling's options.ts).
 */
import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { SWITCH_TO_EXPRESSION, fixedLooksLikeExpression } from '../fixedMode';
import { UPDATE_TYPES, UUID_PATTERN } from '../spec';
import { tokenOf } from '../transport/token';
import type { DeliverySettings } from './deliver';
import type { PhotoSize } from './files';
import { PHOTO_SIZES } from './files';
import { normaliseId } from './filters';
import type { TriggerContext } from './identity';
import { FILES_OUTPUT_SINCE } from './output';

/** The options both triggers show (description.ts), as saved: each absent until added. */
interface SharedOptions {
	addHandyFields?: boolean;
	showTyping?: boolean;
	separateOutputs?: boolean;
	downloadFiles?: boolean;
	photoSize?: string;
	chatIds?: string;
	userIds?: string;
}

/**
 * The trigger's Options collection as saved; `Saved` names the options a reader looks at (the shared
 * ones here, a trigger's own in its options.ts).
 */
export function optionsOf<Saved extends object>(ctx: TriggerContext): Saved {
	return ctx.getNodeParameter('options', {}) as Saved;
}

function invalid(ctx: TriggerContext, message: string): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), message);
}

export async function requireToken(ctx: TriggerContext): Promise<string> {
	const token = await tokenOf(ctx);
	if (token === '') {
		throw invalid(ctx, 'The Service Bot API credential has no access token: enter the bot token in the credential');
	}
	return token;
}

/**
 * The `allowed_updates` both deliveries send: always every type, the full list rather than an empty
 * one (the spec only says the listed types are forwarded, so an empty list might mean none, and an
 * absent list may keep an older filter). Answers to a Send and Wait for Response arrive as button taps
 * and replies to a free-text question whatever the trigger starts its workflow for; the filter
 * (`filterTypes`) drops the updates that are neither answers nor selected.
 */
export const ALLOWED_UPDATES: readonly string[] = UPDATE_TYPES;

/** Trigger On → the types the trigger runs for; empty = all. */
export function filterTypes(ctx: TriggerContext): string[] {
	const value = ctx.getNodeParameter('updates', []) as unknown;
	const selected = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split(',').map((v) => v.trim()) : [];
	const all = selected.length === 0 || selected.includes('*');
	return all ? [] : UPDATE_TYPES.filter((type) => selected.includes(type));
}

const EXAMPLE_UUID = '1f0c6b6e-3a5d-4e8b-9a51-0c2d8e1f4b7a';

/** Whether the option was saved in Fixed mode with what looks like an expression (shared/fixedMode.ts). */
function savedFixed(ctx: TriggerContext, option: 'chatIds' | 'userIds'): boolean {
	return fixedLooksLikeExpression((ctx.getNode().parameters.options as IDataObject | undefined)?.[option]);
}

/**
 * "a, b\nc" → the normalised IDs. Updates name chats and users by ID (a UUID; Telegram-compatible
 * services use integers), so anything else could never match and would silently drop every update.
 */
function idList(ctx: TriggerContext, field: 'Restrict to Chat IDs' | 'Restrict to User IDs', text: unknown): string[] {
	if (text === undefined || text === null) return [];
	if (typeof text !== 'string') throw invalid(ctx, `${field} must be text: IDs separated by commas`);
	const kind = field === 'Restrict to Chat IDs' ? 'chat' : 'user';
	const entries = text.split(/[\s,;]+/).filter((entry) => entry !== '');
	for (const entry of entries) {
		if (UUID_PATTERN.test(entry) || /^-?\d{1,20}$/.test(entry)) continue;
		// Looked at only once the list is wrong anyway: the check reads the saved node.
		if (savedFixed(ctx, kind === 'chat' ? 'chatIds' : 'userIds')) {
			throw invalid(
				ctx,
				`${field}: "${text}" is in Fixed mode, so it is read as this text. Enter the IDs themselves, or ${SWITCH_TO_EXPRESSION}`,
			);
		}
		if (entry.startsWith('@')) {
			throw invalid(
				ctx,
				`${field}: "${entry}" is a username, but updates name the ${kind} by its ID. Enter the ID instead (a UUID such as ${EXAMPLE_UUID}): it is the ${kind}_id of an update from that ${kind} (turn on Add Handy Fields)${kind === 'chat' ? ', or the id that Get Chat returns' : ''}`,
			);
		}
		throw invalid(ctx, `${field}: "${entry}" is not a ${kind} ID. Enter IDs (UUIDs such as ${EXAMPLE_UUID}) separated by commas`);
	}
	return entries.map(normaliseId);
}

export function readDeliverySettings(ctx: TriggerContext): DeliverySettings {
	const options = optionsOf<SharedOptions>(ctx);
	return {
		types: filterTypes(ctx),
		chatIds: idList(ctx, 'Restrict to Chat IDs', options.chatIds),
		userIds: idList(ctx, 'Restrict to User IDs', options.userIds),
		// Version 2 turns them on unless the option says otherwise; version 1 only when it says so.
		addHandyFields: options.addHandyFields ?? ctx.getNode().typeVersion >= 2,
		agentInput: ctx.getNode().typeVersion >= 2,
		showTyping: options.showTyping === true,
		separateOutputs: options.separateOutputs === true,
		filesOutput: ctx.getNode().typeVersion >= FILES_OUTPUT_SINCE,
		downloadFiles: options.downloadFiles === true,
		photoSize: photoSizeOf(ctx, options.photoSize),
	};
}

/** Photo Size: Largest unless chosen otherwise. */
function photoSizeOf(ctx: TriggerContext, value: unknown): PhotoSize {
	if (value === undefined || value === null || value === '') return 'largest';
	const found = PHOTO_SIZES.find((size) => size === value);
	if (found === undefined) throw invalid(ctx, `Photo Size must be one of ${PHOTO_SIZES.join(', ')}, not ${JSON.stringify(value)}`);
	return found;
}

/** A whole number within the spec's range, or undefined when the option is not set (a trigger's own numeric options). */
export function wholeNumber(ctx: TriggerContext, field: string, value: unknown, range: { min: number; max: number }): number | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	const number = typeof value === 'string' ? Number(value.trim()) : value;
	if (typeof number !== 'number' || !Number.isInteger(number) || number < range.min || number > range.max) {
		throw invalid(ctx, `${field} must be a whole number from ${range.min} to ${range.max}, not ${JSON.stringify(value)}`);
	}
	return number;
}
