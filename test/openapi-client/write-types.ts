import { writeFile } from 'node:fs/promises';
import { CLIENT_TYPES_FILE, clientTypes, testDocument } from './generate.js';

/** `npm run openapi:types`: regenerates the committed client types after the route schemas change. */
await writeFile(CLIENT_TYPES_FILE, await clientTypes(await testDocument()));
process.stdout.write(`wrote ${CLIENT_TYPES_FILE}\n`);
