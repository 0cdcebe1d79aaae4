/**
 * The node's properties, derived from the method definitions: the Resource choice, each resource's
 * Operation choice (values = method names), and each operation's fields, per node version where a
 * method's fields differ between versions. The operations outside the table (Send and Wait, Call
 * Method) bring their own fields and come first in their resource.
 */
import type { DisplayCondition, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { paramFields } from '../parameters/body';
import { NODE_VERSIONS, followsTrigger, isInVersion } from '../parameters/param';
import { METHODS, RESOURCES } from '../resources';
import type { Method, OperationOutsideTheTable } from '../resources/method';
import { CALL_METHOD } from './callMethod';
import { optionsCollection } from './runItems';
import { SEND_AND_WAIT } from './sendAndWait/fields';

/** The operations that are not rows of the method table; the router runs each by name. */
export const OUTSIDE_THE_TABLE: readonly OperationOutsideTheTable[] = [SEND_AND_WAIT, CALL_METHOD];

type Operation = Pick<Method, 'name' | 'displayName' | 'action' | 'description' | 'isDefault'>;

function operationChoice(resource: string, methods: readonly Operation[]): INodeProperties {
	const defaultOperation = (methods.find((method) => method.isDefault) ?? methods[0]).name;
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		options: methods
			.map((method) => ({ name: method.displayName, value: method.name, action: method.action, description: method.description }))
			.sort((a, b) => a.name.localeCompare(b.name)),
		default: defaultOperation,
	};
}

/** The versions that share the same parameters, oldest first, e.g. [[1], [2]]. */
function versionGroups(method: Method): number[][] {
	const groups: number[][] = [];
	let previous = '';
	for (const version of NODE_VERSIONS) {
		const signature = method.params.map((param) => `${isInVersion(param, version)}:${followsTrigger(param, version)}`).join();
		if (groups.length > 0 && signature === previous) groups[groups.length - 1].push(version);
		else groups.push([version]);
		previous = signature;
	}
	return groups;
}

/** `@version` condition for a group; the newest group stays open for later versions. */
function versionCondition(group: number[]): Array<number | DisplayCondition> {
	const newest = NODE_VERSIONS[NODE_VERSIONS.length - 1];
	return group.includes(newest) ? [{ _cnd: { gte: group[0] } }] : group;
}

function methodProperties(method: Method): INodeProperties[] {
	const groups = versionGroups(method);
	return groups.flatMap((group) =>
		updateDisplayOptions(
			{
				show: {
					resource: [method.resource],
					operation: [method.name],
					...(groups.length > 1 ? { '@version': versionCondition(group) } : {}),
				},
			},
			[...paramFields(method.params, group[0]), ...optionsCollection(method)],
		),
	);
}

function outsideProperties(operation: OperationOutsideTheTable): INodeProperties[] {
	return updateDisplayOptions({ show: { resource: [operation.resource], operation: [operation.name] } }, [...operation.properties]);
}

export const properties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: RESOURCES.map(({ name, value, description }) => ({ name, value, description })),
		default: 'message',
	},
	...RESOURCES.flatMap(({ value }) => {
		const outside = OUTSIDE_THE_TABLE.filter((operation) => operation.resource === value);
		const methods = METHODS.filter((method) => method.resource === value);
		return [operationChoice(value, [...outside, ...methods]), ...outside.flatMap(outsideProperties), ...methods.flatMap(methodProperties)];
	}),
];
