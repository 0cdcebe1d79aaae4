/**
 * Publishing with a credential the service refuses, or a base URL where it is not: the activation
 * fails after few requests, with the credential test's words, naming the credential and the field.
 * Runs through n8n-core's real HookContext against the emulator.
 */
import { describePublishingWithBadCredential } from '../../harness/publish-errors';

describePublishingWithBadCredential('webhook');
