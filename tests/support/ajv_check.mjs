// Ajv 8 in strict mode, loaded as schemas/README.md tells JavaScript authors; run by
// tests/schemas/test_validators.py.
//
//   node ajv_check.mjs KIT SCHEMAS compile    every schema and every $defs entry, compiled:
//                                             {"compiled": [...], "errors": [...], "warnings": [...]}
//   node ajv_check.mjs KIT SCHEMAS validate   standard input: [[schema-id, value], ...];
//                                             standard output: [true/false, ...]
//
// KIT is a folder whose node_modules holds ajv (examples/javascript after `npm ci`).
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";

const [kit, dir, mode] = process.argv.slice(2);
const Ajv2020 = createRequire(resolve(kit, "package.json"))("ajv/dist/2020.js");
const warnings = [];
const keep = (...args) => warnings.push(args.join(" "));
const logger = { log() {}, warn: keep, error: keep };

// The two lines of schemas/README.md (plus the logger that keeps Ajv's warnings):
const files = readdirSync(dir, { recursive: true }).filter((name) => name.endsWith(".json"));
const ajv = new Ajv2020({ strict: true, allErrors: true, logger }).addSchema(files.map((name) => JSON.parse(readFileSync(join(dir, name), "utf8"))));

function compileAll() {
  const compiled = [];
  const errors = [];
  for (const name of files) {
    const schema = JSON.parse(readFileSync(join(dir, name), "utf8"));
    const refs = [schema.$id, ...Object.keys(schema.$defs ?? {}).map((key) => `${schema.$id}#/$defs/${key}`)];
    for (const ref of refs) {
      try {
        ajv.getSchema(ref);
        compiled.push(ref);
      } catch (error) {
        errors.push(`${ref}: ${error.message}`);
      }
    }
  }
  return { compiled, errors, warnings };
}

if (mode === "compile") {
  process.stdout.write(JSON.stringify(compileAll()));
} else if (mode === "validate") {
  const cases = JSON.parse(readFileSync(0, "utf8"));
  process.stdout.write(JSON.stringify(cases.map(([id, value]) => ajv.getSchema(id)(value))));
} else {
  process.stderr.write("usage: node ajv_check.mjs KIT SCHEMAS compile|validate\n");
  process.exit(2);
}
