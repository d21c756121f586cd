/** `streetwise apps create|list|disable|rotate-key`: applications and signing keys. */
import type { Command } from 'commander';
import { createApp, hashTokenFor, listApps, rotateSigningKey, setAppStatus } from '../auth/index.js';
import type { CliDeps } from './deps.js';

/** Adds the `apps` command group. */
export function registerApps(program: Command, deps: CliDeps): void {
  const apps = program.command('apps').description('manage applications (appId / appKey) and token signing keys');
  apps.command('create')
    .description('create an application and print its appId and appKey (the key is shown only once)')
    .requiredOption('--name <name>', 'application name')
    .option('--admin', 'allow admin APIs (incidents, parking uploads, probe ingestion)', false)
    .option('--token-hours <hours>', 'lifetime of its app tokens, hours', '24')
    .action(async (opts: { name: string; admin: boolean; tokenHours: string }) => {
      const hours = Number(opts.tokenHours);
      if (!Number.isInteger(hours) || hours < 1 || hours > 24 * 30) throw new Error('--token-hours must be an integer in 1..720');
      await deps.withDb(async (db) => {
        const app = await createApp(db, { name: opts.name, admin: opts.admin, tokenExpirationHours: hours });
        console.log(`appId:     ${app.appId}`);
        console.log(`appKey:    ${app.appKey}`);
        console.log(`hashToken: ${hashTokenFor(app.appId, app.appKey)}`);
        console.log(`admin:     ${app.admin}`);
      });
    });
  apps.command('list').description('list applications').action(async () => {
    await deps.withDb(async (db) => {
      for (const a of await listApps(db)) console.log(`${a.appId}  ${a.admin ? 'admin' : 'app  '}  ${a.status === 2 ? 'active  ' : 'disabled'}  ${a.name}`);
    });
  });
  apps.command('disable <appId>').description('disable an application (its new token requests fail)').action(async (appId: string) => {
    await deps.withDb(async (db) => {
      if (!(await setAppStatus(db, appId, 0))) throw new Error(`no application ${appId}`);
      console.log(`disabled ${appId}`);
    });
  });
  apps.command('rotate-key').description('start signing tokens with a new key (old tokens stay valid until they expire)').action(async () => {
    await deps.withDb(async (db) => {
      console.log(`new signing key ${await rotateSigningKey(db)}`);
    });
  });
}
