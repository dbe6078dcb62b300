// ESLint: rules that catch bugs, none about layout (Prettier formats the code). @eslint/js, typescript-eslint,
// react-hooks and jsx-a11y recommend no formatting ("layout") rules, so there is nothing to turn off for Prettier.
// Type-aware (typescript-eslint's recommendedTypeChecked) for what only types can see: floating and misused
// promises, awaiting non-promises, throwing non-errors, `any` leaking out of untyped data.
import js from "@eslint/js";
import { defineConfig, globalIgnores } from "eslint/config";
import jsxA11y from "eslint-plugin-jsx-a11y";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

export default defineConfig([
  { linterOptions: { reportUnusedDisableDirectives: "error" } },
  // Build output, generated route types, local databases and test artefacts.
  globalIgnores(["build/", ".react-router/", ".data/", ".test-data/", "test-results/", "coverage/", "**/node_modules/"]),

  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  { languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } } },

  // Globals (no-undef only checks .js files: in TypeScript the compiler does): Node's everywhere; the browser's
  // as well in app/ outside its .server modules, and in tests/e2e (functions given to page.evaluate run there).
  { languageOptions: { globals: globals.node } },
  {
    files: ["app/**", "tests/e2e/**"],
    ignores: ["app/**/*.server.{ts,tsx}", "app/entry.server.tsx"],
    languageOptions: { globals: globals.browser },
  },

  // React: the pages in app/ and the Ink views of the CLI. jsx-a11y only where the output is HTML.
  { files: ["app/**/*.{ts,tsx}", "cli/**/*.{ts,tsx}"], ...reactHooks.configs.flat.recommended },
  { files: ["app/**/*.tsx"], ...jsxA11y.flatConfigs.recommended },

  {
    rules: {
      // `_`-prefixed names are deliberately unused (a destructured-away field, a required parameter).
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
      // React Router's loaders and actions end by throwing a Response or data(): the framework's way, not a bug.
      "@typescript-eslint/only-throw-error": [
        "error",
        {
          allow: [
            { from: "lib", name: "Response" },
            { from: "package", package: "react-router", name: "DataWithResponseInit" },
          ],
        },
      ],
      // An async function without `await` is how a Promise-returning interface is implemented (a throw becomes a
      // rejection); flagging it finds no bugs.
      "@typescript-eslint/require-await": "off",
    },
  },
  {
    // The browser's code (components, the API client and cache, the wallet, the contract it takes its types
    // from) never imports the database layer: its shapes come from the contract in app/api/.
    files: ["app/components/**", "app/lib/**", "app/wallet/**", "app/api/**", "app/domain/**"],
    ignores: ["**/*.server.{ts,tsx}", "**/*.test.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ regex: "(^|/)db/", message: "Browser code must not import db/: take the shape from the contract (app/api/)." }] },
      ],
    },
  },
  {
    // Tests read answers as `any` (response.json(), JSON.parse) and check them with expect and the contract's
    // schemas; the no-unsafe-* rules would only ask for casts there. Writing `any` is still refused.
    files: ["**/*.test.{ts,tsx}", "tests/**", "cli/testing/**"],
    rules: {
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },

  // Last, so no rule above turns type information back on: the few plain .js files (this one, the CLI's
  // launcher, scripts/check-node.cjs) are outside the TypeScript program.
  { files: ["**/*.js", "**/*.cjs"], extends: [tseslint.configs.disableTypeChecked] },
  // CommonJS on purpose (it must parse on any Node, before the version check): require() is its import.
  { files: ["**/*.cjs"], rules: { "@typescript-eslint/no-require-imports": "off" } },
]);
