/**
 * Validation of the Okta org stand-in's traffic against Okta's published Management API specification (the vendored
 * subset in test/fixtures/okta-openapi/management-subset.json).
 *
 * Validator: ajv 8 (JSON Schema 2020-12 dialect) + ajv-formats, fed by a small OpenAPI 3.0 → JSON Schema conversion
 * below. Why not an off-the-shelf OpenAPI 3.0 validator: the point of the stand-in is that a shape nobody declared
 * fails, and Okta's schemas leave almost every object open (no `additionalProperties: false`), while composing them
 * with `allOf` (UserGetSingleton = User + _embedded; every factor = UserFactor + its own profile). Closing such objects
 * needs `unevaluatedProperties: false` at the place a schema is used (not inside the allOf members, where it would
 * reject the siblings' properties), which is JSON Schema 2019-09+, not OpenAPI 3.0. The conversion:
 *  - `nullable: true` → `type: [t, 'null']` (and `null` added to an `enum`);
 *  - `discriminator` + `mapping` (Okta's base-and-children style: the mapping sits on the base, each child is
 *    `allOf: [base, …]`, so following it naively recurses) → a separate "dispatch" definition, used wherever the base
 *    is used as a value: `allOf: [base, if factorType = 'email' then UserFactorEmail, …]`. Inside an `allOf` the plain
 *    base is referenced, so the children do not recurse;
 *  - `oneOf` without a discriminator → `anyOf`: Okta's request unions (UserFactorActivateRequest/VerifyRequest) have
 *    several identical branches (`{passCode}` for call, email, sms, totp…), so a literal `oneOf` refuses every valid
 *    body. The stand-in narrows them further: it validates against the branch whose `title` is the factor's type;
 *  - `readOnly` properties are forbidden in requests (and not required there), `writeOnly` ones in responses;
 *  - every object that declares properties is closed (`unevaluatedProperties: false`) where it is used;
 *  - the org's profile schema: Okta's UserProfile is open (`additionalProperties: true`, custom attributes); a real org
 *    only accepts the attributes of its Universal Directory schema, so the stand-in closes it to the base attributes
 *    plus the custom ones it is configured with;
 *  - `example`, `description`, `x-*` dropped; formats `date-time`/`email` from ajv-formats, `int32` range-checked,
 *    `password` accepted as any string; the System Log's prose formats as their prose says (an ISO 8601 timestamp,
 *    an integer from 0 to 1000; the opaque token, the SCIM filter and the keywords as any string).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';

// ajv and ajv-formats are CommonJS with a default export; createRequire avoids the ESM interop guesswork.
const require = createRequire(import.meta.url);
const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020 };
const addFormats = require('ajv-formats') as { default: (ajv: Ajv2020) => Ajv2020 };

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
type Mode = 'request' | 'response';

export const SUBSET_PATH = fileURLToPath(
  new URL('../../fixtures/okta-openapi/management-subset.json', import.meta.url),
);

export interface OpenApiDoc {
  paths: Record<string, JsonObject>;
  components: {
    schemas: Record<string, JsonObject>;
    parameters?: Record<string, JsonObject>;
    responses?: Record<string, JsonObject>;
    examples?: Record<string, JsonObject>;
    securitySchemes?: Record<string, JsonObject>;
  };
}

let cachedDoc: OpenApiDoc | undefined;
export function loadSubset(): OpenApiDoc {
  cachedDoc ??= JSON.parse(readFileSync(SUBSET_PATH, 'utf8')) as OpenApiDoc;
  return cachedDoc;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function refName(ref: string, kind: string): string {
  const prefix = `#/components/${kind}/`;
  if (!ref.startsWith(prefix)) throw new Error(`unexpected $ref ${ref} (wanted ${kind})`);
  return ref.slice(prefix.length);
}

/** Resolves a `$ref` to components.<kind> (parameters, responses, examples, requestBodies). */
function deref(doc: OpenApiDoc, node: JsonObject, kind: 'parameters' | 'responses' | 'examples'): JsonObject {
  if (typeof node.$ref !== 'string') return node;
  const target = doc.components[kind]?.[refName(node.$ref, kind)];
  if (!target) throw new Error(`unresolved ${node.$ref}`);
  return target;
}

