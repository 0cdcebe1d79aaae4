/**
 * Saved workflows keep working: the built descriptions of both nodes are compared, property by
 * property, with the descriptions of version 0.1.0 (test/fixtures/descriptions-0.1.0.json, written
 * from that release before the action node was restructured). Every difference must be one of the
 * changes made on purpose, listed below with its reason; a difference that is not listed, or a listed
 * change that did not happen, fails. What a workflow saved with 0.1.0 holds (parameter names, option
 * values, defaults) is therefore unchanged for its node version.
 */
import type { IDataObject, IDisplayOptions, INodeProperties, INodeTypeDescription } from 'n8n-workflow';

import { ServiceBot } from '../../nodes/ServiceBot/ServiceBot.node';
import { ServiceBotTrigger } from '../../nodes/ServiceBotTrigger/ServiceBotTrigger.node';
import before from '../fixtures/descriptions-0.1.0.json';

type Json = unknown;

/** The properties a node of version `version` has: `@version` conditions resolved, then dropped. */
function propertiesAtVersion(description: INodeTypeDescription, version: number): INodeProperties[] {
	const result: INodeProperties[] = [];
	for (const property of description.properties) {
		const show = property.displayOptions?.show;
		const condition = show?.['@version'] as Array<number | { _cnd: { gte?: number; lte?: number } }> | undefined;
		if (condition) {
			const holds = condition.some((entry) =>
				typeof entry === 'number'
					? entry === version
					: (entry._cnd.gte === undefined || version >= entry._cnd.gte) && (entry._cnd.lte === undefined || version <= entry._cnd.lte),
			);
			if (!holds) continue;
			const rest = { ...show };
			delete rest['@version'];
			// A property whose only condition was the version has none left, as in 0.1.0.
			const displayOptions: IDisplayOptions = { ...property.displayOptions, show: rest };
			if (Object.keys(rest).length === 0) delete displayOptions.show;
			result.push({ ...property, displayOptions: Object.keys(displayOptions).length > 0 ? displayOptions : undefined });
		} else {
			result.push(property);
		}
	}
	return result;
}

/** A property's place: its name and the operation (or other condition) it is shown for. */
function keyOf(property: INodeProperties): string {
	const show = property.displayOptions?.show ?? {};
	const where = show.operation ? `${String(show.resource)}.${String(show.operation)}` : JSON.stringify(show);
	return `${property.name} @ ${where}`;
}

/** An element's identity inside an options or values list. */
function idOf(entry: Json, index: number): string {
	if (typeof entry === 'object' && entry !== null) {
		const record = entry as IDataObject;
		if (record.value !== undefined) return `value=${JSON.stringify(record.value)}`;
		if (typeof record.name === 'string') return `name=${record.name}`;
	}
	return `#${index}`;
}

/** The paths at which two JSON values differ; lists of named entries are compared by entry. */
function differences(a: Json, b: Json, path: string, out: string[]): void {
	if (JSON.stringify(a) === JSON.stringify(b)) return;
	const isRecord = (value: Json): value is IDataObject => typeof value === 'object' && value !== null && !Array.isArray(value);
	if (Array.isArray(a) && Array.isArray(b)) {
		const left = new Map(a.map((entry, index) => [idOf(entry, index), entry]));
		const right = new Map(b.map((entry, index) => [idOf(entry, index), entry]));
		for (const id of new Set([...left.keys(), ...right.keys()])) differences(left.get(id), right.get(id), `${path}[${id}]`, out);
		if (a.every((entry, index) => idOf(entry, index) === idOf(b[index], index)) || left.size !== right.size) return;
		out.push(`${path} (order)`);
		return;
	}
	if (isRecord(a) && isRecord(b)) {
		for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) differences(a[key], b[key], `${path}.${key}`, out);
		return;
	}
	out.push(path);
}

