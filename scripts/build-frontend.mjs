// Builds PaperLab's browser bundle with esbuild's JS API.
//   static/src/main.js    -> static/dist/app.js  (+ lazily loaded chunks under static/dist/chunks/)
//   static/src/styles.css -> static/dist/app.css (+ KaTeX's fonts under static/dist/fonts/)
// Code splitting keeps CodeMirror (~400 kB) off the pages without an editor and KaTeX off pages without math.
// Usage: node scripts/build-frontend.mjs [--dev]   (--dev: no minification, for reading the output)
import { build } from "esbuild";
import { copyFile, mkdir, readdir, rm, stat } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { readFile } from "node:fs/promises";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "static", "src");
const dist = join(root, "static", "dist");
const minify = !process.argv.includes("--dev");

const common = {
  bundle: true,
  minify,
  sourcemap: true,
  logLevel: "warning",
  absWorkingDir: root,
  legalComments: "linked",
};

await rm(dist, { recursive: true, force: true });

await Promise.all([
  build({
    ...common,
    entryPoints: { app: join(src, "main.js") },
    outdir: dist,
    format: "esm",
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    // Browsers that run ES modules with dynamic import; keeps modern syntax unlowered.
    target: ["es2020", "chrome90", "firefox90", "safari15"],
  }),
  build({
    ...common,
    entryPoints: { app: join(src, "styles.css") },
    outdir: dist,
    // KaTeX's @font-face rules point at its fonts; copy them and rewrite the URLs under /static/dist/.
    loader: { ".woff2": "file", ".woff": "file", ".ttf": "file" },
    assetNames: "fonts/[name]-[hash]",
    publicPath: "/static/dist",
    target: ["chrome90", "firefox90", "safari15"],
  }),
]);

// Swagger UI for /docs, served by the app like everything else (its own prebuilt files plus our starter).
const swagger = join(dist, "swagger");
await mkdir(swagger, { recursive: true });
const swaggerDist = join(root, "node_modules", "swagger-ui-dist");
for (const name of ["swagger-ui-bundle.js", "swagger-ui.css"]) {
  await copyFile(join(swaggerDist, name), join(swagger, name));
}
await copyFile(join(src, "swagger-init.js"), join(swagger, "swagger-init.js"));
await copyFile(join(src, "swagger-overrides.css"), join(swagger, "swagger-overrides.css"));

// Report sizes, so a dependency that balloons the bundle shows up in the build log.
async function* walk(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
let fonts = 0;
for await (const path of walk(dist)) {
  if (path.endsWith(".map") || path.endsWith(".LEGAL.txt")) continue;
  if (path.includes(`${join("dist", "fonts")}`)) {
    fonts += (await stat(path)).size;
    continue;
  }
  const body = await readFile(path);
  console.log(`${relative(root, path).padEnd(44)} ${kib(body.length).padStart(10)}  (gzip ${kib(gzipSync(body).length)})`);
}
console.log(`${"static/dist/fonts/*".padEnd(44)} ${kib(fonts).padStart(10)}`);