/** JSON Schema conversion for one direction (request or response), with the org's profile attributes. */
class Converter {
  constructor(
    private readonly doc: OpenApiDoc,
    private readonly mode: Mode,
    private readonly customProfile: Record<string, JsonObject>,
  ) {}

  readonly id = (): string => `okta-${this.mode}`;
  private base = (name: string): string => `${this.id()}#/$defs/${name}`;
  private dispatch = (name: string): string => `${this.id()}#/$defs/${name}__dispatch`;

  private component(name: string): JsonObject {
    const schema = this.doc.components.schemas[name];
    if (!schema) throw new Error(`schema ${name} is not in the vendored subset`);
    return schema;
  }

  /** Does this schema (through refs and compositions) declare object properties? Then it can be closed. */
  private closable(schema: Json, seen = new Set<string>()): boolean {
    if (!isObject(schema)) return false;
    if (typeof schema.$ref === 'string') {
      const name = refName(schema.$ref, 'schemas');
      if (seen.has(name)) return false;
      seen.add(name);
      return this.closable(this.component(name), seen);
    }
    // An explicit additionalProperties already decides; UserProfile is the exception closed on purpose.
    if ('additionalProperties' in schema && schema !== this.doc.components.schemas.UserProfile) return false;
    if (isObject(schema.properties) && Object.keys(schema.properties).length > 0) return true;
    if (schema.discriminator) return true;
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
      const members = schema[key];
      if (Array.isArray(members) && members.some((m) => this.closable(m, seen))) return true;
    }
    return false;
  }

  /** readOnly/writeOnly on the property itself, on an allOf member, or on the component it references. */
  private flag(schema: Json, key: 'readOnly' | 'writeOnly'): boolean {
    if (!isObject(schema)) return false;
    if (schema[key] === true) return true;
    if (typeof schema.$ref === 'string') return this.component(refName(schema.$ref, 'schemas'))[key] === true;
    return Array.isArray(schema.allOf) && schema.allOf.some((m) => isObject(m) && !m.$ref && m[key] === true);
  }

  /** `use`: the schema is a value position (body, property, item), where objects are closed and bases dispatch. */
  convert(schema: Json, use: boolean): JsonObject | boolean {
    if (schema === true || schema === false) return schema;
    if (!isObject(schema)) throw new Error(`not a schema: ${JSON.stringify(schema)}`);

    if (typeof schema.$ref === 'string') {
      const name = refName(schema.$ref, 'schemas');
      const target = this.component(name);
      let out: JsonObject = { $ref: use && target.discriminator ? this.dispatch(name) : this.base(name) };
      if (use && this.closable(target)) out.unevaluatedProperties = false;
      // OpenAPI 3.0 ignores $ref siblings; Okta's intent for `nullable` next to a $ref is clear enough to honour.
      if (schema.nullable === true) out = { anyOf: [out, { type: 'null' }] };
      return out;
    }

    const out: JsonObject = {};
    const copy = [
      'type',
      'enum',
      'format',
      'minLength',
      'maxLength',
      'pattern',
      'minimum',
      'maximum',
      'multipleOf',
      'minItems',
      'maxItems',
      'uniqueItems',
      'minProperties',
      'maxProperties',
      'title',
    ];
    for (const key of copy) if (key in schema) out[key] = schema[key] as Json;
    // A string with minimum/maximum (RecoveryQuestionCredential.answer) is legal JSON Schema: numeric keywords do
    // not apply to strings. OpenAPI 3.0's boolean exclusiveMinimum/Maximum is not used by the subset.
    if (schema.nullable === true) {
      if (typeof out.type === 'string') out.type = [out.type, 'null'];
      if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    }

    let required = Array.isArray(schema.required) ? (schema.required as string[]).slice() : undefined;
    if (isObject(schema.properties)) {
      const props: JsonObject = {};
      for (const [name, prop] of Object.entries(schema.properties)) {
        const forbidden =
          (this.mode === 'request' && this.flag(prop, 'readOnly')) ||
          (this.mode === 'response' && this.flag(prop, 'writeOnly'));
        if (forbidden) {
          props[name] = false;
          required = required?.filter((r) => r !== name);
        } else props[name] = this.convert(prop, true);
      }
      out.properties = props;
    }
    if (required && required.length > 0) out.required = required;

    if (schema === this.doc.components.schemas.UserProfile) {
      // The org's Universal Directory schema: base attributes plus the configured custom ones, nothing else.
      const props = out.properties as JsonObject;
      for (const [name, prop] of Object.entries(this.customProfile)) props[name] = this.convert(prop, true);
    } else if ('additionalProperties' in schema) {
      const extra = schema.additionalProperties as Json;
      out.additionalProperties = typeof extra === 'boolean' ? extra : this.convert(extra, true);
    }
    if (schema.items !== undefined) out.items = this.convert(schema.items, true);
    if (Array.isArray(schema.allOf)) out.allOf = schema.allOf.map((m) => this.convert(m, false));
    const union = [
      ...(Array.isArray(schema.anyOf) ? schema.anyOf : []),
      ...(Array.isArray(schema.oneOf) ? schema.oneOf : []),
    ];
    if (union.length > 0) out.anyOf = union.map((m) => this.convert(m, false));
    if (schema.not !== undefined) out.not = this.convert(schema.not, true);

    if (use && this.closable(schema)) out.unevaluatedProperties = false;
    return out;
  }

  /** The shared definitions document: each component as a base, plus a dispatch for each discriminated base. */
  definitions(): JsonObject {
    const defs: JsonObject = {};
    for (const [name, schema] of Object.entries(this.doc.components.schemas)) {
      defs[name] = this.convert(schema, false);
      const discriminator = schema.discriminator;
      if (isObject(discriminator) && isObject(discriminator.mapping)) {
        const prop = String(discriminator.propertyName);
        defs[`${name}__dispatch`] = {
          allOf: [
            { $ref: this.base(name) },
            ...Object.entries(discriminator.mapping).map(([value, target]) => ({
              if: { properties: { [prop]: { const: value } }, required: [prop] },
              then: { $ref: this.base(refName(String(target), 'schemas')) },
            })),
          ],
        };
      }
    }
    return { $id: this.id(), $defs: defs };
  }
}

