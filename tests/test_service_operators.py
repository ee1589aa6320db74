"""``tawla serve`` as an operator runs it: it says where it listens (port 0 included), writes
an access log at ``--log-level info`` and none at ``warning``, stops on SIGTERM with a socket
open, and the README's curl lines work as written against it."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")
pytest.importorskip("prometheus_client")

from service_helpers import Server, ws_connect  # noqa: E402

README = Path(__file__).resolve().parents[1] / "README.md"


class Output:
    """A process's stdout read as it comes (raw reads: no buffer hides a line from select)."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.fd = proc.stdout.fileno()
        self.text = ""

    def until(self, needle: str, limit: int = 200) -> str:
        """The output up to the first line holding ``needle`` (at most ``limit`` reads, each
        waited for at most 30 s)."""
        for _ in range(limit):
            if needle in self.text:
                return self.text
            ready, _, _ = select.select([self.fd], [], [], 30)
            chunk = os.read(self.fd, 65536) if ready else b""
            if not chunk:
                break
            self.text += chunk.decode(errors="replace")
        if needle in self.text:
            return self.text
        raise AssertionError(f"no {needle!r} in {self.text!r}")

    def rest(self) -> str:
        while True:
            chunk = os.read(self.fd, 65536)
            if not chunk:
                return self.text
            self.text += chunk.decode(errors="replace")


@pytest.mark.parametrize("level", ["info", "warning"])
def test_serve_says_where_it_listens_logs_and_stops_on_sigterm(tmp_path, level):
    proc = subprocess.Popen([sys.executable, "-m", "tawla", "serve", "--port", "0", "--log-level", level,
                             "--db", f"sqlite:///{tmp_path / 'ops.db'}"], cwd=tmp_path, env=dict(os.environ),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = Output(proc)
    try:
        first = out.until("listening on")
        url = re.search(r"http://127\.0\.0\.1:(\d+)", first)
        assert url is not None and int(url.group(1)) > 0, first
        server = Server("", None)
        server.port = int(url.group(1))
        with httpx.Client(base_url=server.url, timeout=30) as c:
            assert c.get("/v1/health").status_code == 200  # connections wait for the start
            r = c.post("/v1/rooms", json={"ruleset": "adi"})
            code, token = r.json()["code"], r.json()["token"]
            if level == "info":
                out.until('"GET /v1/health HTTP/1.1" 200')
            with ws_connect(server, code, token) as ws:
                ws.recv(timeout=10)
                proc.send_signal(signal.SIGTERM)
                # uvicorn shuts down, then ends the process by the signal it caught
                assert proc.wait(timeout=30) in (0, -signal.SIGTERM)
        rest = out.rest()
        if level == "warning":
            assert "/v1/health" not in rest and "GET" not in rest
        else:
            assert "Application shutdown complete" in rest
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)


@pytest.mark.skipif(not Path("/usr/bin/curl").exists() and not Path("/bin/curl").exists(), reason="no curl")
def test_the_readme_curl_lines_work_as_written(tmp_path):
    text = README.read_text(encoding="utf-8")
    block = text[text.index("## Serving games"):]
    block = block[block.index("```bash\n") + 8:]
    block = block[:block.index("```")]
    lines = [ln for ln in block.splitlines() if not ln.startswith(("pip install", "tawla serve", "#"))]
    s = Server(f"sqlite:///{tmp_path / 'readme.db'}", cwd=str(tmp_path)).start()
    try:
        script = "set -eu\n" + "\n".join(lines).replace("localhost:8000", f"127.0.0.1:{s.port}") + "\n"
        r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    finally:
        s.stop()
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert '"code"' in out and '"level":"ply1"' in out and '"moves"' in out and "tawla_actions_total" in out
    assert '"error"' not in out, out[-2000:]
