// Operator operations of the members family (CONTRACT 6 members, scopes members:*): people with a role at
// this site, their roles, suspension. Rules an operator would expect: only an owner gives or takes the
// owner role or acts on an owner; the last active owner keeps the role; nobody suspends themselves.
// Every change reaches every node's cached roles at once (changesPeople), so the standing check of the
// next call, and the bearer check of a suspended person's tokens, see it.
import { z } from 'zod';
import {
  activeOwnerCount,
  countMembers,
  findMember,
  type Member,
  pageMembers,
  setRoles,
  suspend,
  unsuspend,
} from '../../people/members.repository.js';
import { ROLES, type Role } from '../../people/people.repository.js';
import { instant, instantOrNull, iso, isoOrNull, pagedOutput, pageInput, pageRequest, paged } from '../lists.js';
import { defineOperation, type Operation, type OperationContext, OperationError, READ_ONLY } from '../operation.js';
import { siteScope } from './site-scope.js';

const role = z.enum(ROLES as [Role, ...Role[]]);
const member = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  roles: z.array(role).describe('Roles at this school, in the order owner, admin, lecturer, student.'),
  memberSince: instant('When the person first got a role here'),
  suspended: z.boolean(),
  suspendedAt: instantOrNull('When the person was suspended here; null unless suspended'),
  suspensionReason: z.string().nullable(),
});

function memberOut(m: Member): z.output<typeof member> {
  return {
    id: m.id,
    name: m.name,
    email: m.email,
    roles: m.roles,
    memberSince: iso(m.memberSince),
    suspended: m.suspendedAt !== null,
    suspendedAt: isoOrNull(m.suspendedAt),
    suspensionReason: m.suspensionReason,
  };
}

const memberId = z.string().min(1).max(64).describe('The person id (per_…).');
const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

async function memberOr404(ctx: OperationContext, id: string): Promise<Member> {
  const found = await findMember(siteScope(ctx), id);
  if (!found) throw new OperationError('not_found', `This school has no member with the id ${id}.`);
  return found;
}

/** The caller's own roles here: an admin may not act on owners or on the owner role. */
async function callerIsOwner(ctx: OperationContext): Promise<boolean> {
  if (!ctx.personId) return false;
  return (await findMember(siteScope(ctx), ctx.personId))?.roles.includes('owner') ?? false;
}

export const listMembers = defineOperation({
  name: 'list_members',
  title: 'List members',
  description:
    'People with a role at this school (owner, admin, lecturer, student), newest first; filter by role. Paged with a total and a nextCursor.',
  audience: 'operator',
  scopes: ['members:read'],
  rest: { method: 'GET', path: '/members' },
  tool: false,
  input: z.object({ ...pageInput, role: role.optional().describe('Only people holding this role.') }),
  output: z.object(pagedOutput(member, 'members')),
  annotations: READ_ONLY,
  userContent: ['items[].name', 'items[].suspensionReason'],
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    const [page, total] = await Promise.all([pageMembers(scope, input.role, pageRequest(input)), countMembers(scope, input.role)]);
    return paged(page, total, memberOut);
  },
});

export const getMember: Operation = defineOperation({
  name: 'get_member',
  title: 'Get a member',
  description: 'One person with a role at this school: roles and suspension.',
  audience: 'operator',
  scopes: ['members:read'],
  rest: { method: 'GET', path: '/members/{id}', resource: () => getMember },
  tool: false,
  input: z.object({ id: memberId }),
  output: z.object({ member }),
  annotations: READ_ONLY,
  userContent: ['member.name', 'member.suspensionReason'],
  async handle(ctx, input) {
    return { member: memberOut(await memberOr404(ctx, input.id)) };
  },
});

