import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

/**
 * Conformance of every response the integration suite receives with the served OpenAPI
 * document: the status is declared for the route, the required headers are present
 * and well-formed, and the body matches the response schema. A mismatch throws, so the test
 * that received the response fails. Each (route, status) seen is appended to a file shared by
 * all vitest workers; the global teardown turns them into a coverage report.
 */
export const CONFORMANCE_DIR_ENV = 'OPENAPI_CONFORMANCE_DIR';
export const DOCUMENT_PATH = '/api/v1/author/openapi.json';
export const OPERATOR_DOCUMENT_PATH = '/api/operator/openapi.json';
export const COVERAGE_REPORT = path.resolve(import.meta.dirname, '..', '..', 'test-results', 'openapi-coverage.json');

type Json = { [key: string]: any };

const AUTHOR_PREFIX = '/api/v1/author';

export interface ReceivedResponse {
  method: string;
  /** Path below /api/v1/author, or a whole path starting with /api/; query string allowed. */
  path: string;
  status: number;
  headers: Headers;
  /** Raw body text; JSON is parsed here. */
  text: string;
}

export class ConformanceError extends Error {
  override name = 'ConformanceError';
}

// Run level (global setup / teardown, main process) -----------------------------------------

/** Fetches the served document once and tells every worker where to record (env is inherited). */
export async function startConformanceRun(baseUrl: string): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'openapi-conformance-'));
  writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(await servedDocuments(baseUrl)));
  process.env[CONFORMANCE_DIR_ENV] = dir;
  return dir;
}

export interface CoverageReport {
  exercised: number;
  declared: number;
  missing: string[];
  undocumented: string[];
  counts: Record<string, number>;
}

/** Aggregates the workers' records against the document and writes the coverage report. */
export function finishConformanceRun(dir = process.env[CONFORMANCE_DIR_ENV]): CoverageReport | undefined {
  if (!dir) return undefined;
  const doc = JSON.parse(readFileSync(path.join(dir, 'openapi.json'), 'utf8')) as Json;
  const counts: Record<string, number> = {};
  for (const file of readdirSync(dir).filter((f) => f.startsWith('records-'))) {
    for (const line of readFileSync(path.join(dir, file), 'utf8').split('\n')) {
      if (line) counts[line] = (counts[line] ?? 0) + 1;
    }
  }
  const declared = declaredPairs(doc);
  const report: CoverageReport = {
    exercised: declared.filter((p) => counts[p]).length,
    declared: declared.length,
    missing: declared.filter((p) => !counts[p]),
    undocumented: Object.keys(counts)
      .filter((p) => p.startsWith('undocumented '))
      .sort(),
    counts: Object.fromEntries(Object.entries(counts).sort()),
  };
  mkdirSync(path.dirname(COVERAGE_REPORT), { recursive: true });
  writeFileSync(COVERAGE_REPORT, JSON.stringify(report, null, 2) + '\n');
  const missing =
    report.missing.length > 12 ? [...report.missing.slice(0, 12), `… (${COVERAGE_REPORT})`] : report.missing;
  console.log(
    `OpenAPI conformance: ${report.exercised} of ${report.declared} (route, status) pairs exercised` +
      (missing.length ? `; missing: ${missing.join(', ')}` : ''),
  );
  return report;
}

/** "POST /posts 201" for every response the document declares. */
export function declaredPairs(doc: Json): string[] {
  const pairs: string[] = [];
  for (const [template, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      if (!HTTP_METHODS.has(method)) continue;
      for (const status of Object.keys(operation.responses ?? {}))
        pairs.push(`${method.toUpperCase()} ${template} ${status}`);
    }
  }
  return pairs;
}

// Response level (any worker) ------------------------------------------------------------------

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

interface Checker {
  doc: Json;
  ajv: Ajv2020;
  /** `pattern` matches the whole request path: the route's server prefix and its template. */
  routes: { method: string; template: string; pattern: RegExp; operation: Json }[];
  validators: Map<string, ValidateFunction>;
}

let checker: Promise<Checker> | undefined;

/**
 * Both served documents as one for checking responses: the author document, with the operator
 * document's paths added under their own server (`/api`) and its security scheme, so every
 * response of either kind is held to what its own document declares.
 */
