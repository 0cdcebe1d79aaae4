/**
 * The node's properties, derived from the method definitions: the Resource choice, each resource's
 * Operation choice (values = method names), and each operation's fields, per node version where a
 * method's fields differ between versions.
 */
import type { DisplayCondition, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { METHODS, RESOURCES } from '../methods';
import type { Method } from '../methods/method';
import { NODE_VERSIONS, isInVersion, methodFields } from './fields';

function operationChoice(resource: string, methods: readonly Method[]): INodeProperties {
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
		const signature = method.params.map((param) => isInVersion(param, version)).join();
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
			methodFields(method, group[0]),
		),
	);
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
		const methods = METHODS.filter((method) => method.resource === value);
		return [operationChoice(value, methods), ...methods.flatMap(methodProperties)];
	}),
];
