// Which scopes a member API request needs (SPEC 4.3, 5.5): reads of viewer and the inbox need account:read,
// the mutations account:write. The HTTP layer asks this before execution and answers 403 insufficient_scope.
import { type DocumentNode, type FragmentDefinitionNode, Kind, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';

export const ACCOUNT_READ = 'account:read';
export const ACCOUNT_WRITE = 'account:write';

function selectsField(
  selectionSet: SelectionSetNode,
  name: string,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  seen: Set<string>,
): boolean {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value === name) return true;
      if (selection.selectionSet && selectsField(selection.selectionSet, name, fragments, seen)) return true;
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      if (selectsField(selection.selectionSet, name, fragments, seen)) return true;
    } else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = fragments.get(selection.name.value);
      if (fragment && selectsField(fragment.selectionSet, name, fragments, seen)) return true;
    }
  }
  return false;
}

function scopesOf(operation: OperationDefinitionNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>): string[] {
  if (operation.operation !== 'mutation') return [ACCOUNT_READ];
  // A mutation payload may lead back to the viewer (markAllNotificationsRead { viewer }): that part is a read.
  return selectsField(operation.selectionSet, 'viewer', fragments, new Set()) ? [ACCOUNT_WRITE, ACCOUNT_READ] : [ACCOUNT_WRITE];
}

/**
 * The scopes the operation that will run needs: ['account:read'] for a query, ['account:write'] for a
 * mutation (plus 'account:read' when it selects viewer fields). When the operation cannot be singled out
 * (no name given for several, or an unknown name) the union over all operations is returned, so a check
 * never asks for less than execution could do; a document without operations needs 'account:read'.
 */
export function requiredScopes(document: DocumentNode, operationName?: string): string[] {
  const operations: OperationDefinitionNode[] = [];
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) operations.push(definition);
    else if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const named = operationName ? operations.filter((o) => o.name?.value === operationName) : [];
  const selected = named.length > 0 ? named : operations;
  if (selected.length === 0) return [ACCOUNT_READ];
  const scopes = new Set<string>();
  for (const operation of selected) for (const scope of scopesOf(operation, fragments)) scopes.add(scope);
  return [...scopes];
}
