"""Serve the lab from K replicas behind nginx, all on loopback, from files in this repository.

    python deploy/serve.py --replicas 2 --port 8080

Starts K ``streamlit run streamlit_app.py`` processes on 127.0.0.1 (ports ``--first-port``,
``--first-port + 1``, ...), waits until each answers ``/_stcore/health``, then starts Debian's
nginx in the foreground with the configuration ``deploy/nginx.conf.template`` filled in
(its own prefix in a temporary directory: pid file, logs, cache; nothing under /etc/nginx is
read or changed). Open ``http://127.0.0.1:PORT``. Ctrl-C (or SIGTERM) stops nginx and the
replicas and removes the temporary directory.

A replica holds its sessions in memory: nginx sends every request of one browser to the same
replica (a route cookie, hashed consistently); when a replica dies, its browsers reconnect
and land on a live one, which rebuilds each view from the link's query string.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = Path(__file__).resolve().parent / "nginx.conf.template"
NGINX = os.environ.get("PEKIT_NGINX", "/usr/sbin/nginx")
_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def nginx_missing_reason() -> str | None:
    """Why replicas behind nginx cannot run here, or None when they can."""
    if not (Path(NGINX).exists() or shutil.which(NGINX)):
        return f"nginx not found at {NGINX} (install Debian's 'nginx' package or set PEKIT_NGINX)"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthy(url: str, timeout: float = 2.0) -> bool:
    with contextlib.suppress(OSError, urllib.error.URLError):
        with _NO_PROXY.open(f"{url}/_stcore/health", timeout=timeout) as r:
            return r.status == 200
    return False


def render_config(prefix: Path, listen_port: int, replica_ports: list[int], *, max_fails: int = 1,
                  fail_timeout: int = 10) -> str:
    servers = "\n".join(f"        server 127.0.0.1:{p} max_fails={max_fails} fail_timeout={fail_timeout}s;"
                        for p in replica_ports)
    user = "user nobody nogroup;" if os.geteuid() == 0 else "# (not root: nginx runs as the current user)"
    text = TEMPLATE.read_text()
    for key, value in {"@USER@": user, "@PREFIX@": str(prefix), "@SERVERS@": servers,
                       "@LISTEN@": f"127.0.0.1:{listen_port}"}.items():
        text = text.replace(key, value)
    return text


class Deployment:
    """K replicas and nginx for the length of a ``with`` block."""

    def __init__(self, replicas: int = 2, *, port: int | None = None, first_port: int | None = None,
                 env: dict[str, str] | None = None, timeout: float = 120.0, quiet: bool = True):
        if replicas < 1:
            raise ValueError(f"replicas must be at least 1, got {replicas}")
        reason = nginx_missing_reason()
        if reason:
            raise RuntimeError(reason)
        self.port = port or free_port()
        self.replica_ports = ([first_port + i for i in range(replicas)] if first_port
                              else [free_port() for _ in range(replicas)])
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, "PEKIT_THREADS": "1", **(env or {})}
        self.timeout = timeout
        self.quiet = quiet
        self.replicas: list[subprocess.Popen] = []
        self.nginx: subprocess.Popen | None = None
        self.prefix: Path | None = None
        self.stopped: list[int] = []

    def _start_replica(self, port: int) -> subprocess.Popen:
        cmd = [sys.executable, "-m", "streamlit", "run", "streamlit_app.py", "--server.port", str(port),
               "--server.address", "127.0.0.1", "--server.headless", "true"]
        out = subprocess.DEVNULL if self.quiet else None
        return subprocess.Popen(cmd, cwd=ROOT, env=self.env, stdout=out, stderr=out)

    def _wait(self, url: str, proc: subprocess.Popen, what: str) -> None:
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"{what} exited early (status {proc.returncode})")
            if healthy(url):
                return
            time.sleep(0.2)
        raise RuntimeError(f"{what} did not answer {url}/_stcore/health within {self.timeout:g} s")

    def __enter__(self) -> Deployment:
        try:
            self.replicas = [self._start_replica(p) for p in self.replica_ports]
            for port, proc in zip(self.replica_ports, self.replicas):
                self._wait(f"http://127.0.0.1:{port}", proc, f"replica on port {port}")
            self.prefix = Path(tempfile.mkdtemp(prefix="pekit-nginx-"))
            self.prefix.chmod(0o755)  # nginx's workers (user nobody when started as root) use tmp/ and cache/
            (self.prefix / "tmp").mkdir()
            conf = self.prefix / "nginx.conf"
            conf.write_text(render_config(self.prefix, self.port, self.replica_ports))
            cmd = [NGINX, "-p", str(self.prefix), "-e", str(self.prefix / "error.log"), "-c", str(conf)]
            check = subprocess.run([*cmd, "-t", "-q"], capture_output=True, text=True)
            if check.returncode:
                raise RuntimeError(f"nginx rejected the configuration:\n{check.stderr}")
            self.nginx = subprocess.Popen([*cmd, "-g", "daemon off;"], stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE, text=True)
            self._wait(self.url, self.nginx, "nginx")
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    @property
    def replica_urls(self) -> list[str]:
        return [f"http://127.0.0.1:{port}" for port in self.replica_ports]

    def pids(self) -> dict[str, int]:
        """Processes to watch: each replica (named by its address) and nginx."""
        out = {f"replica@127.0.0.1:{port}": proc.pid for port, proc in zip(self.replica_ports, self.replicas)}
        if self.nginx is not None:
            out["nginx"] = self.nginx.pid
        return out

    def stop_one(self, index: int = 0, sig: int = signal.SIGKILL) -> str:
        """Stop replica ``index`` abruptly (a crash; SIGTERM for an orderly stop)."""
        proc = self.replicas[index]
        proc.send_signal(sig)
        proc.wait(timeout=30)
        self.stopped.append(index)
        return f"replica@127.0.0.1:{self.replica_ports[index]}"

    def stop_busiest(self, servers: list[str]) -> str:
        """Stop the replica that most of ``servers`` (each attendee's 'host:port') are on."""
        counts = [servers.count(f"127.0.0.1:{port}") for port in self.replica_ports]
        live = [i for i in range(len(self.replicas)) if i not in self.stopped]
        return self.stop_one(max(live, key=lambda i: counts[i]))

    def __exit__(self, *exc) -> None:
        if self.nginx is not None and self.nginx.poll() is None:
            self.nginx.send_signal(signal.SIGQUIT)  # graceful: finish open requests, then exit
            try:
                self.nginx.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.nginx.kill()
                self.nginx.wait()
        for proc in self.replicas:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.replicas:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self.prefix is not None:
            shutil.rmtree(self.prefix, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicas", type=int, default=2, help="Streamlit processes (about one per core)")
    parser.add_argument("--port", type=int, default=8080, help="nginx listens on 127.0.0.1:PORT")
    parser.add_argument("--first-port", type=int, default=8601, help="replica i listens on FIRST_PORT + i")
    parser.add_argument("--print-config", action="store_true", help="print the nginx configuration and exit")
    args = parser.parse_args(argv)
    if args.print_config:
        print(render_config(Path("/tmp/pekit-nginx"), args.port,
                            [args.first_port + i for i in range(args.replicas)]))
        return 0
    stop = {"now": False}
    for sig in (signal.SIGTERM, signal.SIGINT):  # SIGINT too: a shell's background job ignores it otherwise
        signal.signal(sig, lambda *_: stop.update(now=True))
    with Deployment(args.replicas, port=args.port, first_port=args.first_port, quiet=False) as dep:
        print(f"serving {dep.url} from {args.replicas} replica(s) on ports "
              f"{', '.join(map(str, dep.replica_ports))}; Ctrl-C stops", flush=True)
        while not stop["now"]:
            time.sleep(0.5)
            dead = [p for p, proc in zip(dep.replica_ports, dep.replicas) if proc.poll() is not None]
            if dead and len(dead) == len(dep.replicas):
                print("every replica has exited", file=sys.stderr)
                return 1
        print("stopping nginx and the replicas", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