export interface SchemaViolation {
  /** Where: "request body", "query parameter strict", "response 200 body"… */
  where: string;
  errors: string[];
}

/** Keywords whose failure only echoes a failure inside them (a branch that failed, a property left unevaluated). */
const ECHO_KEYWORDS = new Set(['if', 'anyOf', 'oneOf', 'allOf', 'unevaluatedProperties']);

/**
 * ajv's errors, root causes first: when a discriminated branch fails on one property, ajv also reports the `then`
 * and every property of the object as unevaluated (a failed branch evaluates nothing). Those echoes are dropped
 * when a root cause at or under the same place explains them.
 */
function formatErrors(errors: ErrorObject[] | null | undefined): string[] {
  const list = errors ?? [];
  const causes = list.filter((e) => !ECHO_KEYWORDS.has(e.keyword));
  const explained = (e: ErrorObject) =>
    causes.some((c) => c.instancePath === e.instancePath || c.instancePath.startsWith(`${e.instancePath}/`));
  const kept = list.filter((e) => !ECHO_KEYWORDS.has(e.keyword) || !explained(e));
  const out = kept.map((e) => {
    const at = e.instancePath || '/';
    const detail =
      e.keyword === 'unevaluatedProperties'
        ? ` (${String((e.params as { unevaluatedProperty?: string }).unevaluatedProperty)})`
        : e.keyword === 'false schema'
          ? ' (property not allowed in this direction: readOnly in a request, writeOnly in a response)'
          : '';
    return `${at} ${e.message ?? e.keyword}${detail}`;
  });
  return [...new Set(out)];
}

