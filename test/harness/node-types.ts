/**
 * A minimal `INodeTypes` registry, the piece of n8n that maps a node's `type` string to its class.
 * Node types are registered the way n8n names community nodes: `<package>.<description.name>`.
 */
import type { IDataObject, INodeType, INodeTypes, IVersionedNodeType } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

export const PACKAGE_NAME = 'n8n-nodes-service-bot';

export type AnyNodeType = INodeType | IVersionedNodeType;

export class TestNodeTypes implements INodeTypes {
	private readonly types = new Map<string, AnyNodeType>();

	/** Registers a node type and returns the `type` string nodes must use to refer to it. */
	add(nodeType: AnyNodeType, typeName = `${PACKAGE_NAME}.${nodeType.description.name}`): string {
		this.types.set(typeName, nodeType);
		return typeName;
	}

	getByName(nodeType: string): AnyNodeType {
		const found = this.types.get(nodeType);
		if (!found) throw new Error(`Test harness: unknown node type "${nodeType}"`);
		return found;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
	}

	getKnownTypes(): IDataObject {
		const known: IDataObject = {};
		for (const [name, type] of this.types) known[name] = { className: type.constructor.name, sourcePath: '' };
		return known;
	}
}

/** The version a node gets when none is asked for: the newest one, as the editor does for a new node. */
export function latestVersion(nodeType: AnyNodeType): number {
	if ('nodeVersions' in nodeType) return nodeType.currentVersion;
	const { version } = nodeType.description;
	return Array.isArray(version) ? Math.max(...version) : version;
}
