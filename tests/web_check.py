#!/usr/bin/env python3
"""The web viewer in a real browser: headless Chromium (Debian's chromium and chromium-driver,
driven by selenium) opens the page of a real mink-server and is checked as a visitor would
use it, with a TCP player watching the same world to check what the server did:

- the page connects and its status shows a rising tick;
- the canvas shows the bodies (the page's DOM counter, and pixels that are not background);
- Join spawns an avatar, and holding the right arrow moves it: its position in the server's
  `state`, as the TCP player hears it, changes;
- a click on the canvas spawns a body the TCP player sees, owned by the page's client;
- the browser's console has no errors; a screenshot is written to the output folder.

With "tls" after DIM the server gets a certificate made for the run (openssl) with --tls-cert
and --tls-key, and the page is opened over https (its WebSocket is then wss).

With "range" after DIM (3) the server runs the hit-scan range of examples/range, and the page
plays it: the pointer on a swinging target, F fires (at the tick the page drew), and the
game's `hit` comes back to the page with the shooter's points; then the page joins with an
avatar and fires from it, for a second point.

usage: web_check.py MINK_SERVER OUT_DIR DIM [tls|range]
"""
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

SERVER, OUT, DIM = sys.argv[1], sys.argv[2], int(sys.argv[3])
TLS = len(sys.argv) > 4 and sys.argv[4] == "tls"
RANGE = len(sys.argv) > 4 and sys.argv[4] == "range"
EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")


DRIVER = None


def fail(why):
    print("FAIL: " + why)
    if DRIVER:
        print("page: connected=%s; browser log: %s" % (
            DRIVER.execute_script("return document.body.dataset.connected"),
            DRIVER.get_log("browser")[-5:]))
    sys.exit(1)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_for(what, cond, timeout=10.0):
    end = time.time() + timeout
    while time.time() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.05)
    fail("timed out waiting for " + what)


