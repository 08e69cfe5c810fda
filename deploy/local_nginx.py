"""deploy/nginx.conf made runnable on this machine, for the tests and benches that put the
documented proxy in front of a server of their own: the same file with its upstream, port and
folders changed, and the real_ip lines that deploy/nginx-real-ip.sh writes, as docker-compose.yml
runs them. Its own port, folder, pid and logs: never the machine's nginx service.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

DEPLOY = Path(__file__).resolve().parent
NGINX = shutil.which("nginx") or next((path for path in ("/usr/sbin/nginx",) if Path(path).exists()), None)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LocalNginx:
    """`nginx -c <folder>/nginx.conf` in the foreground, in front of 127.0.0.1:`upstream_port`.
    `per_client_limits=False` drops limit_conn/limit_req (a bench's clients are all one address).
    Its folder is a new one in the system's temporary folder, which nginx's workers (`nobody` when
    it is started as root) can reach, unlike pytest's; stop() removes it."""

    def __init__(self, upstream_port: int, trusted_proxy_count: int, per_client_limits: bool = True):
        if NGINX is None:
            raise FileNotFoundError("nginx is not installed (apt-get install nginx-light)")
        self.work = Path(tempfile.mkdtemp(prefix="local-nginx-"))
        self.upstream_port = upstream_port
        self.trusted_proxy_count = trusted_proxy_count
        self.per_client_limits = per_client_limits
        self.port = free_port()
        self.client_temp = self.work / "client_temp"
        self.process: subprocess.Popen | None = None

    def write_config(self) -> Path:
        self.work.chmod(0o777)  # nginx's workers write their temporary files here
        changes = {
            "server web:8000;": f"server 127.0.0.1:{self.upstream_port};",
            "listen 80;": f"listen 127.0.0.1:{self.port};",
            "/var/cache/nginx/client_temp": str(self.client_temp),
            "http {": "http {\n    access_log off;\n" + "".join(
                f"    {kind}_temp_path {self.work / kind}_temp;\n" for kind in ("proxy", "fastcgi", "uwsgi", "scgi")),
        }
        if not self.per_client_limits:
            changes |= {"limit_conn per_address 20;": "", "limit_req zone=requests burst=100 nodelay;": ""}
        config = (DEPLOY / "nginx.conf").read_text()
        for old, new in changes.items():
            if old not in config:
                raise ValueError(f"deploy/nginx.conf no longer has {old!r}: update deploy/local_nginx.py")
            config = config.replace(old, new, 1)
        # warn: nginx says there when it buffers a request body to a temporary file.
        head = f"pid {self.work}/nginx.pid;\nerror_log {self.work}/error.log warn;\n"
        path = self.work / "nginx.conf"
        path.write_text(head + config)
        subprocess.run([str(DEPLOY / "nginx-real-ip.sh"), str(self.work / "real_ip.conf")], check=True,
                       env={"PATH": os.environ["PATH"], "TRUSTED_PROXY_COUNT": str(self.trusted_proxy_count)},
                       capture_output=True, text=True)
        return path

    def start(self, timeout: float = 20) -> int:
        config = self.write_config()
        self.process = subprocess.Popen([NGINX, "-c", str(config), "-g", "daemon off;"], stdout=subprocess.DEVNULL,
                                        stderr=(self.work / "stderr.log").open("w"))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"nginx did not start:\n{self.log()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self.port
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"nginx did not listen within {timeout} s:\n{self.log()}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()  # the master stops its workers
            self.process.wait(20)
        shutil.rmtree(self.work, ignore_errors=True)

    def log(self) -> str:
        return "".join(path.read_text() for path in (self.work / "stderr.log", self.work / "error.log") if path.exists())

    def body_bytes_on_disk(self) -> int:
        """Request-body bytes nginx holds on disk now. Its temporary files are deleted as soon as
        they are opened, so they are found through its workers' open descriptors."""
        total = 0
        for pid in self.worker_pids():
            for descriptor in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(descriptor).startswith(str(self.client_temp)):
                        total += descriptor.stat().st_size
        return total

    def worker_pids(self) -> list[int]:
        pids = []
        for entry in Path("/proc").iterdir():
            with contextlib.suppress(OSError, IndexError, ValueError):
                if entry.name.isdigit() and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == (
                        self.process.pid):
                    pids.append(int(entry.name))
        return pids
