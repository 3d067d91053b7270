"""A small AiControl client in Python on the generated binding of
spec/AiControlProtocol.json (generated/aicontrol/python/aicontrol.py),
standard library only, which runs the protocol smoke's 12 checks against a
listener and prints the smoke's JSON report.

The Go tests of cmd/aictl type-check it with Pyright in strict mode before
they run it against our aicontrol-sample and against FOnline's reference
Python sample, so a contract change this client no longer fits fails there.

Usage: aicontrol_smoke.py --port N [--host H] [--token-env NAME]
(with generated/aicontrol/python on PYTHONPATH). Exit 0 when every check
passed, 1 otherwise, 2 on bad usage.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any, cast

import aicontrol as ac

# A method no listener implements.
UNKNOWN_METHOD = "aictl.smoke.no-such-method"

# How long one answer, and the completion of the smoke's command, may take.
TIMEOUT_SECONDS = 10.0


class RemoteError(Exception):
    """An error response of the listener."""

    def __init__(self, error: ac.ErrorObject) -> None:
        super().__init__(f"{error['code']} {error['message']}")
        self.code = error["code"]


class Client:
    """One connection: requests in order, one answer each."""

    def __init__(self, host: str, port: int) -> None:
        self._sock = socket.create_connection((host, port), timeout=TIMEOUT_SECONDS)
        self._file = self._sock.makefile("rwb")
        self._next_id = 0

    def close(self) -> None:
        self._file.close()
        self._sock.close()

    def call(self, method: str, params: Mapping[str, object] | None) -> Any:
        """Sends a request and returns its result as decoded JSON."""
        self._next_id += 1
        request: dict[str, object] = {"jsonrpc": ac.JSONRPC_VERSION, "id": self._next_id, "method": method}
        if params is not None:
            request["params"] = dict(params)
        line = json.dumps(request, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        if len(line) > ac.MAX_LINE_BYTES:
            raise ValueError(f"request of {len(line)} bytes is over the line limit {ac.MAX_LINE_BYTES}")
        self._file.write(line)
        self._file.flush()
        answer = self._file.readline(ac.MAX_LINE_BYTES + 1)
        if not answer.endswith(b"\n"):
            raise ConnectionError("the listener closed the connection or sent a line over the limit")
        response: ac.Response = json.loads(answer)
        if response["id"] != self._next_id:
            raise ConnectionError(f"answer to request {response['id']}, want {self._next_id}")
        if "error" in response:
            raise RemoteError(response["error"])
        return response.get("result")

    @property
    def request(self) -> ac.Requester:
        """call, typed per method by the generated Requester protocol."""
        return self.call


class Smoke:
    """The 12 checks, in the order and with the dependencies of the Go smoke (bridge.Smoke)."""

    def __init__(self, host: str, port: int, token: str, command: ac.ActParams) -> None:
        self.host, self.port, self.token, self.command = host, port, token, command
        self.checks: list[dict[str, str]] = []
        self.main: Client | None = None
        self.observation_seq = 0
        self.cursor = 0
        self.command_seq = 0
        self.completion_seq = 0

    def check(self, name: str, run: Callable[[], str]) -> None:
        try:
            self.checks.append({"name": name, "status": "passed", "detail": run()})
        except Exception as e:  # every failure is reported, none ends the smoke
            self.checks.append({"name": name, "status": "failed", "detail": f"{type(e).__name__}: {e}"})

    def client(self) -> Client:
        if self.main is None or self.checks[2]["status"] != "passed":
            raise RuntimeError("not run: an earlier check it depends on failed")
        return self.main

    def run(self) -> dict[str, object]:
        try:
            self.check("wrong-token-rejected", self.wrong_token)
            self.check("unauthorized-method-rejected", self.unauthorized)
            self.check("authorized", self.authorized)
            self.check("ping", self.ping)
            self.check("status", self.status)
            self.check("observe", self.observe)
            self.check("invalid-command-rejected", self.invalid_command)
            self.check("unknown-method-rejected", self.unknown_method)
            self.check("command-accepted", self.command_accepted)
            self.check("completion-event", self.completion)
            self.check("observation-updated", self.observation_updated)
            self.check("event-cursor", self.event_cursor)
        finally:
            if self.main is not None:
                self.main.close()
        passed = all(c["status"] == "passed" for c in self.checks)
        return {"schema_version": 1, "status": "passed" if passed else "failed", "checks": self.checks, "check_count": len(self.checks)}

    def auth(self, c: Client, token: str) -> bool:
        params: ac.AuthParams = {"token": token}
        return c.request("auth", params)["authorized"]

    def wrong_token(self) -> str:
        if not self.token:
            raise RuntimeError("no token configured: the smoke needs a token-protected endpoint")
        self.main = Client(self.host, self.port)
        if self.auth(self.main, self.token + "-not-the-token"):
            raise RuntimeError("a wrong token was accepted")
        return "auth answered authorized=false"

    def want_error(self, code: int, run: Callable[[], object]) -> None:
        try:
            run()
        except RemoteError as e:
            if e.code != code:
                raise RuntimeError(f"want error {code}, got {e}") from e
            return
        raise RuntimeError(f"accepted; want error {code}")

    def unauthorized(self) -> str:
        if self.main is None:
            raise RuntimeError("not run: an earlier check it depends on failed")
        main = self.main
        self.want_error(ac.CODE_UNAUTHORIZED, lambda: main.request("ping", {}))
        return f"ping before auth answered {ac.CODE_UNAUTHORIZED}"

    def authorized(self) -> str:
        if self.main is None:
            raise RuntimeError("not run: an earlier check it depends on failed")
        if not self.auth(self.main, self.token):
            raise RuntimeError("the configured token was refused")
        # One connection at a time: a listener may serve only one.
        self.main.close()
        self.main = None
        nxt = Client(self.host, self.port)
        try:
            self.want_error(ac.CODE_UNAUTHORIZED, lambda: nxt.request("ping", {}))
            if not self.auth(nxt, self.token):
                raise RuntimeError("the configured token was refused on the new connection")
        except Exception:
            nxt.close()
            raise
        self.main = nxt
        return "authorized; after it closed, a new connection started unauthorized"

    def ping(self) -> str:
        return f"ok {self.client().request('ping', {})['ok']}"

    def status(self) -> str:
        s = self.client().request("status", {})
        if not s["running"]:
            raise RuntimeError("running is false")
        if s["queuedCommands"] > s["maxQueuedCommands"] or s["events"] > s["maxEvents"]:
            raise RuntimeError(f"occupancy over capacity: {s}")
        return f"queue {s['queuedCommands']}/{s['maxQueuedCommands']}, events {s['events']}/{s['maxEvents']}, observationSeq {s['observationSeq']}"

    def observe(self) -> str:
        o = self.client().request("observe", {})
        self.observation_seq = o["observationSeq"]
        return f"observationSeq {o['observationSeq']}, schemaVersion {o['observation'].get('schemaVersion')}"

    def invalid_command(self) -> str:
        c = self.client()
        self.want_error(ac.CODE_INVALID_PARAMS, lambda: c.call(ac.METHOD_ACT, {}))
        return f"act without a type answered {ac.CODE_INVALID_PARAMS}"

    def unknown_method(self) -> str:
        c = self.client()
        self.want_error(ac.CODE_METHOD_NOT_FOUND, lambda: c.call(UNKNOWN_METHOD, None))
        return f"answered {ac.CODE_METHOD_NOT_FOUND}"

    def events(self, after: int, limit: int) -> ac.EventsResult:
        params: ac.EventsParams = {"afterSeq": after, "limit": limit}
        return self.client().request("events", params)

    def command_accepted(self) -> str:
        self.cursor = self.events(0, 1)["latestSeq"]
        res = self.client().request("act", self.command)
        if not res["accepted"]:
            raise RuntimeError("the command was not accepted")
        self.command_seq = res["commandSeq"]
        return f"{self.command['type']!r} accepted as commandSeq {self.command_seq}"

    def completion(self) -> str:
        if self.command_seq == 0:
            raise RuntimeError("not run: an earlier check it depends on failed")
        deadline = time.monotonic() + TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            page = self.events(self.cursor, ac.MAX_EVENTS_PER_REQUEST)
            for record in page["events"]:
                self.cursor = max(self.cursor, record["seq"])
                event = record["event"]
                if event["type"] != ac.EVENT_COMMAND_COMPLETED:
                    continue
                done = cast(ac.CommandCompletedEvent, event)
                if done["commandSeq"] == self.command_seq:
                    self.completion_seq = record["seq"]
                    return f"event {record['seq']}: success={done['success']} message={done['message']!r}"
            time.sleep(0.02)
        raise RuntimeError(f"no {ac.EVENT_COMMAND_COMPLETED} for commandSeq {self.command_seq} within {TIMEOUT_SECONDS}s")

    def observation_updated(self) -> str:
        if self.completion_seq == 0:
            raise RuntimeError("not run: an earlier check it depends on failed")
        o = self.client().request("observe", {})
        if o["observationSeq"] <= self.observation_seq:
            raise RuntimeError(f"observationSeq still {o['observationSeq']} after the command completed")
        return f"observationSeq {self.observation_seq} -> {o['observationSeq']}"

    def event_cursor(self) -> str:
        seq = self.completion_seq
        if seq == 0:
            raise RuntimeError("not run: an earlier check it depends on failed")
        at = self.events(seq - 1, 1)
        if len(at["events"]) != 1 or at["events"][0]["seq"] != seq:
            raise RuntimeError(f"afterSeq {seq - 1} did not return event {seq} first")
        after = self.events(seq, ac.MAX_EVENTS_PER_REQUEST)
        if any(e["seq"] <= seq for e in after["events"]):
            raise RuntimeError(f"afterSeq {seq} returned an event at or before it: the cursor is not exclusive")
        end = self.events(after["latestSeq"], ac.MAX_EVENTS_PER_REQUEST)
        if end["events"] or end["latestSeq"] < after["latestSeq"]:
            raise RuntimeError(f"afterSeq latestSeq {after['latestSeq']} returned {len(end['events'])} events")
        return f"exclusive at {seq}; latestSeq {end['latestSeq']}"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="The AiControl protocol smoke on the generated Python binding.")
    parser.add_argument("--host", default=ac.DEFAULT_HOST)
    parser.add_argument("--port", type=int, default=ac.DEFAULT_PORT)
    parser.add_argument("--token-env", default="AI_CONTROL_TOKEN")
    args = parser.parse_args(argv)
    host = cast(str, args.host)
    port = cast(int, args.port)
    token = os.environ.get(cast(str, args.token_env), "")
    command: ac.ActParams = {"type": "move", "x": 1, "y": 2}
    report = Smoke(host, port, token, command).run()
    print(json.dumps(report, ensure_ascii=False))
    return 0 if report["status"] == "passed" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
