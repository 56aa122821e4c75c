"""Try deploy/nginx.conf on this machine: two app processes, nginx in front, and checks that a
visitor's session works through it, stays on one process, and can upload (XSRF token included).

    .venv/bin/python deploy/try_nginx.py                 # ~1-2 minutes; needs nginx (apt-get install nginx)
    .venv/bin/python deploy/try_nginx.py --visitors 40 --no-browser

Everything is local: the app processes and nginx listen on 127.0.0.1 (free ports), nginx runs from a
temporary directory with deploy/nginx.conf included verbatim except its three addresses (the two
backends and `listen`), and the whole run is bounded by --max-seconds. Not part of the test suite
(CI does not need nginx).

Checks, each printed as PASS or FAIL, then one JSON line:
  1. websocket visitors (benchmarks/st_client.py) through nginx, each with the cookie nginx gave it
     on its first page load: every one sees its own text after each edit, no exception; each opens a
     second websocket later (a reconnect), which must reach the same process;
  2. nginx's log: every visitor's requests (page, websockets) went to ONE backend, and visitors were
     spread over both;
  3. a Chromium page through nginx uploads a text file in the BPE Lab and trains on it; all its
     requests went to one backend;
  4. that upload's PUT, replayed: without the X-Xsrftoken header -> 403; straight to the OTHER
     backend -> 400 (its session is not there: why stickiness is needed); a ~20 MB file passes
     nginx's client_max_body_size, a 22 MB one gets 413 from nginx.
  5. with --load N: benchmarks/visitors.py's light visitors (N at once, an edit every ~3 s each)
     through nginx onto the two processes, against one visitor alone: median and p90 rerun time and
     each process's CPU (not a pass/fail check: a figure for the README).
"""

from __future__ import annotations

import argparse
import asyncio
import http.cookiejar
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from st_client import Visitor  # noqa: E402
from visitors import Server, concurrent, cpu_seconds, distinct_text, single, warm  # noqa: E402

CONF = ROOT / "deploy" / "nginx.conf"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
results: list[tuple[str, bool, str]] = []


def check(name: str, ok: bool, detail: str = "") -> bool:
    results.append((name, bool(ok), detail))
    print(f"{'PASS' if ok else 'FAIL'}  {name}" + (f"  ({detail})" if detail else ""), flush=True)
    return ok


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def site_conf(conf: Path, backends: list[int], listen: int) -> str:
    """deploy/nginx.conf (or --conf) with its addresses replaced, nothing else."""
    text = conf.read_text(encoding="utf-8")
    for old, new in (("server 127.0.0.1:8501;", f"server 127.0.0.1:{backends[0]};"),
                     ("server 127.0.0.1:8502;", f"server 127.0.0.1:{backends[1]};"),
                     ("listen 8080;", f"listen 127.0.0.1:{listen};")):
        if text.count(old) != 1:
            raise SystemExit(f"{conf} does not hold exactly one `{old}`: update this script")
        text = text.replace(old, new)
    return text


MAIN_CONF = """daemon off;
worker_processes 1;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    # the affinity key (the visitor's cookie, or on its first request the id its cookie gets) and
    # the backend that answered, for every request and websocket
    log_format trial '$token_lens_affinity $upstream_addr $status $request_method $uri';
    access_log {tmp}/access.log trial;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    include {tmp}/token-lens.conf;
}}
"""


