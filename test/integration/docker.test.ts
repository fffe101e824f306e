// The image's steps outside Docker (no engine runs here): the install script against a scratch root
// with stand-ins for the system tools, the entrypoint and healthcheck as real processes, and the
// Dockerfile and compose file checked against what the scripts expect.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadConfigFile } from '../../src/config/load.js';
import { CLI, REPO_ROOT, cliEnv } from '../helpers/cli.js';
import { FIXTURES, NODE, waitFor } from '../helpers/fixtures.js';
import { freePort } from '../helpers/ports.js';
import { bearer, connectHttp, linksOf } from '../helpers/sidecar.js';

const DOCKER = join(REPO_ROOT, 'docker');
const scratch = mkdtempSync(join(tmpdir(), 'mcp-offload-docker-'));
const TOKEN = 'docker-test-token-0123456789';
const children = new Set<ChildProcess>();

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});

/** A bin directory whose apt-get, groupadd, useradd and chown append their arguments to calls.log. */
function standIns(dir: string, failing: string[] = []): string {
  const bin = join(dir, 'bin');
  spawnSync('mkdir', ['-p', bin]);
  for (const tool of ['apt-get', 'groupadd', 'useradd', 'chown']) {
    const file = join(bin, tool);
    writeFileSync(
      file,
      `#!/bin/sh\necho "${tool} $*" >> "${dir}/calls.log"\n${failing.includes(tool) ? 'exit 100\n' : ''}`,
    );
    chmodSync(file, 0o755);
  }
  return bin;
}