export const updateMemberRoles = defineOperation({
  name: 'update_member_roles',
  title: 'Change a member’s roles',
  description:
    'Sets a member’s roles at this school to exactly the given list (an empty list ends their membership). Only an owner gives or takes ' +
    'the owner role; the last owner keeps it.',
  audience: 'operator',
  scopes: ['members:write'],
  rest: { method: 'PATCH', path: '/members/{id}', resource: () => getMember },
  tool: false,
  input: z.object({ id: memberId, roles: z.array(role).max(4) }),
  output: z.object({ member: member.nullable().describe('null when the person no longer holds any role here.') }),
  annotations: WRITE,
  userContent: ['member.name', 'member.suspensionReason'],
  changesPeople: true,
  audit: (input) => `member:${input.id}`,
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    const current = await memberOr404(ctx, input.id);
    const roles = ROLES.filter((r) => input.roles.includes(r));
    const ownerChanges = current.roles.includes('owner') !== roles.includes('owner');
    if (ownerChanges && !(await callerIsOwner(ctx)))
      throw new OperationError('forbidden', 'Only an owner of this school gives or takes the owner role.');
    if (current.roles.includes('owner') && !roles.includes('owner') && current.suspendedAt === null && (await activeOwnerCount(scope)) <= 1)
      throw new OperationError('conflict', 'This is the school’s last owner: make someone else owner first.');
    await setRoles(scope, input.id, roles, ctx.clock.now());
    const after = await findMember(scope, input.id);
    return { member: after ? memberOut(after) : null };
  },
});

export const suspendMember = defineOperation({
  name: 'suspend_member',
  title: 'Suspend a member',
  description:
    'Suspends a person at this school: they cannot sign in here, their sessions here end, and every token of theirs here stops working at ' +
    'once. Their roles and data are kept; unsuspend_member restores access.',
  audience: 'operator',
  scopes: ['members:write'],
  rest: { method: 'POST', path: '/members/{id}/suspend', resource: () => getMember },
  tool: false,
  input: z.object({ id: memberId, reason: z.string().trim().max(500).optional().describe('Shown to operators only.') }),
  output: z.object({ member }),
  annotations: { ...WRITE, destructiveHint: true },
  userContent: ['member.name', 'member.suspensionReason'],
  changesPeople: true,
  audit: (input) => `member:${input.id}`,
  async handle(ctx, input) {
    const scope = siteScope(ctx);
    const current = await memberOr404(ctx, input.id);
    if (input.id === ctx.personId) throw new OperationError('conflict', 'You cannot suspend yourself.');
    if (current.roles.includes('owner')) {
      if (!(await callerIsOwner(ctx))) throw new OperationError('forbidden', 'Only an owner of this school suspends an owner.');
      if (current.suspendedAt === null && (await activeOwnerCount(scope)) <= 1)
        throw new OperationError('conflict', 'This is the school’s last active owner.');
    }
    await suspend(scope, input.id, input.reason ?? '', ctx.clock.now());
    return { member: memberOut(await memberOr404(ctx, input.id)) };
  },
});

export const unsuspendMember = defineOperation({
  name: 'unsuspend_member',
  title: 'Unsuspend a member',
  description: 'Lifts a suspension: the person can sign in here again, and their tokens that have not expired work again.',
  audience: 'operator',
  scopes: ['members:write'],
  rest: { method: 'POST', path: '/members/{id}/unsuspend', resource: () => getMember },
  tool: false,
  input: z.object({ id: memberId }),
  output: z.object({ member }),
  annotations: WRITE,
  userContent: ['member.name', 'member.suspensionReason'],
  changesPeople: true,
  audit: (input) => `member:${input.id}`,
  async handle(ctx, input) {
    const current = await memberOr404(ctx, input.id);
    if (current.roles.includes('owner') && !(await callerIsOwner(ctx)))
      throw new OperationError('forbidden', 'Only an owner of this school acts on an owner.');
    await unsuspend(siteScope(ctx), input.id);
    return { member: memberOut(await memberOr404(ctx, input.id)) };
  },
});

export const MEMBER_ADMIN_OPERATIONS: readonly Operation[] = [listMembers, getMember, updateMemberRoles, suspendMember, unsuspendMember];
