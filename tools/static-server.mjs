// A small static file server for dist/: used by tools/serve.sh and by the browser tests.
// Node built-ins only. Serves `root` under the URL prefix `mount` (e.g. "/lab-wiki/hsi/")
// and answers 404 everywhere else, so a page that asks for an absolute asset path fails.
//
//   node tools/static-server.mjs DIR [PORT] [MOUNT]

import { createReadStream } from "node:fs";
import { readFile, readdir, stat } from "node:fs/promises";
import { createServer } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const CONTENT_TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  // WebAssembly.instantiateStreaming refuses any other type.
  ".wasm": "application/wasm",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
};

/** Maps a request path to a file under `root`, or null when it is outside `mount`/`root`. */
function resolveFile(root, mount, urlPath) {
  if (!urlPath.startsWith(mount)) return null;
  const relative = decodeURIComponent(urlPath.slice(mount.length));
  const file = path.resolve(root, relative);
  if (file !== root && !file.startsWith(root + path.sep)) return null;
  return file;
}

/**
 * Starts serving `root` at http://host:port/mount. Port 0 picks a free port. With `gzip`,
 * answers a client that accepts it with gzip-compressed bodies, as web servers do (the
 * load benchmark's slow link would otherwise carry the wasm uncompressed). The files are
 * compressed once, at start, as a server of precompressed files (or one that caches what
 * it compressed) does: compressing the 0.9 MB wasm at level 9 takes ~30 ms, which would
 * otherwise delay every load the benchmark times.
 * Resolves to { origin, url, close } where `url` is the page's address.
 */
export async function startStaticServer({ root, mount = "/", host = "127.0.0.1", port = 0, gzip = false }) {
  if (!mount.startsWith("/") || !mount.endsWith("/")) {
    throw new Error(`mount must start and end with "/", got ${JSON.stringify(mount)}`);
  }
  const rootDir = path.resolve(root);
  /** Compressed bodies by file path, with the modification time they were made from. */
  const compressed = new Map();
  const gzipped = async (file) => {
    const { mtimeMs } = await stat(file);
    if (compressed.get(file)?.mtimeMs !== mtimeMs) {
      compressed.set(file, { mtimeMs, body: gzipSync(await readFile(file), { level: 9 }) });
    }
    return compressed.get(file).body;
  };
  if (gzip) {
    for (const entry of await readdir(rootDir, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) await gzipped(path.join(entry.parentPath ?? entry.path, entry.name));
    }
  }
  const server = createServer(async (request, response) => {
    const urlPath = new URL(request.url, "http://localhost").pathname;
    // Like most web servers: ".../hsi" redirects to ".../hsi/" so relative URLs resolve.
    if (urlPath === mount.slice(0, -1)) {
      response.writeHead(301, { Location: mount }).end();
      return;
    }
    let file = resolveFile(rootDir, mount, urlPath);
    try {
      if (file && (await stat(file)).isDirectory()) file = path.join(file, "index.html");
      if (!file || !(await stat(file)).isFile()) throw new Error("not a file");
    } catch {
      response.writeHead(404, { "Content-Type": "text/plain" }).end(`not found: ${urlPath}\n`);
      return;
    }
    const headers = {
      "Content-Type": CONTENT_TYPES[path.extname(file)] ?? "application/octet-stream",
      "Cache-Control": "no-store",
    };
    if (gzip && /\bgzip\b/.test(request.headers["accept-encoding"] ?? "")) {
      const body = await gzipped(file);
      response.writeHead(200, { ...headers, "Content-Encoding": "gzip", "Content-Length": body.length });
      response.end(body);
      return;
    }
    response.writeHead(200, headers);
    createReadStream(file).pipe(response);
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  const origin = `http://${host}:${server.address().port}`;
  return {
    origin,
    url: origin + mount,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [root, port = "8080", mount = "/"] = process.argv.slice(2);
  if (!root) {
    console.error("usage: node tools/static-server.mjs DIR [PORT] [MOUNT]");
    process.exit(2);
  }
  const server = await startStaticServer({ root, mount, port: Number(port) });
  console.log(`Serving ${path.resolve(root)} at ${server.url} (Ctrl-C to stop)`);
}