function compare(old: INodeTypeDescription, now: INodeTypeDescription, version: number): string[] {
	const out: string[] = [];
	const { properties: oldProperties, ...oldRest } = old;
	const nowRest: IDataObject = { ...now };
	delete nowRest.properties;
	differences(oldRest, nowRest, 'node', out);
	const current = propertiesAtVersion(now, version);
	const oldKeys = oldProperties.map(keyOf);
	const nowKeys = current.map(keyOf);
	const byKey = new Map(current.map((property) => [keyOf(property), property]));
	for (const property of oldProperties) differences(property, byKey.get(keyOf(property)), keyOf(property), out);
	for (const key of nowKeys) if (!oldKeys.includes(key)) out.push(`${key} (new)`);
	const sharedOrder = (keys: string[], others: string[]) => keys.filter((key) => others.includes(key));
	if (JSON.stringify(sharedOrder(oldKeys, nowKeys)) !== JSON.stringify(sharedOrder(nowKeys, oldKeys))) out.push('properties (order)');
	return out.sort();
}

describe('node descriptions against version 0.1.0', () => {
	it('Service Bot at version 1: only the listed changes, each made on purpose', () => {
		const changes = compare(before.serviceBot as unknown as INodeTypeDescription, new ServiceBot().description, 1);
		expect(changes).toEqual(
			[
				// Version 2 added (Edit Message Caption's caption as a main field; explicit removal of descriptions).
				'node.version',
				// Copy Message takes every kind of new reply markup (spec 4.1), with their fields.
				...['replyKeyboard', 'replyKeyboardOptions', 'forceReplyPlaceholder'].map(
					(name) => `${name} @ message.copyMessage (new)`,
				),
				'keyboardJson @ message.copyMessage.description',
				'replyMarkup @ message.copyMessage.description',
				...['forceReply', 'removeKeyboard', 'replyKeyboard'].map(
					(value) => `replyMarkup @ message.copyMessage.options[value="${value}"]`,
				),
				// On an edit, None removes the keyboard, and says so; Edit Message Reply Markup calls it that.
				...['editMessageText', 'editMessageCaption'].flatMap((operation) => [
					`replyMarkup @ message.${operation}.options[value="none"].description`,
					`replyMarkup @ message.${operation}.options[value="none"].name`,
				]),
				'replyMarkup @ message.editMessageReplyMarkup.options[value="none"].description',
				'replyMarkup @ message.editMessageReplyMarkup.options[value="none"].name',
				// Forward and Copy name their destination as one.
				...['forwardMessage', 'copyMessage'].flatMap((operation) => [
					`chatId @ message.${operation}.description`,
					`chatId @ message.${operation}.displayName`,
				]),
				// Media ID fields say where an ID comes from.
				...['sendPhoto.photo', 'sendVideo.video', 'sendDocument.document', 'sendVoice.voice'].map((place) => {
					const [operation, field] = place.split('.');
					return `${field} @ message.${operation}.description`;
				}),
				// Send Photo / Video / Document / Voice take a file of the input item too: a Source choice
				// (Media ID by default, as saved), the binary field, and name and type overrides.
				...['sendPhoto.photo', 'sendVideo.video', 'sendDocument.document', 'sendVoice.voice'].flatMap((place) => {
					const [operation, field] = place.split('.');
					return [
						...['mediaSource', 'binaryPropertyName', 'fileName', 'mimeType'].map((name) => `${name} @ message.${operation} (new)`),
						`${field} @ message.${operation}.displayOptions.show.mediaSource`,
						`operation @ {"resource":["message"]}.options[value="${operation}"].description`,
					];
				}),
				// A chat ID field and the Callback Query ID say where their value comes from after a trigger.
				'callbackQueryId @ callback.answerCallbackQuery.hint',
				...[
					'chat.getChat', 'chat.getChatAdministrators', 'chat.getChatMember', 'chat.getChatMemberCount', 'chat.pinChatMessage',
					'chat.unpinAllChatMessages', 'chat.unpinChatMessage', 'message.copyMessage', 'message.deleteMessage',
					'message.editMessageCaption', 'message.editMessageReplyMarkup', 'message.editMessageText', 'message.forwardMessage',
					'message.sendChatAction', 'message.sendDocument', 'message.sendMessage', 'message.sendPhoto', 'message.sendVideo',
					'message.sendVoice',
				].flatMap((operation) => [`chatId @ ${operation}.modes[name=id].hint`, `chatId @ ${operation}.modes[name=id].validation[#0].properties.errorMessage`]),
				...['copyMessage', 'forwardMessage'].flatMap((operation) => [
					`fromChatId @ message.${operation}.modes[name=id].hint`,
					`fromChatId @ message.${operation}.modes[name=id].validation[#0].properties.errorMessage`,
				]),
				// A Message ID field says where its value comes from (after a click, for an edit).
				...[
					'chat.pinChatMessage', 'chat.unpinChatMessage', 'message.copyMessage', 'message.deleteMessage', 'message.editMessageCaption',
					'message.editMessageReplyMarkup', 'message.editMessageText', 'message.forwardMessage',
				].map((operation) => `messageId @ ${operation}.hint`),
				// Call Method suggests a method the spec has.
				'method @ other.callMethod.placeholder',
				// Parse Mode "Markdown From AI" (the Markdown chat models write, sent as HTML) where text or a caption is sent.
				...['copyMessage', 'editMessageCaption', 'editMessageText', 'sendDocument', 'sendMessage', 'sendPhoto', 'sendVideo', 'sendVoice'].map(
					(operation) => `additionalFields @ message.${operation}.options[name=parseMode].options[value="markdownFromAi"]`,
				),
				// Send Chat Action says when to use it (AI agents read it as a tool's description).
				'operation @ {"resource":["message"]}.options[value="sendChatAction"].description',
				// Send and Wait for Response, a new operation with its fields and the waiting webhooks.
				'node.webhooks',
				'operation @ {"resource":["message"]}.options[value="sendAndWait"]',
				...['chatId', 'message', 'responseType', 'approvalOptions', 'choices', 'choicesPerRow', 'answerLabel', 'collectAnswers', 'inChatNotice', 'options'].map(
					(name) => `${name} @ message.sendAndWait (new)`,
				),
				// Files users send: a File resource with Get File (by File ID; Download and the output field in its options).
				'resource @ {}.options[value="file"]',
				'operation @ {"resource":["file"]} (new)',
				'fileId @ file.getFile (new)',
				'options @ file.getFile (new)',
			].sort(),
		);
	});

	it('Service Bot Trigger: only the listed changes, each made on purpose', () => {
		const changes = compare(before.serviceBotTrigger as unknown as INodeTypeDescription, new ServiceBotTrigger().description, 1);
		expect(changes).toEqual(
			[
				// Show Typing, a new option (off unless turned on).
				'options @ {}.options[name=showTyping]',
				// Separate Outputs by Kind, a new option (off unless turned on); the outputs an expression that
				// gives 0.1.0's one main output while it is off.
				'options @ {}.options[name=separateOutputs]',
				'node.outputs',
				// Stream AI Answers, a new option (off unless turned on), and Confirm Delivery, a new option
				// (absent: a push is answered when its run ended, "When the Run Starts" as 0.1.0): the response
				// mode an expression of both.
				'options @ {}.options[name=confirmDelivery]',
				'options @ {}.options[name=streamAnswers]',
				'node.webhooks[name=default].responseMode',
				// Version 2 added (sessionId and chatInput on every item, the handy fields on by default).
				'node.defaultVersion',
				'node.version',
				// The subtitle reads "On messages and button clicks", "On all updates".
				'node.subtitle',
				// The notice says a public HTTPS URL is needed (else the polling trigger), and that a test hands the webhook back.
				'oneWebhookNotice @ {}.displayName',
				'options @ {}.options[name=takeOverExistingWebhook].description',
				// The allow-lists take IDs, not @usernames, and say where to find them.
				'options @ {}.options[name=chatIds].description',
				'options @ {}.options[name=userIds].description',
				// The range the service accepts.
				'options @ {}.options[name=maxConnections].description',
				// Trigger On says that answers to a Send and Wait for Response are always received.
				'updates @ {}.description',
				// "All Updates" rather than "*".
				'updates @ {}.options[value="*"].description',
				'updates @ {}.options[value="*"].name',
				// n8n's nodes panel shows the action node under the trigger's description (one entry for both).
				'node.description',
				// Files users send: the handy fields say what file arrived; Download Files (off unless turned on) and Photo Size.
				'options @ {}.options[name=addHandyFields].description',
				'options @ {}.options[name=downloadFiles]',
				'options @ {}.options[name=photoSize]',
			].sort(),
		);
	});
});
