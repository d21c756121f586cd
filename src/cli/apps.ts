/**
 * `streetwise apps create|list|disable|rotate-key`: applications and signing keys. While a server
 * owns the embedded database these go through its admin API; otherwise to the database directly.
 */
import type { Command } from 'commander';
import { createApp, hashTokenFor, listApps, rotateSigningKey, setAppStatus } from '../auth/index.js';
import type { CliDeps } from './deps.js';

interface AppLine {
  appId: string;
  name: string;
  admin: boolean;
  active: boolean;
}

/** Adds the `apps` command group. */
export function registerApps(program: Command, deps: CliDeps): void {
  const apps = program.command('apps').description('manage applications (appId / appKey) and token signing keys');
  apps
    .command('create')
    .description('create an application and print its appId and appKey (the key is shown only once)')
    .requiredOption('--name <name>', 'application name')
    .option('--admin', 'allow admin APIs (incidents, parking uploads, probe ingestion)', false)
    .option('--token-hours <hours>', 'lifetime of its app tokens, hours', '24')
    .action(async (opts: { name: string; admin: boolean; tokenHours: string }) => {
      const hours = Number(opts.tokenHours);
      if (!Number.isInteger(hours) || hours < 1 || hours > 24 * 30)
        throw new Error('--token-hours must be an integer in 1..720');
      if (opts.name.trim() === '' || opts.name.length > 200) throw new Error('--name must be 1–200 characters');
      const server = await deps.server();
      const app = server
        ? await server.request<{ appId: string; appKey: string; admin: boolean }>('POST', '/v1/admin/apps', {
            name: opts.name,
            admin: opts.admin,
            tokenHours: hours,
          })
        : await deps.withDb((db) => createApp(db, { name: opts.name, admin: opts.admin, tokenExpirationHours: hours }));
      console.log(`appId:     ${app.appId}`);
      console.log(`appKey:    ${app.appKey}`);
      console.log(`hashToken: ${hashTokenFor(app.appId, app.appKey)}`);
      console.log(`admin:     ${app.admin}`);
      if (server) console.log(`(created through the server at ${server.url}, which owns the database)`);
    });
  apps
    .command('list')
    .description('list applications')
    .action(async () => {
      const server = await deps.server();
      const list: AppLine[] = server
        ? (
            await server.request<{ apps: Array<{ appId: string; name: string; admin: boolean; status: string }> }>(
              'GET',
              '/v1/admin/apps',
            )
          ).apps.map((a) => ({ appId: a.appId, name: a.name, admin: a.admin, active: a.status === 'active' }))
        : await deps.withDb(async (db) =>
            (await listApps(db)).map((a) => ({ appId: a.appId, name: a.name, admin: a.admin, active: a.status === 2 })),
          );
      for (const a of list)
        console.log(`${a.appId}  ${a.admin ? 'admin' : 'app  '}  ${a.active ? 'active  ' : 'disabled'}  ${a.name}`);
    });
  apps
    .command('disable <appId>')
    .description('disable an application (its new token requests fail)')
    .action(async (appId: string) => {
      const server = await deps.server();
      if (server) await server.request('POST', `/v1/admin/apps/${encodeURIComponent(appId)}/disable`, {});
      else {
        await deps.withDb(async (db) => {
          if (!(await setAppStatus(db, appId, 0))) throw new Error(`no application ${appId}`);
        });
      }
      console.log(`disabled ${appId}`);
    });
  apps
    .command('rotate-key')
    .description('start signing tokens with a new key (old tokens stay valid until they expire)')
    .action(async () => {
      const server = await deps.server();
      const kid = server
        ? (await server.request<{ kid: string }>('POST', '/v1/admin/signing-keys', {})).kid
        : await deps.withDb((db) => rotateSigningKey(db));
      console.log(`new signing key ${kid}`);
    });
}
