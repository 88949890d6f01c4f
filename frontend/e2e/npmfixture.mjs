// An npm package packed from a fixture with the real `npm pack`, served by
// a minimal npm registry on 127.0.0.1 (its packument and its tarball), as
// acp/acptest's NPMRegistry serves the Go tests': the hub installs from
// it through config install.registry.
//
//   const reg = await fixtureRegistry(dir, { name, version, bin, delayMs });
//                  (delayMs: the packument answers that late, so an
//                  install's progress stays on screen long enough to see)
//   reg.url        http://127.0.0.1:<port>/ (install.registry)
//   reg.fetches()  the requests it served
//   reg.close()
//
// The package's program, bin/<bin>, runs the program named by
// FIXTURE_AGENT_BIN with its arguments (the scenario points it at the
// fake agent), like acptest.FixtureAgentPackage.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

export async function fixtureRegistry(dir, { name, version, bin, delayMs = 0 }) {
  const src = join(dir, `${name}-${version}-src`);
  mkdirSync(join(src, 'bin'), { recursive: true });
  writeFileSync(join(src, 'package.json'), JSON.stringify({ name, version, bin: { [bin]: `bin/${bin}` } }, null, 2));
  const prog = join(src, 'bin', bin);
  writeFileSync(prog, `#!/bin/sh\n# ${name} ${version}\nexec "$FIXTURE_AGENT_BIN" "$@"\n`);
  chmodSync(prog, 0o755);
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: src, encoding: 'utf8' });
  const tgz = readFileSync(join(dir, JSON.parse(out)[0].filename));
  const path = `/${name}/-/${name}-${version}.tgz`;
  let fetches = 0;
  const server = createServer(async (req, res) => {
    fetches++;
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    if (process.env.E2E_NPM_LOG) console.log("npm registry:", req.method, req.url);
    const url = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (url === path) {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      res.end(tgz);
    } else if (url === `/${name}`) {
      const base = `http://127.0.0.1:${server.address().port}`;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          name,
          'dist-tags': { latest: version },
          versions: {
            [version]: {
              name,
              version,
              bin: { [bin]: `bin/${bin}` },
              dist: {
                tarball: base + path,
                integrity: 'sha512-' + createHash('sha512').update(tgz).digest('base64'),
                shasum: createHash('sha1').update(tgz).digest('hex'),
              },
            },
          },
        }),
      );
    } else {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end('{"error":"Not found"}');
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    fetches: () => fetches,
    close: () => new Promise((r) => server.close(r)),
  };
}
