/**
 * Fails when a line of code in src/, test/, web/, bench/ or scripts/ is longer than 140 characters
 * (`npm run lint`). Biome formats code at 140 columns but leaves long strings, template literals
 * and comments as they are; this catches those. Markdown is left out: a table row cannot wrap.
 */
import { globSync, readFileSync } from 'node:fs';

const MAX_LINE_LENGTH = 140;
const CODE_FILES = '{src,test,web,bench,scripts}/**/*.{ts,tsx,js,mjs,cjs,css,sh,json,html}';
const FROZEN = [
  // The published loaders: the exact bytes served, minified.
  'web/loader/published/**',
  // The source of loader v2.0.0, which must build to those bytes (src/embed/routes.test.ts): its CSS
  // lines are in the published loader as they are, so a new loader version wraps them.
  'web/loader/loader.ts',
  // Written by openapi-typescript (npm run openapi:types) from the OpenAPI document's descriptions.
  'test/openapi-client/api.d.ts',
];

const tooLong = globSync(CODE_FILES, { exclude: FROZEN }).flatMap((file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line, index) => {
      const length = [...line].length;
      return length > MAX_LINE_LENGTH ? [`${file}:${index + 1}: ${length} characters`] : [];
    }),
);

if (tooLong.length > 0) {
  process.stderr.write(`${tooLong.join('\n')}\nLines longer than ${MAX_LINE_LENGTH} characters: ${tooLong.length}. Wrap them.\n`);
  process.exit(1);
}
