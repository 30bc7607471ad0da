// SPDX-License-Identifier: Apache-2.0
// Runs YoWASP Yosys on the files of the current folder: `node yosys.mjs <yosys arguments>`.
// YoWASP works in a virtual file system, so the folder's files go in and the files Yosys
// writes or changes come back out. Exits with Yosys's status.
import { runYosys, Exit } from '@yowasp/yosys';
import fs from 'node:fs';

const inputs = {};
for (const name of fs.readdirSync('.')) {
  if (fs.statSync(name).isFile()) inputs[name] = new Uint8Array(fs.readFileSync(name));
}
let status = 0;
let tree;
try {
  tree = await runYosys(process.argv.slice(2), inputs, { decodeASCII: false });
} catch (e) {
  if (!(e instanceof Exit)) throw e;
  status = e.code;
  tree = e.files;
}
for (const [name, data] of Object.entries(tree ?? {})) {
  if (!(data instanceof Uint8Array)) continue; // folders: none are written here
  const before = inputs[name];
  if (!before || Buffer.compare(Buffer.from(before), Buffer.from(data)) !== 0) fs.writeFileSync(name, data);
}
process.exit(status);
