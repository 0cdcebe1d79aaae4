/**
 * Runs the chosen operation: the operations outside the method table by name, every other one as
 * its method's row.
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { methodOf } from '../resources';
import { CALL_METHOD, callMethodOperation } from './callMethod';
import { methodOperation, runItems } from './runItems';
import { SEND_AND_WAIT } from './sendAndWait/fields';
import { sendAndWait } from './sendAndWait/send';

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const is = (outside: { resource: string; name: string }) => resource === outside.resource && operation === outside.name;
	if (is(SEND_AND_WAIT)) return await sendAndWait.call(this);
	if (is(CALL_METHOD)) return await runItems.call(this, callMethodOperation);
	const method = methodOf(resource, operation);
	if (!method) {
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" of "${resource}" is not supported`);
	}
	return await runItems.call(this, methodOperation(method, this.getNode().typeVersion));
}
