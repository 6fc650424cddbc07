// Precompresses what the server serves from dist/ (the files headers.json and
// examples/headers.json list, and any type declarations, *.d.ts): writes NAME.br (brotli) and NAME.gz (gzip)
// beside each file, when they are smaller. The Go server (embed.go) embeds them
// and sends the one the browser accepts; nothing is compressed per request.
// Run after build.mjs (npm run build does). Usage: node compress.mjs
import { readFile, readdir, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const dist = join(dirname(fileURLToPath(import.meta.url)), "dist");
const list = async (path, prefix) => Object.keys(JSON.parse(await readFile(join(dist, path), "utf8").catch(() => "{}"))).map((n) => prefix + n);
const listed = [...(await list("headers.json", "")), ...(await list("examples/headers.json", "examples/"))];
const declarations = (await readdir(dist, { recursive: true })).filter((n) => n.endsWith(".d.ts"));
const names = [...new Set([...listed, ...declarations])];

let before = 0;
let brotli = 0;
for (const name of names) {
  const path = join(dist, name);
  const body = await readFile(path);
  // Source maps are read only by developer tools: gzip, and no slow brotli pass.
  const br = name.endsWith(".map")
    ? body
    : brotliCompressSync(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        },
      });
  const gz = gzipSync(body, { level: 9 });
  if (br.length < body.length) await writeFile(`${path}.br`, br);
  if (gz.length < body.length) await writeFile(`${path}.gz`, gz);
  if (!name.endsWith(".map")) {
    before += body.length;
    brotli += Math.min(br.length, body.length);
  }
  if (relative(dist, path).startsWith("..")) throw new Error(`${name} is outside dist/`);
}
console.log(`compressed ${names.length} files: ${before} bytes of scripts and pages, ${brotli} with brotli`);
