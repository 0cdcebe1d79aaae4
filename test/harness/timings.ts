/**
 * Every test file starts with the triggers' background waits shortened (jest `setupFiles`): a copy
 * for a workflow that is not there is sent again for half a minute (a busy one for 15 minutes), a
 * failed removal is tried again for as long as n8n runs, and n8n's start waits 3 s for the triggers
 * of a bot. Those timers would keep a test process alive long after its tests ended; a test that
 * asserts on them sets its own values (`jest.replaceProperty`), as the tests of the waits do.
 */
import { FORWARD_TIMING } from '../../nodes/ServiceBotTrigger/webhook/forward';
import { WRITE_TIMING } from '../../nodes/ServiceBotTrigger/webhook/lifecycle';

FORWARD_TIMING.retryDelaysMs = [5, 10, 20];
FORWARD_TIMING.timeoutMs = 5_000;
FORWARD_TIMING.busyRetryEveryMs = 20;
FORWARD_TIMING.busyRetryForMs = 300;
WRITE_TIMING.retry = { transientRetries: 5, backoffBaseMs: 5 };
WRITE_TIMING.removalRetryDelaysMs = [20, 40];
// A failed removal is tried again for as long as n8n runs: here every 100 ms for 2 s at most.
WRITE_TIMING.removalRetryEveryMs = 100;
WRITE_TIMING.removalRetryForMs = 2_000;
WRITE_TIMING.startQuietMs = 200;
