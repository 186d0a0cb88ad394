#!/usr/bin/env python3
"""Opens a local HTML page in headless Chromium and reports what happened, as one JSON object.

    browser_check.py PAGE.html [--screenshot OUT.png [--viewport-only]] [--facts-js FILE] [--ready-js EXPR]
                     [--width 1400] [--height 900] [--timeout 90]

Speaks the Chrome DevTools Protocol over --remote-debugging-pipe (NUL-separated JSON on fd 3 to
the browser, fd 4 from it, as Puppeteer's `pipe: true`), so it needs only the standard library.
Chromium is $CHROMIUM, else the first of CANDIDATES on PATH.

The page is ready once --ready-js evaluates to exactly true, polled every 100 ms for up to
--timeout seconds from launch; a page that never gets there is still reported ("ready": false).
--facts-js, the screenshot and closing get GRACE seconds more. Line numbers are 1-based.

Prints {"url", "ready", "console", "exceptions", "log", "requests", "failed_requests", "facts",
"facts_error", "screenshot", "chromium"} and exits 0 whenever the page was opened and reported:
the caller judges what the page did. Exit 2: bad arguments; 3: no Chromium; 4: the browser could
not be driven (crash, protocol error, deadline), with one line on stderr.
"""

import argparse, base64, fcntl, json, os, select, shutil, signal, subprocess, sys, tempfile, time
from contextlib import suppress
from pathlib import Path

CANDIDATES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]
GRACE = 30  # seconds after the ready wait for facts, screenshot and close
MAX_SHOT_HEIGHT = 16000  # Chromium's textures give out somewhere above this


class Fail(Exception):
    """The browser could not be driven; the message becomes the exit-4 stderr line."""


