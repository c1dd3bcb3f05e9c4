// Proves the role table: every operator operation has a rule (a new one is refused until it gets one), support only reads and re-sends, merchant levels nest, and nobody grants a role above their own.
import { canGrant, decide, ROLES, RULES, SELF_SERVICE } from '../../src/domain/roles';
import type { Role } from '../../src/domain/roles';
import { specApis } from '../helpers/spec';

/** operations anyone may call (no credential), so no role applies */
const isOpen = (op: { security?: unknown[] }) => Array.isArray(op.security) && op.security.length === 0;

it('has a rule for every secured operation of admin.yaml, and no rule for one that does not exist or is open', async () => {
  const { admin } = await specApis();
  const secured = admin.getOperations().filter((op) => !isOpen(op)).map((op) => op.operationId as string);
  expect(Object.keys(RULES).sort()).toEqual(secured.filter((id) => !SELF_SERVICE.has(id)).sort());
  const open = admin.getOperations().filter(isOpen).map((op) => op.operationId as string);
  expect(open).toEqual(expect.arrayContaining(['login', 'requestPasswordReset', 'completePasswordReset', 'acceptInvitation']));
});

it('lets operator support call GET operations and re-sends only', async () => {
  const { admin } = await specApis();
  for (const op of admin.getOperations()) {
    const id = op.operationId as string;
    if (isOpen(op) || SELF_SERVICE.has(id)) continue;
    const expected = op.method === 'get' && id !== 'listAuditLog' ? 'allow' : id === 'resendAdminNotification' ? 'allow' : 'forbidden';
    expect([id, decide('operator_support', id)]).toEqual([id, expected]);
  }
});

it('nests merchant levels: whatever a viewer may, a developer may, and whatever a developer may, an owner may', () => {
  for (const id of Object.keys(RULES)) {
    const viewer = decide('merchant_viewer', id) === 'allow';
    const developer = decide('merchant_developer', id) === 'allow';
    const owner = decide('merchant_owner', id) === 'allow';
    expect([id, viewer && !developer]).toEqual([id, false]);
    expect([id, developer && !owner]).toEqual([id, false]);
    expect(decide('operator_admin', id)).toBe('allow');
  }
  expect(decide('merchant_developer', 'createApiToken')).toBe('allow');
  expect(decide('merchant_viewer', 'createApiToken')).toBe('forbidden');
  expect(decide('merchant_owner', 'createBusiness')).toBe('forbidden');
  expect(decide('merchant_owner', 'listMids')).toBe('forbidden');
  expect(decide('operator_admin', 'anUnknownOperation')).toBe('forbidden');
});

it.each<[Role, Role[]]>([
  ['operator_admin', [...ROLES]],
  ['operator_support', []],
  ['merchant_owner', ['merchant_owner', 'merchant_developer', 'merchant_viewer']],
  ['merchant_developer', []],
  ['merchant_viewer', []],
])('%s may grant exactly %j', (granter, grantable) => {
  expect(ROLES.filter((r) => canGrant(granter, r))).toEqual(grantable);
});