class Watcher:
    """A TCP player without an avatar: the world as the server sends it."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.sock.sendall(b'{"type":"hello","protocol":1,"name":"watcher"}\n')
        self.bodies = {}
        self.lock = threading.Lock()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        f = self.sock.makefile("r", encoding="utf-8")
        for line in f:
            m = json.loads(line)
            if m.get("type") != "state":
                continue
            with self.lock:
                for b in m.get("bodies", []):
                    e = self.bodies.setdefault(b["id"], {})
                    e["pos"] = b["pos"]
                    if "owner" in b:
                        e["owner"], e["kind"] = b["owner"], b["kind"]
                        e["tag"] = b.get("tag", "")
                for i in m.get("removed", []):
                    self.bodies.pop(i, None)

    def pos(self, body_id):
        with self.lock:
            b = self.bodies.get(body_id)
            return list(b["pos"]) if b else None

    def tagged(self, tag):
        with self.lock:
            return sorted(i for i, b in self.bodies.items() if b.get("tag") == tag)

    def owned_by(self, client):
        with self.lock:
            return {i for i, b in self.bodies.items() if b.get("owner") == client}


def main():
    port, http_port = free_port(), free_port()
    log = tempfile.NamedTemporaryFile(prefix="mink-web-", suffix=".log", delete=False)
    args = [SERVER, "--host", "127.0.0.1", "--port", str(port), "--http-port", str(http_port)]
    if DIM == 3:
        args += ["--dim", "3"]
    if RANGE:
        args += ["--scene", os.path.join(EXAMPLES, "range", "range.json"),
                 "--script", os.path.join(EXAMPLES, "range", "range.lua")]
    tmp = tempfile.TemporaryDirectory(prefix="mink-tls-")
    if TLS:
        cert, key = os.path.join(tmp.name, "cert.pem"), os.path.join(tmp.name, "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                        "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        args += ["--tls-cert", cert, "--tls-key", key]
    server = subprocess.Popen(args, stderr=log, stdout=log)
    try:
        wait_for("the server's HTTP port", lambda: b"http on" in open(log.name, "rb").read(), 10)
        run(port, http_port)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            rc = server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            rc = -1
        if rc != 0:
            print(open(log.name).read()[-3000:])
            fail("the server exited %d" % rc)
        os.unlink(log.name)
    tmp.cleanup()
    if RANGE:
        print("ok: the range played in the page: two shots fired with F hit, from the camera "
              "and from an avatar")
    else:
        print("ok: %dD page%s connected, drew, moved an avatar and dropped a shape"
              % (DIM, " over https" if TLS else ""))


def run(port, http_port):
    opts = Options()
    opts.binary_location = "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=1200,800") + (("--ignore-certificate-errors",) if TLS else ()):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
    try:
        (check_range if RANGE else check_page)(driver, port, http_port)
    finally:
        driver.quit()


def data(driver, key):
    return driver.execute_script("return document.body.dataset[arguments[0]] || ''", key)


def check_page(driver, port, http_port):
    global DRIVER
    DRIVER = driver
    watcher = Watcher(port)
    scheme = "https" if TLS else "http"
    driver.get("%s://127.0.0.1:%d/" % (scheme, http_port))
    if TLS and not driver.execute_script("return location.protocol === 'https:'"):
        fail("the page is not on https")

    # Connects, and the tick rises.
    t0 = int(wait_for("a state", lambda: data(driver, "tick")))
    time.sleep(1.0)
    t1 = int(data(driver, "tick"))
    if t1 < t0 + 30:
        fail("the tick went from %d to %d in 1 s" % (t0, t1))
    status = driver.find_element(By.ID, "status").text
    if "tick" not in status or "states/s" not in status:
        fail("status line: " + status)

    # The canvas shows the bodies: the counter, and pixels that are not the background.
    bodies = int(data(driver, "bodies"))
    drawn = int(data(driver, "drawn"))
    if bodies < 10 or drawn != bodies:
        fail("%d bodies heard, %d drawn" % (bodies, drawn))
    painted = driver.execute_script("""
        const c = document.getElementById('view'), g = c.getContext('2d');
        const d = g.getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 0; i < d.length; i += 4)
            if (Math.abs(d[i] - 0x15) + Math.abs(d[i + 1] - 0x17) + Math.abs(d[i + 2] - 0x1c) > 30) n++;
        return n;""")
    if painted < 2000:
        fail("only %d pixels drawn" % painted)

    # Join, then hold the right arrow: the server moves the avatar.
    client = int(data(driver, "client"))
    driver.find_element(By.ID, "join").click()
    avatar = int(wait_for("an avatar", lambda: int(data(driver, "avatar") or 0)))
    wait_for("the avatar in the server's state", lambda: watcher.pos(avatar))
    time.sleep(1.5)  # it falls onto the ground
    before = watcher.pos(avatar)
    canvas = driver.find_element(By.ID, "view")
    ActionChains(driver).key_down(Keys.ARROW_RIGHT).pause(1.2).key_up(Keys.ARROW_RIGHT).perform()
    time.sleep(0.5)
    after = watcher.pos(avatar)
    moved = sum((a - b) ** 2 for a, b in zip(after, before)) ** 0.5
    if moved < 1.0:
        fail("the avatar moved %.2f m (from %s to %s)" % (moved, before, after))

    # A click drops a shape: a new body of the page's client in the server's state.
    owned = watcher.owned_by(client)
    ActionChains(driver).move_to_element_with_offset(canvas, 40, -60).click().perform()
    new = wait_for("the dropped body", lambda: watcher.owned_by(client) - owned - {avatar})
    # The page counts the spawn when its `spawned` answer arrives, on its own connection: that
    # may come after the watcher has seen the body.
    wait_for("the page's count of its spawn", lambda: int(data(driver, "spawned") or 0) >= 1)

    time.sleep(0.5)
    os.makedirs(OUT, exist_ok=True)
    shot = os.path.join(OUT, "web_%dd%s.png" % (DIM, "_tls" if TLS else ""))
    driver.save_screenshot(shot)
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    if errors:
        fail("console errors: %s" % errors)
    print("avatar %d moved %.2f m; dropped body %s; %d bodies; screenshot %s"
          % (avatar, moved, sorted(new), int(data(driver, "bodies")), shot))


def shoot_until_hit(driver, canvas, targets, points):
    """Points the pointer at a target as the page draws it and presses F, until the page hears
    the game's `hit` that gives its player `points` points (a swinging target may move out from
    under the pointer between the two)."""
    size = driver.execute_script("const c = document.getElementById('view'); "
                                 "return [c.width, c.height]")
    for attempt in range(20):
        target = targets[attempt % len(targets)]
        at = driver.execute_script("return window.minkPage.screenOf(arguments[0])", target)
        if not at:
            time.sleep(0.2)
            continue
        x, y = int(at[0] - size[0] / 2), int(at[1] - size[1] / 2)
        ActionChains(driver).move_to_element_with_offset(canvas, x, y).send_keys("f").perform()
        end = time.time() + 1.5
        while time.time() < end:
            score = driver.find_element(By.ID, "score").text
            if score.endswith(": %d" % points):
                return attempt + 1, score
            time.sleep(0.05)
    fail("20 shots at the targets, none gave %d points; the last fired %s; feed: %s" % (
        points, data(driver, "fired"), driver.find_element(By.ID, "feed").text))


def check_range(driver, port, http_port):
    global DRIVER
    DRIVER = driver
    watcher = Watcher(port)
    driver.get("http://127.0.0.1:%d/" % http_port)
    wait_for("a state", lambda: data(driver, "tick"))
    targets = wait_for("the targets", lambda: len(watcher.tagged("target")) == 4
                       and watcher.tagged("target"), 10)
    wait_for("the game's welcome", lambda: int(data(driver, "gameEvents") or 0) >= 1)
    wait_for("the targets drawn", lambda: int(data(driver, "drawn") or 0) >= 6)
    canvas = driver.find_element(By.ID, "view")
    shots, score = shoot_until_hit(driver, canvas, targets, 1)
    # Joined with an avatar, the shot leaves from the avatar's head, within the game's reach.
    driver.find_element(By.ID, "join").click()
    avatar = int(wait_for("an avatar", lambda: int(data(driver, "avatar") or 0)))
    wait_for("the avatar in the server's state", lambda: watcher.pos(avatar))
    time.sleep(1.0)  # it falls onto the floor
    shots2, score2 = shoot_until_hit(driver, canvas, targets, 2)
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    if errors:
        fail("console errors: %s" % errors)
    os.makedirs(OUT, exist_ok=True)
    shot = os.path.join(OUT, "web_range.png")
    driver.save_screenshot(shot)
    print("a hit after %d shot(s) from the camera (%s), after %d from avatar %d (%s); "
          "screenshot %s" % (shots, score, shots2, avatar, score2, shot))


if __name__ == "__main__":
    main()
