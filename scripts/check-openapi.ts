/**
 * `npm run openapi:check` (CI, after the typecheck): builds the OpenAPI document from the contract and
 * validates it with an OpenAPI 3.1 validator, then compiles every answer schema as the API tests' answer
 * checks do (a reference that resolves nowhere fails here). Prints what is wrong and exits 1.
 */
import { Validator } from "@seriousme/openapi-schema-validator";
import { buildOpenApiDocument } from "../app/api/openapi.server.ts";
import { createAnswerChecker } from "../tests/api/answer-checker.ts";

const document = buildOpenApiDocument();
const validator = new Validator();
// Exactly what GET /api/openapi.json serves: the JSON text, read back.
const result = await validator.validate(JSON.parse(JSON.stringify(document)) as Record<string, unknown>);
if (!result.valid) {
  console.error("The OpenAPI document is not valid OpenAPI 3.1:");
  console.error(JSON.stringify(result.errors, null, 2));
  process.exit(1);
}

try {
  createAnswerChecker(document).compileAll();
} catch (error) {
  console.error(`An answer schema of the OpenAPI document does not compile: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

const operations = Object.values(document.paths ?? {}).flatMap((pathItem) => Object.keys(pathItem ?? {}));
console.log(
  `OpenAPI ${validator.version} document valid: ${Object.keys(document.paths ?? {}).length} paths, ${operations.length} operations.`,
);
