/**
 * The environment is validated when server/foundation/env.ts is first imported, which is the start of the
 * service: a malformed setting must stop it there, with the entry named.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { outboundAllowList } from '../../../server/runtime/create-app';

async function loadEnv(vars: Record<string, string>) {
  vi.resetModules();
  for (const [name, value] of Object.entries(vars)) vi.stubEnv(name, value);
  return import('../../../server/foundation/env');
}

afterEach(() => {
  vi.unstubAllEnvs();
  // The modules read under the stubbed values go too: the next file of this worker (the unit
  // project shares workers between files) imports them anew.
  vi.resetModules();
});

// Parsed by the composition root, which the launcher asks first (before any database starts);
// tests/integration/process.test.ts shows the launcher exiting on one.
describe('outbound allow lists at start', () => {
  it.each(['192.168.1.010', '10.1/16', '017700000001'])('ALLOWED_PRIVATE_ADDRESSES=%s fails the start', (entry) => {
    expect(() => outboundAllowList({ ALLOWED_PRIVATE_ADDRESSES: `127.0.0.0/8,${entry}` })).toThrow(
      `Invalid environment: ALLOWED_PRIVATE_ADDRESSES: "${entry}" is not a canonical IP address or CIDR`,
    );
  });

  it('a bad ALLOWED_OUTBOUND_PORTS entry fails the start', () => {
    expect(() => outboundAllowList({ ALLOWED_PRIVATE_ADDRESSES: '', ALLOWED_OUTBOUND_PORTS: '8080,http' })).toThrow(
      'Invalid environment: ALLOWED_OUTBOUND_PORTS: "http" is not a port',
    );
  });

  it('canonical entries start', async () => {
    const { env } = await loadEnv({
      ALLOWED_PRIVATE_ADDRESSES: '10.0.0.0/8,192.168.1.10,fd00::/8',
      ALLOWED_OUTBOUND_PORTS: '8080',
    });
    expect(env.ALLOWED_OUTBOUND_PORTS).toBe('8080');
    const allow = outboundAllowList(env);
    expect(allow.publicPorts.has(8080)).toBe(true);
  });
});

describe('PUBLIC_ORIGIN', () => {
  it.each([
    ['https://blog.example', 'https://blog.example'],
    ['https://blog.example/', 'https://blog.example'],
    ['http://Blog.Example:8080', 'http://blog.example:8080'],
  ])('%s is the origin %s', async (value, origin) => {
    expect((await loadEnv({ PUBLIC_ORIGIN: value })).env.PUBLIC_ORIGIN).toBe(origin);
  });

  it.each([
    'blog.example',
    'ftp://blog.example',
    'https://blog.example/blog',
    'https://u:p@blog.example',
    'https://blog.example/?x',
  ])('%s fails the start', async (value) => {
    await expect(loadEnv({ PUBLIC_ORIGIN: value })).rejects.toThrow(/Invalid environment: PUBLIC_ORIGIN: /);
  });

  it('is unset by default: no request header stands in for it', async () => {
    expect((await loadEnv({ PUBLIC_ORIGIN: '' })).env.PUBLIC_ORIGIN).toBeUndefined();
  });
});

describe('reader counting settings at start', () => {
  it('CONSOLE is on unless set to off; another value fails the start', async () => {
    expect((await loadEnv({ CONSOLE: '' })).env.CONSOLE).toBe('on');
    expect((await loadEnv({ CONSOLE: 'off' })).env.CONSOLE).toBe('off');
    await expect(loadEnv({ CONSOLE: 'false' })).rejects.toThrow(/Invalid environment: CONSOLE: /);
  });

  it('READER_EVENTS_TOKEN shorter than 16 characters fails the start; unset or empty leaves the route off', async () => {
    await expect(loadEnv({ READER_EVENTS_TOKEN: 'too-short' })).rejects.toThrow(
      /Invalid environment: READER_EVENTS_TOKEN/,
    );
    expect((await loadEnv({ READER_EVENTS_TOKEN: '' })).env.READER_EVENTS_TOKEN).toBeUndefined();
    expect((await loadEnv({ READER_EVENTS_TOKEN: 'sixteen-chars-ok' })).env.READER_EVENTS_TOKEN).toBe(
      'sixteen-chars-ok',
    );
  });

  it('TRUSTED_PROXIES takes exact addresses only', async () => {
    await expect(loadEnv({ TRUSTED_PROXIES: '10.0.0.1,10.0.0.0/8' })).rejects.toThrow(
      /TRUSTED_PROXIES: exact IP addresses only/,
    );
    expect((await loadEnv({ TRUSTED_PROXIES: '10.0.0.1, ::1' })).env.TRUSTED_PROXIES).toBe('10.0.0.1, ::1');
  });
});

describe('CONTENT_BACKGROUND_YOUNG_MB', () => {
  const settingsUnder = async (vars: Record<string, string>) => {
    await loadEnv(vars);
    const { contentPoolSettings } = await import('../../../server/content/pool-settings');
    return contentPoolSettings(fileURLToPath(import.meta.url)); // any file stands in for the worker bundle
  };

  it("is 128 by default and reaches the pool's settings as given", async () => {
    expect((await settingsUnder({ CONTENT_BACKGROUND_YOUNG_MB: '' })).backgroundYoungGenerationMb).toBe(128);
    expect((await settingsUnder({ CONTENT_BACKGROUND_YOUNG_MB: '48' })).backgroundYoungGenerationMb).toBe(48);
  });

  it.each(['4', '1024', '64.5', 'big'])('%s fails the start, named', async (value) => {
    await expect(loadEnv({ CONTENT_BACKGROUND_YOUNG_MB: value })).rejects.toThrow(
      /Invalid environment: CONTENT_BACKGROUND_YOUNG_MB: /,
    );
  });
});

describe('CACHE_PURGE_URLS', () => {
  it('is empty by default and a list of base URLs when set', async () => {
    expect((await loadEnv({ CACHE_PURGE_URLS: '' })).env.CACHE_PURGE_URLS).toEqual([]);
    expect(
      (await loadEnv({ CACHE_PURGE_URLS: 'http://127.0.0.1:6081, https://cache.example/purge-prefix' })).env
        .CACHE_PURGE_URLS,
    ).toEqual(['http://127.0.0.1:6081', 'https://cache.example/purge-prefix']);
  });

  it.each(['ftp://cache', 'cache:6081', 'http://cache/?x=1'])('%s fails the start, named', async (entry) => {
    await expect(loadEnv({ CACHE_PURGE_URLS: `http://127.0.0.1:6081,${entry}` })).rejects.toThrow(
      `Invalid environment: CACHE_PURGE_URLS: "${entry}" is not an http(s) base URL`,
    );
  });
});

// Traces are off unless an endpoint or the exporter is named (docs/traces.md); the process reads
// the one URL derived here.
describe('OpenTelemetry traces', () => {
  it('are off by default', async () => {
    expect((await loadEnv({})).env.tracesUrl).toBeUndefined();
  });

  it.each<[Record<string, string>, string | undefined]>([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, 'http://127.0.0.1:4318/v1/traces'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example/otlp/' }, 'https://collector.example/otlp/v1/traces'],
    [
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces.example:9999/in',
      },
      'http://traces.example:9999/in',
    ],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, 'http://localhost:4318/v1/traces'],
    [{ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, undefined],
  ])('%o sends to %s', async (vars, url) => {
    expect((await loadEnv(vars)).env.tracesUrl).toBe(url);
  });

  it.each<Record<string, string>>([
    { OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://127.0.0.1:4317' },
    { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' },
    { OTEL_TRACES_EXPORTER: 'zipkin' },
    { OTEL_TRACES_SAMPLER_ARG: '2' },
  ])('%o fails the start', async (vars) => {
    await expect(loadEnv(vars)).rejects.toThrow(/Invalid environment: OTEL_/);
  });
});
