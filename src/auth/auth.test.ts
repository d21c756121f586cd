import { describe, it, expect, beforeAll } from 'vitest';
import { openPglite, runMigrations, type Db } from '../store/index.js';
import { migrations } from './migrations.js';
import { DbAuthService, createApp, hashTokenFor, rotateSigningKey, setAppStatus, sha1Hex } from './app-tokens.js';
import { hashPassword, verifyPassword } from './password.js';

describe('app tokens', () => {
  let db: Db;
  const t = Date.UTC(2026, 0, 1);
  const now = () => t;
  beforeAll(async () => {
    db = await openPglite();
    await runMigrations(db, migrations);
  });

  it('hashToken is SHA-1 of the lower-cased "appId|appKey"', () => {
    expect(hashTokenFor('ABC', 'Key')).toBe(sha1Hex('abc|key'));
    expect(sha1Hex('abc')).toBe('a9993e364706816aba3e25717850c26c9cd0d89d');
  });

  it('issues a JWT valid for 24 hours that another service instance verifies', async () => {
    const app = await createApp(db, { name: 'a', appKey: 'MixedCaseKey' });
    const auth = new DbAuthService(db, now);
    const { token, expiresAtS } = await auth.issueAppToken(app.appId, hashTokenFor(app.appId, app.appKey));
    expect(token.split('.')).toHaveLength(3);
    expect(expiresAtS).toBe(t / 1000 + 86400);
    const other = new DbAuthService(db, now); // a second process sharing the database
    expect(await other.verifyAppToken(token)).toEqual({ appId: app.appId, admin: false, expiresAtS });
    // the non-lower-cased hash form is accepted as well
    await expect(
      auth.issueAppToken(app.appId, sha1Hex(`${app.appId}|${app.appKey}`).toUpperCase()),
    ).resolves.toBeTruthy();
  });

  it('rejects wrong hashes, unknown and disabled apps, tampered and expired tokens', async () => {
    const app = await createApp(db, { name: 'b' });
    const auth = new DbAuthService(db, now);
    await expect(auth.issueAppToken(app.appId, sha1Hex('nope'))).rejects.toMatchObject({ code: 'AUTH_HASH_INVALID' });
    await expect(auth.issueAppToken('00000000-0000-0000-0000-000000000000', sha1Hex('x'))).rejects.toMatchObject({
      code: 'AUTH_APP_UNKNOWN',
    });
    await expect(auth.issueAppToken('not-a-uuid', sha1Hex('x'))).rejects.toMatchObject({ code: 'AUTH_APP_UNKNOWN' });
    const { token } = await auth.issueAppToken(app.appId, hashTokenFor(app.appId, app.appKey));
    const parts = token.split('.');
    const tampered = `${parts[0]}.${Buffer.from(JSON.stringify({ appId: app.appId, admin: true, exp: 9e9, iss: 'streetwise' })).toString('base64url')}.${parts[2]}`;
    await expect(auth.verifyAppToken(tampered)).rejects.toMatchObject({ code: 'AUTH_TOKEN_INVALID' });
    await expect(auth.verifyAppToken('garbage')).rejects.toMatchObject({ code: 'AUTH_TOKEN_INVALID' });
    const later = new DbAuthService(db, () => t + 86401 * 1000);
    await expect(later.verifyAppToken(token)).rejects.toMatchObject({ code: 'AUTH_TOKEN_EXPIRED' });
    await setAppStatus(db, app.appId, 0);
    await expect(auth.issueAppToken(app.appId, hashTokenFor(app.appId, app.appKey))).rejects.toMatchObject({
      code: 'AUTH_APP_DISABLED',
    });
    // a disabled app with a wrong hash is not named as disabled
    await expect(auth.issueAppToken(app.appId, sha1Hex('nope'))).rejects.toMatchObject({ code: 'AUTH_HASH_INVALID' });
  });

  it('keeps verifying tokens signed with a rotated key and signs new ones with the new key', async () => {
    const app = await createApp(db, { name: 'c', admin: true });
    const auth = new DbAuthService(db, now);
    const before = await auth.issueAppToken(app.appId, hashTokenFor(app.appId, app.appKey));
    const kid = await rotateSigningKey(db);
    const after = await auth.issueAppToken(app.appId, hashTokenFor(app.appId, app.appKey));
    expect(JSON.parse(Buffer.from(after.token.split('.')[0], 'base64url').toString()).kid).toBe(kid);
    expect((await new DbAuthService(db, now).verifyAppToken(before.token)).admin).toBe(true);
  });
});

describe('passwords', () => {
  it('hashes with scrypt and verifies only the right password', async () => {
    const h = await hashPassword('correct horse');
    expect(h.startsWith('scrypt$32768$8$1$')).toBe(true);
    expect(h).not.toContain('correct horse');
    expect(await verifyPassword('correct horse', h)).toBe(true);
    expect(await verifyPassword('wrong horse', h)).toBe(false);
    expect(await verifyPassword('x', 'not-a-hash')).toBe(false);
  });
});