export interface OperationSpec {
  method: string;
  template: string;
  operationId: string;
  /** Scopes any one of which (directly or through its `.manage` parent) grants the operation. */
  scopes: string[];
  pattern: RegExp;
  pathParams: string[];
}

interface CompiledParam {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  type: string | undefined;
  validate: ValidateFunction;
}

interface CompiledOperation extends OperationSpec {
  params: CompiledParam[];
  body?: { required: boolean; validate: ValidateFunction; variants: Map<string, ValidateFunction> };
  responses: Map<string, { validate?: ValidateFunction; empty: boolean }>;
}

export interface OktaSpecValidator {
  operations: OperationSpec[];
  /** Finds the operation for a method and a path (the path relative to the org URL, no query string). */
  match(method: string, path: string): { op: OperationSpec; params: Record<string, string> } | undefined;
  /** Path, query and declared header parameters, and the JSON body (undefined = no body). */
  validateRequest(
    op: OperationSpec,
    input: {
      params: Record<string, string>;
      query: URLSearchParams;
      headers: Record<string, string | string[] | undefined>;
      body: unknown;
      /** For a union body (activate/verify): the oneOf branch titled with this factor type. */
      variant?: string;
    },
  ): SchemaViolation[];
  /** The status must be declared; its body must match (or be empty for a content-less response). */
  validateResponse(op: OperationSpec, status: number, body: unknown): SchemaViolation[];
  /** Validates a body against a named component response (the auth layer's 401). */
  validateComponentResponse(name: string, body: unknown): SchemaViolation[];
  /** Every scope name the spec's oauth2 security scheme defines. */
  knownScopes: Set<string>;
  /** For tests of the validator itself: validate a value against a named schema, as a request or a response. */
  validateSchema(mode: Mode, name: string, value: unknown): SchemaViolation[];
  /** The spec's examples, resolved: [operation, direction, status, example name, value]. */
  examples(): { op: OperationSpec; direction: Mode; status?: string; name: string; value: unknown }[];
}

function newAjv(): Ajv2020 {
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && Math.abs(n) < 2 ** 31,
  });
  ajv.addFormat('password', true);
  // The System Log's query parameters (listLogEvents) name their formats in prose: checked as that prose says.
  ajv.addFormat(
    'ISO 8601 compliant timestamp',
    (text: string) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(text) &&
      !Number.isNaN(Date.parse(text)),
  );
  ajv.addFormat('Integer between 0 and 1000', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= 0 && n <= 1000,
  });
  ajv.addFormat('Opaque token', true);
  ajv.addFormat('SCIM Filter expression', true);
  ajv.addFormat(
    'URL encoded string. Max length is 40 characters per keyword, with a maximum of 10 keyword filters per query (before encoding)',
    true,
  );
  return ajv;
}

/**
 * Compiles the validators for the vendored subset. `customProfileAttributes` are the org's custom user profile
 * attributes (name → OpenAPI schema), e.g. `{ isFederated: { type: 'boolean' } }`.
 */