describe('docker/install-runtime.sh', () => {
  test('installs Debian chromium and tini, creates the non-root user, the /artifacts volume (0700) and the mcp-offload command', () => {
    const root = join(scratch, 'root');
    const bin = standIns(root);
    const result = spawnSync('sh', [join(DOCKER, 'install-runtime.sh')], {
      env: { PATH: `${bin}:${process.env.PATH}`, ROOT: root },
      encoding: 'utf8',
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const calls = readFileSync(join(root, 'calls.log'), 'utf8').trim().split('\n');
    expect(calls).toEqual([
      'apt-get update',
      'apt-get install -y --no-install-recommends chromium fonts-liberation ca-certificates tini',
      'groupadd --system --gid 10001 mcp',
      'useradd --system --uid 10001 --gid 10001 --home-dir /home/mcp --create-home --shell /usr/sbin/nologin mcp',
      `chown mcp:mcp ${root}/artifacts`,
    ]);
    expect(statSync(join(root, 'artifacts')).mode & 0o777).toBe(0o700);
    expect(existsSync(join(root, 'config'))).toBe(true);
    expect(readlinkSync(join(root, 'usr/local/bin/mcp-offload'))).toBe('/app/dist/cli.js');
  });

  test('stops at the first failing step', () => {
    const root = join(scratch, 'failing');
    const bin = standIns(root, ['apt-get']);
    const result = spawnSync('sh', [join(DOCKER, 'install-runtime.sh')], {
      env: { PATH: `${bin}:${process.env.PATH}`, ROOT: root },
      encoding: 'utf8',
    });
    expect(result.status).toBe(100);
    expect(readFileSync(join(root, 'calls.log'), 'utf8').trim()).toBe('apt-get update');
    expect(existsSync(join(root, 'artifacts'))).toBe(false);
  });
});

describe('docker/Dockerfile and docker/compose.yaml', () => {
  const dockerfile = readFileSync(join(DOCKER, 'Dockerfile'), 'utf8');
  const entrypoint = readFileSync(join(DOCKER, 'entrypoint.sh'), 'utf8');

  test('multi-stage on Node 22 Debian slim, runs the scripts, non-root, volume, healthcheck, entrypoint', () => {
    expect(dockerfile.match(/^FROM node:22-bookworm-slim/gm)).toHaveLength(2);
    expect(dockerfile).toMatch(/^FROM node:22-bookworm-slim AS build$/m);
    expect(dockerfile).toMatch(/^RUN \/usr\/local\/lib\/mcp-offload\/install-runtime\.sh$/m);
    expect(dockerfile).toMatch(/^USER mcp$/m);
    expect(dockerfile).toMatch(/^VOLUME \["\/artifacts"\]$/m);
    expect(dockerfile).toMatch(/^EXPOSE 8080$/m);
    expect(dockerfile).toMatch(
      /^HEALTHCHECK .*\n\s+CMD \["node", "\/usr\/local\/lib\/mcp-offload\/healthcheck\.mjs"\]$/m,
    );
    expect(dockerfile).toMatch(
      /^ENTRYPOINT \["\/usr\/bin\/tini", "--", "\/usr\/local\/lib\/mcp-offload\/entrypoint\.sh"\]$/m,
    );
    // The environment the entrypoint documents, with the same defaults.
    for (const [name, value] of [
      ['MCP_OFFLOAD_CONFIG', '/config/config.yaml'],
      ['MCP_OFFLOAD_LISTEN', '0.0.0.0:8080'],
      ['MCP_OFFLOAD_ARTIFACT_DIR', '/artifacts'],
      ['CHROME_PATH', '/usr/bin/chromium'],
    ]) {
      expect(dockerfile).toContain(`${name}=${value}`);
    }
    expect(entrypoint).toContain('CONFIG="${MCP_OFFLOAD_CONFIG:-/config/config.yaml}"');
    expect(entrypoint).toContain('LISTEN="${MCP_OFFLOAD_LISTEN:-0.0.0.0:8080}"');
    // Every file the Dockerfile copies from the repository exists.
    for (const match of dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)) {
      for (const source of match[1]!.split(' '))
        expect([source, existsSync(join(REPO_ROOT, source))]).toEqual([source, true]);
    }
  });

  test('compose runs the sidecar next to an upstream, with the config where the image expects it, and that config is valid', async () => {
    const compose = parse(readFileSync(join(DOCKER, 'compose.yaml'), 'utf8')) as {
      services: Record<
        string,
        {
          ports?: string[];
          volumes?: string[];
          build?: { dockerfile: string };
          environment?: Record<string, string>;
          depends_on?: string[];
        }
      >;
    };
    const sidecar = compose.services['mcp-offload']!;
    expect(Object.keys(compose.services)).toEqual(['upstream', 'mcp-offload']);
    expect(sidecar.depends_on).toEqual(['upstream']);
    expect(sidecar.build?.dockerfile).toBe('docker/Dockerfile');
    expect(sidecar.ports).toEqual(['8080:8080']);
    expect(sidecar.volumes).toEqual(['./sidecar.yaml:/config/config.yaml:ro', 'artifacts:/artifacts']);
    expect(Object.keys(sidecar.environment ?? {})).toContain('MCP_OFFLOAD_AUTH_TOKEN');
    const config = await loadConfigFile(join(DOCKER, 'sidecar.yaml'), {});
    expect(config.servers.map((s) => [s.name, s.kind === 'http' && s.url])).toEqual([
      ['everything', 'http://upstream:3001/mcp'],
    ]);
    expect(config.httpOptions.allowedHosts).toEqual(['mcp-offload']);
    expect(config.artifacts.publicUrl).toBe('http://localhost:8080');
    expect(config.auth.artifactScope).toBe('principal');
  });
});

describe('docker/compose.scale.yaml: replicas sharing Redis and a bucket behind a load balancer', () => {
  type Service = {
    image?: string;
    command?: string[];
    volumes?: string[];
    build?: { dockerfile: string };
    environment?: Record<string, string>;
    depends_on?: string[];
    deploy?: { replicas?: number };
    ports?: string[];
  };
  const compose = () =>
    parse(readFileSync(join(DOCKER, 'compose.scale.yaml'), 'utf8')) as { services: Record<string, Service> };

  test('three replicas of the image, each with the scale config, reachable only through the load balancer', () => {
    const { services } = compose();
    expect(Object.keys(services).sort()).toEqual(
      ['load-balancer', 'mcp-offload', 'redis', 's3', 's3-bucket', 'upstream'].sort(),
    );
    const replica = services['mcp-offload']!;
    expect(replica.deploy?.replicas).toBe(3);
    expect(replica.build?.dockerfile).toBe('docker/Dockerfile');
    expect(replica.volumes).toEqual(['./scale.yaml:/config/config.yaml:ro']);
    expect(replica.ports).toBeUndefined();
    expect(replica.depends_on).toEqual(expect.arrayContaining(['redis', 's3-bucket', 'upstream']));
    expect(Object.keys(replica.environment ?? {})).toEqual(
      expect.arrayContaining(['MCP_OFFLOAD_AUTH_TOKEN', 'MCP_OFFLOAD_SIGNING_KEY']),
    );
    expect(services['load-balancer']!.ports).toEqual(['8080:8080']);
    const nginx = readFileSync(join(DOCKER, 'nginx.scale.conf'), 'utf8');
    expect(nginx).toMatch(/server mcp-offload:8080 resolve;/);
    expect(nginx).toMatch(/proxy_buffering off;/);
  });

  test('the scale config is valid and names the compose services: Redis, the bucket the bucket job makes, its keys', async () => {
    const config = await loadConfigFile(join(DOCKER, 'scale.yaml'), {
      HOSTNAME: 'f00dcafe1234',
      MCP_OFFLOAD_SIGNING_KEY: 'k'.repeat(40),
    });
    expect(config.redis?.url).toBe('redis://redis:6379/0');
    expect(config.httpOptions.advertiseUrl).toBe('http://f00dcafe1234:8080');
    expect(config.auth.artifactScope).toBe('principal');
    expect(config.artifacts.backend).toBe('s3');
    const s3 = config.artifacts.s3!;
    expect(s3.endpoint).toBe('http://s3:8333');
    const { services } = compose();
    expect(services['s3-bucket']!.command!.join(' ')).toContain(`--bucket ${s3.bucket}`);
    const seaweed = JSON.parse(readFileSync(join(DOCKER, 'seaweedfs-s3.json'), 'utf8')) as {
      identities: Array<{ credentials: Array<{ accessKey: string; secretKey: string }> }>;
    };
    expect(seaweed.identities[0]!.credentials[0]).toEqual({ accessKey: s3.accessKeyId, secretKey: s3.secretAccessKey });
    expect(services['s3-bucket']!.environment).toMatchObject({
      AWS_ACCESS_KEY_ID: s3.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
    });
    expect(config.artifacts.links.signingKey).toBe('k'.repeat(40));
  });
});

describe('docker/entrypoint.sh with the documented environment', () => {
  const config = join(scratch, 'config.yaml');
  const artifacts = join(scratch, 'artifacts');
  writeFileSync(config, `servers:\n  art:\n    command: ${NODE}\n    args: [${FIXTURES.artifact}]\n`);
  const env = (extra: Record<string, string>) =>
    cliEnv({
      MCP_OFFLOAD_BIN: `${NODE} ${CLI}`,
      MCP_OFFLOAD_CONFIG: config,
      MCP_OFFLOAD_ARTIFACT_DIR: artifacts,
      MCP_OFFLOAD_LOG_LEVEL: 'warn',
      ...extra,
    });
  const run = (args: string[], extra: Record<string, string>) =>
    spawnSync('sh', [join(DOCKER, 'entrypoint.sh'), ...args], { env: env(extra), encoding: 'utf8', timeout: 20_000 });

  test('serves /healthz, wants the token on /mcp, stores artifacts in MCP_OFFLOAD_ARTIFACT_DIR, passes the healthcheck, and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const listen = { MCP_OFFLOAD_LISTEN: `127.0.0.1:${port}`, MCP_OFFLOAD_AUTH_TOKEN: TOKEN };
    const child = spawn('sh', [join(DOCKER, 'entrypoint.sh')], {
      env: env(listen),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.add(child);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const base = `http://127.0.0.1:${port}`;
    await waitFor(
      async () => (await fetch(`${base}/healthz`).catch(() => undefined))?.status === 200,
      15_000,
      100,
      'the entrypoint to serve /healthz',
    );
    expect((await fetch(`${base}/mcp`, { method: 'POST' })).status).toBe(401);
    const client = await connectHttp(base, TOKEN);
    const [uri] = linksOf(await client.client.callTool({ name: 'image', arguments: { tag: 'docker' } }));
    expect(uri).toMatch(/^artifact:\/\/art\/image_/);
    expect(readdirSync(join(artifacts, 'art'))).toHaveLength(1);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await fetch(`${base}/metrics`, { headers: bearer(TOKEN) })).status).toBe(200);
    await client.close();

    const healthcheck = () =>
      spawnSync(NODE, [join(DOCKER, 'healthcheck.mjs')], { env: env(listen), timeout: 10_000 }).status;
    expect(healthcheck()).toBe(0);
    // exec: the signal reaches mcp-offload itself, which shuts down cleanly.
    child.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(stderr).not.toContain(TOKEN);
    // What it found: a token (named, never shown), and the config's commands present.
    expect(stderr).toContain('clients authenticate with the token in MCP_OFFLOAD_AUTH_TOKEN (read it back:');
    expect(stderr).toContain(`${config}: ok (1 server(s))`);
    expect(healthcheck()).toBe(1);
  });

  test('a server whose command is not in the image is named at start, and the rest is served', async () => {
    const lacking = join(scratch, 'lacking.yaml');
    writeFileSync(
      lacking,
      `servers:\n  art:\n    command: ${NODE}\n    args: [${FIXTURES.artifact}]\n  gone:\n    command: no-such-mcp-server\n`,
    );
    const port = await freePort();
    const child = spawn('sh', [join(DOCKER, 'entrypoint.sh')], {
      env: env({ MCP_OFFLOAD_CONFIG: lacking, MCP_OFFLOAD_LISTEN: `127.0.0.1:${port}`, MCP_OFFLOAD_AUTH_TOKEN: TOKEN }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.add(child);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    await waitFor(
      async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.status === 200,
      15_000,
      100,
      'the entrypoint to serve /healthz',
    );
    expect(stderr).toMatch(/no-such-mcp-server/);
    expect(stderr).toContain('serving anyway; a server whose command is not in this image stays down');
    child.kill('SIGTERM');
  });

  test('the image default (0.0.0.0) without a token refuses to start', () => {
    const result = run([], {});
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/refusing to listen on 0\.0\.0\.0 without authentication/);
  });

  test('a missing config is a clear error with exit code 78', () => {
    const result = run([], { MCP_OFFLOAD_CONFIG: join(scratch, 'nope.yaml') });
    expect(result.status).toBe(78);
    expect(result.stderr).toMatch(/no readable config at .*nope\.yaml; mount one/);
  });

  test('"validate" checks the mounted config; other commands run as given', () => {
    const validate = run(['validate'], {});
    expect(validate.status).toBe(0);
    expect(validate.stderr).toContain(`${config}: ok (1 server(s))`);
    const other = run(['sh', '-c', 'echo "$MCP_OFFLOAD_CONFIG"'], {});
    expect(other.stdout.trim()).toBe(config);
  });
});