class Nginx:
    def __init__(self, nginx: str, backends: list[int], site: Path = CONF):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.tmp = Path(tempfile.mkdtemp(prefix="token-lens-nginx-"))
        (self.tmp / "token-lens.conf").write_text(site_conf(site, backends, self.port), encoding="utf-8")
        conf = self.tmp / "nginx.conf"
        conf.write_text(MAIN_CONF.format(tmp=self.tmp), encoding="utf-8")
        test = subprocess.run([nginx, "-t", "-p", str(self.tmp), "-c", str(conf)], capture_output=True, text=True)
        if test.returncode != 0:
            raise SystemExit(f"nginx -t failed:\n{test.stderr}")
        self.proc = subprocess.Popen([nginx, "-p", str(self.tmp), "-c", str(conf)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    break
            except OSError:
                if time.time() > deadline or self.proc.poll() is not None:
                    raise SystemExit(f"nginx did not start; see {self.tmp}/error.log")
                time.sleep(0.1)

    def log(self) -> list[list[str]]:
        path = self.tmp / "access.log"
        return [line.split(" ", 4) for line in path.read_text().splitlines()] if path.exists() else []

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGQUIT)  # graceful: finishes and flushes the log
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def first_load(url: str) -> str:
    """GET the page as a browser's first visit does; the affinity cookie nginx set."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(url + "/", timeout=30) as r:
        r.read()
    got = {c.name: c.value for c in jar}
    return got.get("tl_backend", "")


async def ws_visitor(url: str, k: int, edits: int, out: dict) -> None:
    cookie = await asyncio.to_thread(first_load, url)
    rec = out[k] = {"cookie": cookie, "errors": [], "own_text_shown": 0, "edits": 0}
    headers = {"Cookie": f"tl_backend={cookie}"} if cookie else {}
    try:
        for visit in range(2):  # the second websocket: a reconnect, which must find the same process
            async with Visitor(url, query={"text": distinct_text(k * 100 + visit * 50, 300)}, headers=headers) as v:
                rec["errors"] += v.last.exceptions
                for e in range(edits):
                    await asyncio.sleep(0.2)
                    seed = k * 100 + visit * 50 + e + 1
                    run = await v.type_text(distinct_text(seed, 300))
                    rec["edits"] += 1
                    rec["errors"] += run.exceptions
                    rec["own_text_shown"] += f"%23{seed}+" in run.query_string
            await asyncio.sleep(0.3)
    except Exception as e:  # counted, not fatal to the others
        rec["errors"].append(f"{type(e).__name__}: {e}")


async def ws_visitors(url: str, n: int, edits: int) -> dict:
    out: dict = {}
    await asyncio.gather(*(ws_visitor(url, k, edits, out) for k in range(n)))
    return out


def backends_by_key(log: list[list[str]]) -> dict[str, set[str]]:
    by = defaultdict(set)
    for key, upstream, *_ in log:
        if upstream != "-":
            by[key].add(upstream)
    return by


def put(url: str, body: bytes, headers: dict) -> int:
    req = urllib.request.Request(url, data=body, method="PUT", headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def multipart(name: str, data: bytes) -> tuple[bytes, str]:
    boundary = "----tokenlens" + secrets.token_hex(8)
    head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
            "Content-Type: text/plain\r\n\r\n").encode()
    return head + data + f"\r\n--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def browser_upload(url: str, tmp: Path, backend_urls: dict[str, str], log_of) -> dict:
    from playwright.sync_api import sync_playwright

    corpus = tmp / "class-notes.txt"
    corpus.write_text("the students tokenized the text and the tokens were counted " * 40, encoding="utf-8")
    info: dict = {}
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                              args=["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                    "--disable-background-networking", "--disable-dev-shm-usage"])
        ctx = b.new_context(viewport={"width": 1280, "height": 1200})
        page = ctx.new_page()
        puts: list = []
        page.on("request", lambda r: puts.append(r) if r.method == "PUT" and "/_stcore/upload_file/" in r.url else None)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url + "/bpe-lab")
        page.get_by_text("Upload a file").click()
        page.locator("input[type=file]").first.wait_for(state="attached", timeout=60_000)
        page.wait_for_timeout(500)
        page.locator("input[type=file]").first.set_input_files(str(corpus))
        page.get_by_text("class-notes.txt").first.wait_for(timeout=60_000)
        page.get_by_text(f"{len(corpus.read_text()):,} characters").first.wait_for(timeout=60_000)
        page.get_by_role("button", name="Train").click()
        page.get_by_text("Learned").first.wait_for(timeout=60_000)
        info["trained"] = True
        info["exceptions_shown"] = page.locator("[data-testid='stException']").count()
        info["page_errors"] = errors
        cookies = {c["name"]: c["value"] for c in ctx.cookies()}
        info["cookie"] = cookies.get("tl_backend", "")
        xsrf = cookies.get("_streamlit_xsrf", "")
        info["upload_status"] = puts[0].response().status if puts else None
        if puts:
            up = puts[0]
            path = up.url.split("://", 1)[1].split("/", 1)[1]
            token = up.headers.get("x-xsrftoken", "")
            info["put_had_xsrf_header"] = bool(token)
            cookie_header = f"tl_backend={info['cookie']}; _streamlit_xsrf={xsrf}"
            body, ctype = multipart("again.txt", b"hello again")
            with_token = {"Content-Type": ctype, "Cookie": cookie_header, "X-Xsrftoken": token}
            no_token = {"Content-Type": ctype, "Cookie": cookie_header}
            info["replay_through_nginx"] = put(f"{url}/{path}", body, with_token)
            info["replay_without_xsrf"] = put(f"{url}/{path}", body, no_token)
            served = log_of(info["cookie"])
            info["browser_backends"] = sorted(served)
            other = [u for a, u in backend_urls.items() if a not in served]
            info["replay_other_backend"] = put(f"{other[0]}/{path}", body, with_token) if len(other) == 1 else None
            big, ctype_big = multipart("big.txt", b"a" * (20 * 1024 * 1024 - 4096))
            info["put_20mb_through_nginx"] = put(f"{url}/{path}", big, {**with_token, "Content-Type": ctype_big})
            huge, ctype_huge = multipart("huge.txt", b"a" * (22 * 1024 * 1024))
            info["put_22mb_through_nginx"] = put(f"{url}/{path}", huge, {**with_token, "Content-Type": ctype_huge})
        ctx.close()
        b.close()
    return info


async def load(url: str, servers: list, n: int) -> dict:
    await warm(url)
    load_at_start = os.getloadavg()[0]  # other work on the machine's cores
    alone = await single(url, 10, 0.5, 1000)
    cpu0, t0 = [cpu_seconds(s.pid) for s in servers], time.perf_counter()
    c = await concurrent(url, servers[0].pid, n, 10, 3.0, 1000)
    wall = time.perf_counter() - t0
    busy = [(cpu_seconds(s.pid) - c0) / wall for s, c0 in zip(servers, cpu0)]
    return {"visitors": n, "single_median_s": alone["median_s"], "median_s": c["median_s"], "p90_s": c["p90_s"],
            "max_s": c["max_s"], "ratio_median": c["median_s"] / alone["median_s"], "reruns": c["reruns"],
            "n_errors": c["n_errors"], "errors": c["errors"][:5], "cores_busy_per_process": busy,
            "load_at_start": load_at_start, "load_at_end": os.getloadavg()[0]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--visitors", type=int, default=20)
    ap.add_argument("--edits", type=int, default=3)
    ap.add_argument("--no-browser", action="store_true", help="skip the Chromium upload check")
    ap.add_argument("--max-seconds", type=float, default=300)
    ap.add_argument("--load", type=int, default=0, help="also measure N light visitors through nginx (≤ 200)")
    ap.add_argument("--conf", type=Path, default=CONF, help="the site file to try (default: deploy/nginx.conf)")
    args = ap.parse_args()
    if not 1 <= args.visitors <= 100 or not 1 <= args.edits <= 20 or not 0 <= args.load <= 200:
        ap.error("bounded: --visitors 1..100, --edits 1..20, --load 0..200")
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if nginx is None:
        raise SystemExit("no nginx on this machine (Debian: apt-get install nginx)")
    signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(TimeoutError("--max-seconds reached")))
    signal.alarm(int(args.max_seconds))

    t0 = time.time()
    # one cookie secret for all processes, as in production (signed cookies then verify anywhere)
    os.environ.setdefault("STREAMLIT_SERVER_COOKIE_SECRET", secrets.token_hex(32))
    servers, front = [], None
    out: dict = {"conf": str(args.conf), "visitors": args.visitors, "edits_per_websocket": args.edits}
    try:
        servers = [Server(ROOT), Server(ROOT)]
        backend_urls = {f"127.0.0.1:{s.port}": s.url for s in servers}
        front = Nginx(nginx, [s.port for s in servers], args.conf)
        out["nginx"] = front.url
        out["backends"] = sorted(backend_urls)
        print(f"nginx {front.url} -> {', '.join(sorted(backend_urls))}  (config in {front.tmp})", flush=True)

        # 1. websocket visitors
        recs = asyncio.run(ws_visitors(front.url, args.visitors, args.edits))
        edits = sum(r["edits"] for r in recs.values())
        shown = sum(r["own_text_shown"] for r in recs.values())
        errors = [e for r in recs.values() for e in r["errors"]]
        check("every visitor got an affinity cookie on its first page load", all(r["cookie"] for r in recs.values()))
        check("websocket sessions through nginx: each edit shows the visitor's own text",
              edits == shown == 2 * args.visitors * args.edits and not errors,
              f"{shown} of {edits} edits, {len(errors)} errors" + (f": {errors[:3]}" if errors else ""))
        time.sleep(1)
        by = backends_by_key(front.log())
        per = {k: by.get(r["cookie"], set()) for k, r in recs.items()}
        ws_lines = [row for row in front.log() if row[-1].endswith("/_stcore/stream")]
        check("each visitor's page load and both its websockets reached ONE backend",
              all(len(v) == 1 for v in per.values()) and len(ws_lines) >= 2 * args.visitors,
              f"{len(ws_lines)} websockets logged")
        spread = defaultdict(int)
        for v in per.values():
            for a in v:
                spread[a] += 1
        check("visitors spread over both backends", len(spread) == 2, dict(spread).__repr__())
        out["websocket"] = {"edits": edits, "own_text_shown": shown, "errors": errors[:10],
                            "visitors_per_backend": dict(spread)}

        # 2. a browser uploads through nginx
        if not args.no_browser:
            info = browser_upload(front.url, front.tmp, backend_urls,
                                  lambda cookie: backends_by_key(front.log()).get(cookie, set()))
            out["browser"] = info
            check("Chromium through nginx: text file uploaded in the BPE Lab (XSRF header sent) and trained on",
                  info.get("trained") and info.get("upload_status") in (200, 204) and info.get("put_had_xsrf_header")
                  and not info["exceptions_shown"] and not info["page_errors"],
                  f"upload PUT answered {info.get('upload_status')}")
            check("all the browser's requests reached one backend", len(info.get("browser_backends", [])) == 1,
                  ", ".join(info.get("browser_backends", [])))
            check("the upload replayed through nginx with its XSRF token is accepted",
                  info.get("replay_through_nginx") in (200, 204), str(info.get("replay_through_nginx")))
            check("without the X-Xsrftoken header it is refused (403)", info.get("replay_without_xsrf") == 403,
                  str(info.get("replay_without_xsrf")))
            check("sent to the other backend it is refused (400: the session lives on the first one)",
                  info.get("replay_other_backend") == 400, str(info.get("replay_other_backend")))
            check("a file just under 20 MB passes nginx (client_max_body_size 21m)",
                  info.get("put_20mb_through_nginx") in (200, 204), str(info.get("put_20mb_through_nginx")))
            check("22 MB is stopped by nginx (413)", info.get("put_22mb_through_nginx") == 413,
                  str(info.get("put_22mb_through_nginx")))

        # 3. load through nginx over both processes (a figure, not a check)
        if args.load:
            out["load"] = asyncio.run(load(front.url, servers, args.load))
            ld = out["load"]
            print(f"load: {args.load} visitors through nginx: median {ld['median_s'] * 1000:.0f} ms, "
                  f"p90 {ld['p90_s'] * 1000:.0f} ms (alone: {ld['single_median_s'] * 1000:.0f} ms, ratio "
                  f"{ld['ratio_median']:.2f}), {ld['n_errors']} errors, processes busy "
                  f"{', '.join(f'{c:.2f}' for c in ld['cores_busy_per_process'])} cores", flush=True)
    finally:
        signal.alarm(0)
        if front is not None:
            front.stop()
        for s in servers:
            s.stop()
    out["seconds"] = round(time.time() - t0, 1)
    out["checks"] = [{"check": n, "ok": ok, "detail": d} for n, ok, d in results]
    out["all_passed"] = all(ok for _, ok, _ in results)
    print(json.dumps(out))
    sys.exit(0 if out["all_passed"] else 1)


if __name__ == "__main__":
    main()