class Cdp:
    """One CDP connection over a pair of pipes, with a hard deadline on every read and write."""

    def __init__(self, wfd, rfd, hard_deadline, on_event):
        self.wfd, self.rfd, self.hard, self.on_event = wfd, rfd, hard_deadline, on_event
        self.buf, self.last_id = bytearray(), 0

    def send(self, method, params=None, session=None):
        self.last_id += 1
        msg = {"id": self.last_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session  # flat mode: the page session rides on each message
        data = memoryview(json.dumps(msg).encode() + b"\0")
        while data:  # select first, so a browser that stopped reading cannot block us forever
            if not select.select([], [self.wfd], [], max(0, self.hard - time.monotonic()))[1]:
                raise Fail(f"timed out sending {method} to chromium")
            try:
                data = data[os.write(self.wfd, data):]
            except OSError as e:  # EPIPE: the browser is gone
                raise Fail(f"chromium went away while sending {method}: {e}") from None
        return self.last_id

    def next_message(self, until):
        """The next message, or None once `until` passes; past the hard deadline it fails."""
        until = min(until, self.hard)
        while (i := self.buf.find(b"\0")) < 0:
            left = until - time.monotonic()
            if left <= 0 and until >= self.hard:
                raise Fail("overall timeout waiting for chromium")
            if left <= 0:
                return None
            if select.select([self.rfd], [], [], left)[0]:
                chunk = os.read(self.rfd, 1 << 20)
                if not chunk:
                    raise Fail("chromium closed the pipe (crashed or exited)")
                self.buf += chunk
        msg = json.loads(self.buf[:i])
        del self.buf[: i + 1]
        return msg

    def call(self, method, params=None, session=None):
        """Sends a command and returns its result, handing events that come meanwhile on."""
        want = self.send(method, params, session)
        while True:
            msg = self.next_message(self.hard)
            if "method" in msg:
                self.on_event(msg)
            elif msg.get("id") == want and "error" in msg:
                raise Fail(f"{method} failed: {msg['error'].get('message')}")
            elif msg.get("id") == want:
                return msg.get("result", {})

    def pump(self, until, done=lambda: False):
        """Handles events until done() or the time `until`, whichever comes first."""
        while not done() and (msg := self.next_message(until)) is not None:
            if "method" in msg:
                self.on_event(msg)


class Recorder:
    """Collects what the page session does into the report's lists."""

    def __init__(self, page_url):
        self.page_url, self.session, self.loaded, self.urls = page_url, None, False, {}
        self.console, self.exceptions, self.log, self.requests, self.failed = [], [], [], [], []

    def __call__(self, msg):
        method, p = msg["method"], msg.get("params", {})
        if method == "Inspector.targetCrashed" or (
                method == "Target.detachedFromTarget" and p.get("sessionId") == self.session):
            raise Fail(f"the page's renderer went away ({method})")
        if self.session is None or msg.get("sessionId") != self.session:
            return  # browser-level chatter (Target.attachedToTarget comes before the session)
        if method == "Page.loadEventFired":
            self.loaded = True
        elif method == "Runtime.consoleAPICalled":
            text = " ".join(arg_text(a) for a in p.get("args", []))
            frame = ((p.get("stackTrace") or {}).get("callFrames") or [{}])[0]
            self.console.append({"type": p.get("type"), "text": text, **where(frame)})
        elif method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            self.exceptions.append({"text": d.get("text"), **where(d),
                                    "description": d.get("exception", {}).get("description")})
        elif method == "Log.entryAdded":
            e = p.get("entry", {})
            self.log.append({k: e.get(k) for k in ("source", "level", "text", "url")})
        elif method == "Network.requestWillBeSent":
            url = self.urls[p.get("requestId")] = p.get("request", {}).get("url", "")
            # the page itself is expected, and data: URLs never leave the page
            if url != self.page_url and not url.startswith("data:"):
                self.requests.append(url)
        elif method == "Network.loadingFailed":
            url = self.urls.get(p.get("requestId"), "")
            if not url.startswith("data:"):
                self.failed.append({"url": url, "error": p.get("errorText"), "blocked":
                                    p.get("blockedReason"), "canceled": p.get("canceled", False)})


def arg_text(a):  # strings as they are, other primitives as JSON, objects by their description
    if "value" in a:
        return a["value"] if isinstance(a["value"], str) else json.dumps(a["value"])
    return str(a.get("description", a.get("unserializableValue", a.get("type"))))


def where(d):  # a call frame or exception details; CDP counts lines from 0, people from 1
    line = d.get("lineNumber")
    return {"url": d.get("url"), "line": None if line is None else line + 1}


def launch(binary, profile, width, height, log):
    """Starts Chromium in a process group of its own, with the CDP pipes on its fds 3 and 4."""
    to_browser_r, to_browser_w = os.pipe()
    from_browser_r, from_browser_w = os.pipe()

    def wire_fds():  # in the child, between fork and exec
        # copy both ends above 10 first, so that dup2 onto 3 and 4 cannot clobber either one
        r = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
        w = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
        os.dup2(r, 3)  # dup2's copies stay open across exec; os.pipe's own fds do not
        os.dup2(w, 4)

    args = [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
            f"--user-data-dir={profile}", "--no-first-run", "--no-default-browser-check",
            "--disable-extensions", "--hide-scrollbars", "--mute-audio",
            "--disable-background-networking", "--disable-dev-shm-usage",  # small /dev/shm in CI
            f"--window-size={width},{height}",
            # every host, IP literals too, fails to resolve: a page that reaches for the network
            # gets net::ERR_NAME_NOT_RESOLVED at once instead of hanging on it
            "--host-resolver-rules=MAP * ~NOTFOUND", "about:blank"]
    proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                            preexec_fn=wire_fds, start_new_session=True,
                            close_fds=False)  # close_fds runs after preexec_fn: it would close 3, 4
    for fd in (to_browser_r, from_browser_w):  # only the child holds these now, so its death
        os.close(fd)  # reads as EOF here
    return proc, to_browser_w, from_browser_r


