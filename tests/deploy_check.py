#!/usr/bin/env python3
"""Checks the Agones manifests in deploy/ and the Dockerfile's health check against the server.

Every deploy/*.yaml must parse as YAML and hold Kubernetes objects; the fields that must agree
with mink-server are compared with what the server itself says (`mink-server --help` defaults,
its flags) and with the HTTP paths it serves: the Fleet's game port and protocol, its probes'
paths and port, the flags in its args, the grace period against --drain-seconds, the Agones
health period against the server's ping interval, and the FleetAutoscaler's fleet and buffer.
Run by ctest as deploy_manifests: python3 deploy_check.py SERVER ROOT."""
import glob
import os
import re
import subprocess
import sys

import yaml

checks = 0
failures = []


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)


def default_of(help_text, flag):
    """The number in "(default N)" on the help line of `flag`, or on the lines that follow it."""
    lines = help_text.splitlines()
    for i, line in enumerate(lines):
        if line.strip().startswith(flag + " "):
            for text in lines[i:i + 3]:
                m = re.search(r"\(default ([0-9.]+)\)", text)
                if m:
                    return float(m.group(1))
    raise SystemExit(f"mink-server --help does not give a default for {flag}")


def main():
    server, root = sys.argv[1], sys.argv[2]
    help_text = subprocess.run([server, "--help"], capture_output=True, text=True,
                               check=True).stdout
    game_port = int(default_of(help_text, "--port"))
    http_port = int(default_of(help_text, "--http-port"))
    flags = set(re.findall(r"^\s+(--[a-z0-9-]+)", help_text, re.M))
    agones_c = open(os.path.join(root, "server/net/agones.c")).read()
    health_seconds = float(re.search(r"#define HEALTH_SECONDS ([0-9.]+)", agones_c).group(1))
    http_c = open(os.path.join(root, "server/net/http.c")).read()
    served = set(re.findall(r'strcmp\(path, "(/[a-z]*)"\) == 0', http_c))
    check({"/metrics", "/livez", "/healthz", "/readyz"} <= served,
          f"http.c serves {sorted(served)}")

    docs = {}
    paths = sorted(glob.glob(os.path.join(root, "deploy", "*.yaml")))
    check(len(paths) >= 2, "deploy/ holds the manifests")
    for path in paths:
        try:
            objs = [o for o in yaml.safe_load_all(open(path)) if o is not None]
        except yaml.YAMLError as e:
            check(False, f"{path}: not YAML: {e}")
            continue
        check(len(objs) > 0, f"{path}: no object")
        for o in objs:
            check(isinstance(o, dict) and "apiVersion" in o and "kind" in o,
                  f"{path}: an object without apiVersion and kind")
            docs.setdefault(o.get("kind"), []).append(o)

    fleet = docs.get("Fleet", [None])[0]
    check(fleet is not None, "a Fleet")
    check(fleet["apiVersion"] == "agones.dev/v1", "Fleet apiVersion agones.dev/v1")
    gs = fleet["spec"]["template"]["spec"]
    ports = gs["ports"]
    check(len(ports) == 1, "one game port")
    check(ports[0]["portPolicy"] == "Dynamic", "portPolicy Dynamic")
    check(ports[0]["protocol"] == "TCP", "the game port is TCP")
    check(ports[0]["containerPort"] == game_port, f"containerPort {game_port}")
    health = gs["health"]
    check(health.get("disabled") is False, "Agones health checking on")
    check(health["periodSeconds"] > health_seconds,
          f"health periodSeconds {health['periodSeconds']} above the ping interval "
          f"{health_seconds}")
    check(health["failureThreshold"] >= 1 and health["initialDelaySeconds"] >= 0,
          "health failureThreshold and initialDelaySeconds")
    pod = gs["template"]["spec"]
    containers = pod["containers"]
    check(len(containers) == 1, "one container")
    c = containers[0]
    check(c["args"][0] == "mink-server", "the container runs mink-server")
    used = [a for a in c["args"] if a.startswith("--")]
    check(all(a in flags for a in used), f"flags the server knows: {used}")
    drain = default_of(help_text, "--drain-seconds")
    if "--drain-seconds" in c["args"]:
        drain = float(c["args"][c["args"].index("--drain-seconds") + 1])
    check(pod["terminationGracePeriodSeconds"] > drain,
          f"terminationGracePeriodSeconds above --drain-seconds {drain}")
    check("--http-port" not in c["args"] and "--port" not in c["args"],
          "the ports are the defaults the probes and the Fleet name")
    check(any(p["containerPort"] == http_port for p in c.get("ports", [])),
          f"the container names the HTTP port {http_port}")
    res = c["resources"]
    check("cpu" in res["requests"] and "memory" in res["requests"], "resource requests")
    check("cpu" in res["limits"] and "memory" in res["limits"], "resource limits")
    for probe, path in (("livenessProbe", "/livez"), ("readinessProbe", "/readyz")):
        get = c[probe]["httpGet"]
        check(get["path"] == path, f"{probe} asks {path}")
        check(get["port"] == http_port, f"{probe} on port {http_port}")
        check(get["path"] in served, f"{probe}: the server serves {get['path']}")
    ann = gs["template"]["metadata"]["annotations"]
    check(ann["prometheus.io/port"] == str(http_port) and ann["prometheus.io/path"] == "/metrics",
          "the scrape annotations name the metrics")

    fa = docs.get("FleetAutoscaler", [None])[0]
    check(fa is not None, "a FleetAutoscaler")
    check(fa["apiVersion"] == "autoscaling.agones.dev/v1", "FleetAutoscaler apiVersion")
    check(fa["spec"]["fleetName"] == fleet["metadata"]["name"], "it scales the Fleet")
    pol = fa["spec"]["policy"]
    check(pol["type"] == "Buffer", "Buffer policy")
    buf = pol["buffer"]
    check(0 < buf["bufferSize"] <= buf["minReplicas"] <= buf["maxReplicas"],
          "0 < bufferSize <= minReplicas <= maxReplicas")

    alloc = docs.get("GameServerAllocation", [None])[0]
    check(alloc is not None, "a GameServerAllocation")
    sel = alloc["spec"]["selectors"][0]["matchLabels"]
    check(sel.get("agones.dev/fleet") == fleet["metadata"]["name"], "it allocates from the Fleet")

    dockerfile = open(os.path.join(root, "Dockerfile")).read()
    hc = re.search(r"HEALTHCHECK[^\n]*\\\n\s*CMD (\[.*\])", dockerfile)
    check(hc is not None, "the Dockerfile has a HEALTHCHECK")
    if hc:
        check(f"http://127.0.0.1:{http_port}/livez" in hc.group(1),
              "the HEALTHCHECK asks /livez on the HTTP port")
    check(re.search(rf"^EXPOSE .*\b{game_port}\b.*\b{http_port}\b", dockerfile, re.M) is not None,
          "the Dockerfile exposes both ports")

    for f in failures:
        print("FAILED:", f)
    print(f"deploy_manifests: {checks} checks, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
