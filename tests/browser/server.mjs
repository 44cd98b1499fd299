// Starts a fishscale site (nginx + FastCGI) for the browser tests, exactly as
// `make run` does, in a temporary data directory on a free loopback port.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

export async function startServer(extraEnv = {}) {
  const port = await freePort();
  const data = mkdtempSync(path.join(os.tmpdir(), 'fishscale-bt-'));
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('FISHSCALE_') || k === 'FISH_SCALE_AGENT_TABS') delete env[k];
  // FS_TEST_MEASUREMENT_RULE=dome runs the suite with the dome rule
  // configured (README "Measurement rule"); a test's own env wins
  const rule = process.env.FS_TEST_MEASUREMENT_RULE ? { FISHSCALE_MEASUREMENT_RULE: process.env.FS_TEST_MEASUREMENT_RULE } : {};
  Object.assign(env, {
    FISHSCALE_ROOT: ROOT, FISHSCALE_DATA_DIR: data, FISHSCALE_PORT: String(port),
    FISHSCALE_FCGI_WORKERS: '2', ...rule, ...extraEnv,
  });
  execFileSync('sh', [path.join(ROOT, 'tools', 'run.sh'), '--detach'], { env, stdio: 'pipe' });
  const secret = readFileSync(path.join(data, 'admin-password.txt'), 'utf8');
  const password = /password: (\S+)/.exec(secret)[1];
  return {
    port, data, env, url: `http://127.0.0.1:${port}/`, admin: { login: 'admin', password },
    cli(args, input) {
      return execFileSync(path.join(ROOT, 'build', 'fishscale'), args, { env, input, encoding: 'utf8' });
    },
    stop() {
      try { execFileSync('sh', [path.join(ROOT, 'tools', 'stop.sh'), '--data', data], { env, stdio: 'pipe' }); } catch {}
      rmSync(data, { recursive: true, force: true });
    },
  };
}