export function createSpecValidator(
  options: { customProfileAttributes?: Record<string, object> } = {},
): OktaSpecValidator {
  const doc = loadSubset();
  const custom = (options.customProfileAttributes ?? {}) as Record<string, JsonObject>;
  const converters = {
    request: new Converter(doc, 'request', custom),
    response: new Converter(doc, 'response', custom),
  };
  const ajv = newAjv();
  ajv.addSchema(converters.request.definitions());
  ajv.addSchema(converters.response.definitions());
  const compile = (mode: Mode, schema: Json, use = true): ValidateFunction =>
    ajv.compile(converters[mode].convert(schema, use) as object);

  const operations: CompiledOperation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const own = Array.isArray(operation.parameters) ? operation.parameters : [];
      const params: CompiledParam[] = [...shared, ...own].map((raw) => {
        const p = deref(doc, raw as JsonObject, 'parameters');
        const schema = (p.schema ?? {}) as JsonObject;
        return {
          name: String(p.name),
          in: p.in as CompiledParam['in'],
          required: p.required === true,
          type: typeof schema.type === 'string' ? schema.type : undefined,
          validate: compile('request', schema),
        };
      });

      let body: CompiledOperation['body'];
      const requestBody = operation.requestBody;
      if (isObject(requestBody)) {
        const content = requestBody.content as JsonObject;
        const schema = (content['application/json'] as JsonObject).schema as JsonObject;
        const variants = new Map<string, ValidateFunction>();
        // A union body: also compile each branch, keyed by its title (the factor type).
        const target =
          typeof schema.$ref === 'string' ? doc.components.schemas[refName(schema.$ref, 'schemas')] : schema;
        if (target && Array.isArray(target.oneOf) && !target.discriminator) {
          for (const branch of target.oneOf) {
            if (isObject(branch) && typeof branch.title === 'string') {
              variants.set(branch.title, compile('request', { ...branch, type: 'object' }));
            }
          }
        }
        body = { required: requestBody.required === true, validate: compile('request', schema), variants };
      }

      const responses = new Map<string, { validate?: ValidateFunction; empty: boolean }>();
      for (const [status, raw] of Object.entries(operation.responses as JsonObject)) {
        const response = deref(doc, raw as JsonObject, 'responses');
        const json = isObject(response.content)
          ? (response.content['application/json'] as JsonObject | undefined)
          : undefined;
        responses.set(
          status,
          json?.schema ? { validate: compile('response', json.schema), empty: false } : { empty: true },
        );
      }

      const security = Array.isArray(operation.security) ? operation.security : [];
      const scopes = security.flatMap((s) =>
        isObject(s) && Array.isArray(s.oauth2) ? (s.oauth2 as string[]) : [],
      );
      const pathParams: string[] = [];
      const pattern = new RegExp(
        `^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_m, name: string) => {
          pathParams.push(name);
          return '([^/]+)';
        })}$`,
      );
      operations.push({
        method: method.toUpperCase(),
        template,
        operationId: String(operation.operationId),
        scopes,
        pattern,
        pathParams,
        params,
        body,
        responses,
      });
    }
  }

  const componentResponses = new Map<string, ValidateFunction>();
  for (const [name, response] of Object.entries(doc.components.responses ?? {})) {
    const json = isObject(response.content)
      ? (response.content['application/json'] as JsonObject | undefined)
      : undefined;
    if (json?.schema) componentResponses.set(name, compile('response', json.schema));
  }

  const oauth2 = doc.components.securitySchemes?.oauth2;
  const knownScopes = new Set<string>();
  if (isObject(oauth2) && isObject(oauth2.flows)) {
    for (const flow of Object.values(oauth2.flows)) {
      if (isObject(flow) && isObject(flow.scopes))
        for (const scope of Object.keys(flow.scopes)) knownScopes.add(scope);
    }
  }

  const compiled = (op: OperationSpec): CompiledOperation => op as CompiledOperation;

  function coerce(param: CompiledParam, raw: string): unknown {
    if (param.type === 'boolean') return raw === 'true' ? true : raw === 'false' ? false : raw;
    if (param.type === 'integer' || param.type === 'number')
      return /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
    return raw;
  }

  return {
    operations,
    knownScopes,
    match(method, path) {
      for (const op of operations) {
        if (op.method !== method.toUpperCase()) continue;
        const m = op.pattern.exec(path);
        if (!m) continue;
        const params: Record<string, string> = {};
        op.pathParams.forEach((name, i) => {
          params[name] = decodeURIComponent(m[i + 1] ?? '');
        });
        return { op, params };
      }
      return undefined;
    },
    validateRequest(op, input) {
      const c = compiled(op);
      const out: SchemaViolation[] = [];
      const declaredQuery = new Set(c.params.filter((p) => p.in === 'query').map((p) => p.name));
      for (const name of new Set(input.query.keys())) {
        if (!declaredQuery.has(name))
          out.push({ where: `query parameter ${name}`, errors: ['is not declared by the operation'] });
      }
      for (const p of c.params) {
        let raw: string | undefined;
        if (p.in === 'path') raw = input.params[p.name];
        else if (p.in === 'query') {
          const all = input.query.getAll(p.name);
          if (all.length > 1) out.push({ where: `query parameter ${p.name}`, errors: ['is repeated'] });
          raw = all[0];
        } else {
          const h = input.headers[p.name.toLowerCase()];
          raw = Array.isArray(h) ? h.join(', ') : h;
        }
        if (raw === undefined) {
          if (p.required) out.push({ where: `${p.in} parameter ${p.name}`, errors: ['is required'] });
          continue;
        }
        if (p.in === 'header' && p.name.toLowerCase() === 'content-type') continue; // checked with the body below
        if (!p.validate(coerce(p, raw))) {
          out.push({ where: `${p.in} parameter ${p.name}`, errors: formatErrors(p.validate.errors) });
        }
      }
      if (input.body === undefined) {
        if (c.body?.required) out.push({ where: 'request body', errors: ['is required'] });
      } else if (!c.body) {
        out.push({ where: 'request body', errors: ['the operation declares no request body'] });
      } else {
        const variant = input.variant !== undefined ? c.body.variants.get(input.variant) : undefined;
        if (input.variant !== undefined && c.body.variants.size > 0 && !variant) {
          out.push({
            where: 'request body',
            errors: [`the spec declares no body branch titled "${input.variant}"`],
          });
        }
        const validate = variant ?? c.body.validate;
        if (!validate(input.body)) {
          out.push({
            where: variant ? `request body (branch "${input.variant}")` : 'request body',
            errors: formatErrors(validate.errors),
          });
        }
      }
      return out;
    },
    validateResponse(op, status, body) {
      const c = compiled(op);
      const declared = c.responses.get(String(status));
      if (!declared) {
        return [
          { where: `response ${status}`, errors: [`status ${status} is not declared for ${op.operationId}`] },
        ];
      }
      if (declared.empty) {
        return body === undefined
          ? []
          : [{ where: `response ${status} body`, errors: ['the spec declares no content'] }];
      }
      if (body === undefined) return [{ where: `response ${status} body`, errors: ['is missing'] }];
      const validate = declared.validate as ValidateFunction;
      return validate(body)
        ? []
        : [{ where: `response ${status} body`, errors: formatErrors(validate.errors) }];
    },
    validateComponentResponse(name, body) {
      const validate = componentResponses.get(name);
      if (!validate) return [{ where: `response ${name}`, errors: ['is not in the vendored subset'] }];
      return validate(body)
        ? []
        : [{ where: `response ${name} body`, errors: formatErrors(validate.errors) }];
    },
    validateSchema(mode, name, value) {
      const validate = compile(mode, { $ref: `#/components/schemas/${name}` });
      return validate(value) ? [] : [{ where: name, errors: formatErrors(validate.errors) }];
    },
    examples() {
      const list: ReturnType<OktaSpecValidator['examples']> = [];
      const push = (op: OperationSpec, direction: Mode, examples: Json, status?: string) => {
        if (!isObject(examples)) return;
        for (const [name, raw] of Object.entries(examples)) {
          const example = deref(doc, raw as JsonObject, 'examples');
          if ('value' in example) list.push({ op, direction, status, name, value: example.value });
        }
      };
      for (const op of operations) {
        const operation = doc.paths[op.template]?.[op.method.toLowerCase()] as JsonObject;
        const requestBody = operation.requestBody;
        if (isObject(requestBody) && isObject(requestBody.content)) {
          push(op, 'request', (requestBody.content['application/json'] as JsonObject).examples as Json);
        }
        for (const [status, raw] of Object.entries(operation.responses as JsonObject)) {
          const response = deref(doc, raw as JsonObject, 'responses');
          if (isObject(response.content) && isObject(response.content['application/json'])) {
            push(
              op,
              'response',
              (response.content['application/json'] as JsonObject).examples as Json,
              status,
            );
          }
        }
      }
      return list;
    },
  };
}