async function servedDocuments(baseUrl: string): Promise<Json> {
  const get = async (documentPath: string) => {
    const res = await fetch(`${baseUrl}${documentPath}`);
    if (res.status !== 200) throw new Error(`OpenAPI document ${documentPath}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Json;
  };
  const [author, operator] = await Promise.all([get(DOCUMENT_PATH), get(OPERATOR_DOCUMENT_PATH)]);
  for (const [template, item] of Object.entries<Json>(operator.paths))
    author.paths[template] = { servers: operator.servers, ...item };
  Object.assign(author.components.securitySchemes, operator.components.securitySchemes);
  return author;
}

/** The documents as served; read from the run's directory, fetched when run outside it. */
function loadChecker(baseUrl?: string): Promise<Checker> {
  checker ??= (async () => {
    const dir = process.env[CONFORMANCE_DIR_ENV];
    let doc: Json;
    if (dir) doc = JSON.parse(readFileSync(path.join(dir, 'openapi.json'), 'utf8'));
    else if (baseUrl) doc = await servedDocuments(baseUrl);
    else throw new Error(`conformance: set ${CONFORMANCE_DIR_ENV} or pass baseUrl`);
    return buildChecker(doc);
  })();
  return checker;
}

export function buildChecker(doc: Json): Checker {
  // OpenAPI 3.1 schemas are JSON Schema 2020-12 plus a few annotation keywords.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  ajv.addVocabulary(['example', 'discriminator', 'xml', 'externalDocs']);
  ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
  // RFC 3339 date-time with an explicit zone, as the contract promises ("ISO 8601 with a time zone").
  ajv.addFormat(
    'date-time',
    (s: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i.test(s) && !Number.isNaN(Date.parse(s)),
  );
  ajv.addFormat('binary', true);
  ajv.addSchema({ ...doc, $id: 'openapi' }, 'openapi');
  const routes = [];
  for (const [template, item] of Object.entries<Json>(doc.paths ?? {})) {
    // An operator route declares its own server (`/api`); the author routes live below the prefix.
    const base = (item.servers?.[0]?.url as string | undefined) ?? AUTHOR_PREFIX;
    for (const [method, operation] of Object.entries<Json>(item)) {
      if (!HTTP_METHODS.has(method)) continue;
      const full = base + template;
      const pattern = new RegExp(`^${full.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      routes.push({ method, template, pattern, operation });
    }
  }
  // Literal paths before templated ones (/media/from-url is not /media/{x}).
  routes.sort((a, b) => Number(a.template.includes('{')) - Number(b.template.includes('{')));
  return { doc, ajv, routes, validators: new Map() };
}

const pointer = (...parts: string[]) => '#/' + parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

function resolve(doc: Json, node: Json): Json {
  let current = node;
  for (let i = 0; current?.$ref && i < 10; i++) {
    current = String(current.$ref)
      .replace(/^#\//, '')
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<Json>((n, key) => n?.[key], doc);
  }
  return current;
}

function validatorFor(c: Checker, ref: string): ValidateFunction {
  let validate = c.validators.get(ref);
  if (!validate) {
    validate = c.ajv.compile({ $ref: `openapi${ref}` });
    c.validators.set(ref, validate);
  }
  return validate;
}

function record(line: string) {
  const dir = process.env[CONFORMANCE_DIR_ENV];
  // One file per process: appends from different workers never interleave.
  if (dir) appendFileSync(path.join(dir, `records-${process.pid}.txt`), `${line}\n`);
}

/** Throws ConformanceError when the response is not what the document declares. */
export async function checkResponse(res: ReceivedResponse, baseUrl?: string): Promise<void> {
  const c = await loadChecker(baseUrl);
  checkAgainst(c, res);
}

export function checkAgainst(c: Checker, res: ReceivedResponse, { recordPair = true } = {}): void {
  const method = res.method.toLowerCase();
  const requested = res.path.split('?')[0]!;
  const urlPath = requested.startsWith('/api/') ? requested : AUTHOR_PREFIX + requested;
  const route = c.routes.find((r) => r.method === method && r.pattern.test(urlPath));
  const label = `${method.toUpperCase()} ${route?.template ?? urlPath.replace(AUTHOR_PREFIX, '')}`;
  const fail = (why: string) => {
    throw new ConformanceError(
      `OpenAPI conformance: ${label} → ${res.status}: ${why}\nbody: ${res.text.slice(0, 500)}`,
    );
  };
  if (!route) {
    // Probes of routes the service does not have: still the contract's error shape, nothing else.
    if (recordPair) record(`undocumented ${label} ${res.status}`);
    if (res.status < 400) fail('a route the document does not declare answered with success');
    checkJsonBody(c, res, pointer('components', 'schemas', 'ApiError'), fail);
    return;
  }
  const declared = route.operation.responses?.[String(res.status)];
  if (!declared) fail(`status not declared (declared: ${Object.keys(route.operation.responses ?? {}).join(', ')})`);
  if (recordPair) record(`${label} ${res.status}`);
  const response = resolve(c.doc, declared);

  for (const [name, headerNode] of Object.entries<Json>(response.headers ?? {})) {
    const header = resolve(c.doc, headerNode);
    const value = res.headers.get(name);
    if (value === null) {
      if (header.required) fail(`required header ${name} is missing`);
      continue;
    }
    const type = header.schema?.type;
    const parsed =
      type === 'integer' || type === 'number' ? (/^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value) : value;
    const ok = c.ajv.validate(header.schema ?? {}, parsed);
    if (!ok) fail(`header ${name}: ${JSON.stringify(value)} ${c.ajv.errorsText()}`);
  }

  const content = response.content as Json | undefined;
  if (!content) {
    if (res.text !== '') fail('the document declares no body, but one was sent');
    return;
  }
  const mediaType = Object.keys(content).find((t) =>
    (res.headers.get('content-type') ?? '').toLowerCase().startsWith(t),
  );
  if (!mediaType)
    fail(`Content-Type ${res.headers.get('content-type')} is not one of ${Object.keys(content).join(', ')}`);
  const schemaPointer = pointer(
    'paths',
    route.template,
    route.method,
    'responses',
    String(res.status),
    'content',
    mediaType!,
    'schema',
  );
  checkJsonBody(c, res, schemaPointer, fail);
}

function checkJsonBody(c: Checker, res: ReceivedResponse, schemaPointer: string, fail: (why: string) => never | void) {
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    fail('body is not JSON');
    return;
  }
  const validate = validatorFor(c, schemaPointer);
  if (!validate(body))
    fail(`body does not match ${schemaPointer}: ${c.ajv.errorsText(validate.errors, { dataVar: 'body' })}`);
}
