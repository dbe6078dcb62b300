/**
 * A real TLS reverse proxy for tests: Debian's nginx (`apt-get install nginx-light`; .ci/run installs it)
 * on a free 127.0.0.1 port with a self-signed certificate made here, balancing round-robin over one or
 * more upstream servers and forwarding X-Forwarded-Proto/-For/-Host. Each answer names the upstream(s)
 * that were tried in `X-Test-Upstream` (nginx's `$upstream_addr`), and the access log records the same
 * per request, so a test can tell which replica served what. Tests skip where nginx is missing.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import tls from "node:tls";
import { freePort } from "./net.ts";

export const NGINX: string | undefined = ["/usr/sbin/nginx", "/usr/bin/nginx"].find((file) => fs.existsSync(file));

/** One line of the access log: when it was answered (ms since the epoch), the upstreams nginx tried in order
 * (the last one answered), the final status. */
export type ProxiedRequest = { at: number; upstreams: string[]; status: number; method: string; path: string };

export type NginxProxy = {
  /** https://127.0.0.1:PORT */
  url: string;
  /** The self-signed certificate (PEM), to trust as a CA. */
  cert: Buffer;
  /** Every request answered so far, from the access log. */
  requests(): ProxiedRequest[];
  stop(): Promise<void>;
};

async function waitForTls(port: number, child: ChildProcess, errorLog: string): Promise<void> {
  for (let i = 0; i < 100 && child.exitCode === null; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = tls.connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => (socket.destroy(), resolve(true)));
      socket.once("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nginx did not start:\n${fs.existsSync(errorLog) ? fs.readFileSync(errorLog, "utf8") : ""}`);
}

/**
 * nginx terminating TLS on 127.0.0.1 in front of `upstreams` (http://host:port each). With more than one,
 * a request whose connection an upstream refuses or drops goes to the next (nginx's default
 * `proxy_next_upstream error timeout`; non-idempotent requests only if nothing was sent yet), and an
 * upstream that failed is left out for 10 s.
 */
export async function startNginx(upstreams: string | string[]): Promise<NginxProxy> {
  if (!NGINX) throw new Error("nginx is not installed");
  const servers = ([] as string[]).concat(upstreams).map((upstream) => new URL(upstream).host);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-nginx-"));
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-keyout",
      path.join(dir, "key.pem"),
      "-out",
      path.join(dir, "cert.pem"),
    ],
    { stdio: "ignore" },
  );
  const port = await freePort();
  const temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((name) => `${name}_temp_path ${dir}/${name};`).join("\n  ");
  const accessLog = path.join(dir, "access.log");
  const errorLog = path.join(dir, "error.log");
  fs.writeFileSync(
    path.join(dir, "nginx.conf"),
    `daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${errorLog};
events { worker_connections 128; }
http {
  log_format upstreams '$msec\\t$upstream_addr\\t$status\\t$request_method\\t$uri';
  access_log ${accessLog} upstreams;
  ${temp}
  client_max_body_size 8m;
  upstream app {
    ${servers.map((server) => `server ${server} max_fails=1 fail_timeout=10s;`).join("\n    ")}
  }
  server {
    listen 127.0.0.1:${port} ssl;
    ssl_certificate ${dir}/cert.pem;
    ssl_certificate_key ${dir}/key.pem;
    location / {
      proxy_pass http://app;
      proxy_http_version 1.1;
      proxy_connect_timeout 2s;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      add_header X-Test-Upstream $upstream_addr always;
    }
  }
}
`,
  );
  const child: ChildProcess = spawn(NGINX, ["-p", dir, "-c", path.join(dir, "nginx.conf"), "-e", errorLog], { stdio: "ignore" });
  try {
    await waitForTls(port, child, errorLog);
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  return {
    url: `https://127.0.0.1:${port}`,
    cert: fs.readFileSync(path.join(dir, "cert.pem")),
    requests: () =>
      (fs.existsSync(accessLog) ? fs.readFileSync(accessLog, "utf8") : "")
        .split("\n")
        .filter(Boolean)
        .map((line) => {
          const [msec, upstreams, status, method, uri] = line.split("\t");
          return {
            at: Math.round(Number(msec) * 1000),
            upstreams: upstreams === "-" ? [] : upstreams.split(/[,:]\s+/).map((entry) => entry.trim()),
            status: Number(status),
            method,
            path: uri,
          };
        }),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