def check(opts, binary, profile, log):
    ready_deadline = time.monotonic() + opts.timeout
    url = opts.page.resolve().as_uri()
    rec = Recorder(url)
    proc, wfd, rfd = launch(binary, profile, opts.width, opts.height, log)
    closing = False
    try:
        cdp = Cdp(wfd, rfd, ready_deadline + GRACE, rec)
        version = cdp.call("Browser.getVersion").get("product")
        target = cdp.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        attached = cdp.call("Target.attachToTarget", {"targetId": target, "flatten": True})
        rec.session = s = attached["sessionId"]
        for domain in ("Runtime", "Log", "Page", "Network"):  # before navigating, to miss nothing
            cdp.call(f"{domain}.enable", session=s)
        # --window-size counts the (invisible) browser frame: 900 tall leaves an 813 px viewport.
        # Pin the viewport itself, 1 device pixel per CSS pixel, so layouts and PNGs match W x H.
        cdp.call("Emulation.setDeviceMetricsOverride", {"width": opts.width, "height": opts.height,
                                                        "deviceScaleFactor": 1, "mobile": False}, s)
        nav = cdp.call("Page.navigate", {"url": url}, s)
        if nav.get("errorText"):
            raise Fail(f"could not open {url}: {nav['errorText']}")
        cdp.pump(ready_deadline, lambda: rec.loaded)

        def evaluate(expression, **more):
            params = {"expression": expression, "returnByValue": True, **more}
            return cdp.call("Runtime.evaluate", params, s)

        while True:  # at least one poll, even if loading ate the whole budget
            ready = evaluate(opts.ready_js).get("result", {}).get("value") is True
            if ready or time.monotonic() >= ready_deadline:
                break
            cdp.pump(min(time.monotonic() + 0.1, ready_deadline))

        facts = facts_error = None
        if opts.facts_js:
            out = evaluate(opts.facts_js.read_text(), awaitPromise=True)
            if "exceptionDetails" in out:
                d = out["exceptionDetails"]
                facts_error = d.get("exception", {}).get("description") or d.get("text")
            else:
                facts = out.get("result", {}).get("value")

        if opts.screenshot:
            size = cdp.call("Page.getLayoutMetrics", session=s)["cssContentSize"]
            height = opts.height if opts.viewport_only else min(size["height"], MAX_SHOT_HEIGHT)
            clip = {"x": 0, "y": 0, "width": size["width"], "height": height, "scale": 1}
            shot = cdp.call("Page.captureScreenshot",
                            {"format": "png", "clip": clip, "captureBeyondViewport": True}, s)
            tmp = Path(f"{opts.screenshot}.tmp")
            tmp.write_bytes(base64.b64decode(shot["data"]))
            os.replace(tmp, opts.screenshot)  # a reader never sees half a PNG

        cdp.pump(time.monotonic() + 0.05)  # events the last commands set off
        cdp.send("Browser.close")
        closing = True
        shot_path = str(opts.screenshot) if opts.screenshot else None
        return {"url": url, "ready": ready, "console": rec.console, "exceptions": rec.exceptions,
                "log": rec.log, "requests": rec.requests, "failed_requests": rec.failed,
                "facts": facts, "facts_error": facts_error, "screenshot": shot_path,
                "chromium": version}
    finally:
        with suppress(subprocess.TimeoutExpired):  # let Browser.close end things cleanly
            proc.wait(timeout=5 if closing else 0)
        with suppress(ProcessLookupError):  # then make sure: renderers, GPU, zygote share its group
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        for fd in (wfd, rfd):
            os.close(fd)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("page", type=Path)
    ap.add_argument("--screenshot", type=Path, help="write a full-page PNG here")
    ap.add_argument("--viewport-only", action="store_true", help="the screenshot is the top W x H only")
    ap.add_argument("--facts-js", type=Path, help="file holding a JS expression to report")
    ap.add_argument("--ready-js", default='document.documentElement.dataset.ready === "1"')
    ap.add_argument("--width", type=int, default=1400)
    ap.add_argument("--height", type=int, default=900)
    ap.add_argument("--timeout", type=float, default=90, help="seconds to wait for ready")
    opts = ap.parse_args()  # exits 2 on bad arguments, as ap.error does
    if not opts.page.is_file():
        ap.error(f"no such page: {opts.page}")
    if opts.facts_js and not opts.facts_js.is_file():
        ap.error(f"no such facts file: {opts.facts_js}")
    if min(opts.width, opts.height) <= 0 or opts.timeout <= 0:
        ap.error("--width, --height and --timeout must be positive")

    wanted = [os.environ["CHROMIUM"]] if os.environ.get("CHROMIUM") else CANDIDATES
    binary = next(filter(None, map(shutil.which, wanted)), None)
    if not binary:
        print(f"browser_check: no Chromium found (looked for {', '.join(wanted)})", file=sys.stderr)
        return 3

    profile = tempfile.mkdtemp(prefix="browser_check_profile_")
    with tempfile.TemporaryFile() as log:  # Chromium's chatter, kept for the failure message
        try:
            report = check(opts, binary, profile, log)
        except (Fail, OSError, ValueError, KeyError) as e:
            log.seek(0)
            # without a system bus Chromium logs a dozen D-Bus complaints that would bury the cause
            lines = log.read().decode(errors="replace").splitlines()
            lines = [ln for ln in lines if "dbus" not in ln]
            tail = " | ".join(lines)[-2000:] or "(empty)"
            what = e if isinstance(e, Fail) else f"{type(e).__name__}: {e}"
            print(f"browser_check: {what}; chromium stderr: {tail}", file=sys.stderr)
            return 4
        finally:
            shutil.rmtree(profile, ignore_errors=True)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
