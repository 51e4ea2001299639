"""The metal-fake binary in a Python test suite: start it, point a client at
it, arrange scenarios through its control API, stop it.

    from metal_fake import MetalFake

    with MetalFake(reservations=2) as fake:
        config = metalv1.Configuration(host=fake.url)
        config.api_key["x_auth_token"] = fake.token
        ...
        fake.fault("createDevice", "drop_after")
        fake.advance(600)
        assert fake.calls("createDevice").total == 1

`MetalFake` starts the binary this wheel installed (or the one the
`METAL_FAKE` environment variable names, or `metal-fake` on the PATH) on a
free loopback port, reads the URL and project it prints, and kills it on
exit. The pytest plugin (`metal_fake.pytest_plugin`, registered as a
`pytest11` entry point) gives the fixtures `metal_fake` (one fake per test,
options from `@pytest.mark.metal_fake(...)`) and `metal_fake_session` (one
for the session).

Standard library only. The flags it passes are `FLAGS`, and the JSON fields
it sends and reads are `WIRE`, by their type in the control API's JSON
Schema (`metal-fake --control-schema`, `control_schema()`); the package's
tests check both against the binary, so a renamed flag or field fails them.
"""

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
import urllib.error
import urllib.parse
import urllib.request

__all__ = [
    "MetalFake",
    "MetalFakeError",
    "MetalFakeStartError",
    "Call",
    "Calls",
    "Clock",
    "Summary",
    "binary",
    "control_schema",
    "FLAGS",
    "KINDS",
    "WIRE",
    "ENDPOINTS",
]

#: The token the fake accepts unless told otherwise (a test value).
DEFAULT_TOKEN = "metal-fake-token"

#: The binary's flags, by the keyword argument of `MetalFake` that sets
#: them (`listen` and `token` are always passed).
FLAGS = {
    "listen": "--listen",
    "token": "--token",
    "project": "--project",
    "reservations": "--reservations",
    "world": "--world",
    "control_token": "--control-token",
    "time_scale": "--time-scale",
    "rate_limit": "--rate-limit",
    "fault_rate": "--fault-rate",
    "seed": "--seed",
    "fail_rate": "--fail-rate",
    "fail_hostname": "--fail-hostname",
    "provision_seconds": "--provision-seconds",
    "power_seconds": "--power-seconds",
    "release_seconds": "--release-seconds",
    "deprovision_seconds": "--deprovision-seconds",
    "state_file": "--state-file",
    "log_calls": "--log-calls",
}

#: The fault kinds `fault()` and `random_faults()` take (the schema's
#: `KindName`).
KINDS = (
    "not_sent",
    "fail_before",
    "fail_after",
    "throttle",
    "latency",
    "drop_after",
    "hang",
    "bad_gateway",
    "truncated",
    "competitor",
)

#: The fields of one scripted fault (`FaultSpec`), as `fault()` sends them.
_FAULT_FIELDS = (
    "operation",
    "target",
    "nth",
    "times",
    "kind",
    "status",
    "retry_after_seconds",
    "seconds",
)

#: The control endpoints this module calls.
ENDPOINTS = (
    "POST /_fake/reset",
    "GET /_fake/world",
    "POST /_fake/world",
    "POST /_fake/faults",
    "DELETE /_fake/faults",
    "GET /_fake/calls",
    "POST /_fake/clock",
    "GET /_fake/clock",
    "GET /_fake/state",
)

#: The header of the control token.
_CONTROL_TOKEN_HEADER = "X-Fake-Control-Token"


class MetalFakeError(Exception):
    """A control call the fake refused (or that got no JSON reply).

    `status` is the HTTP status (None when there was no reply), `errors`
    the fake's messages (its `{"errors": [...]}`), and the exception's text
    names the call and carries them.
    """

    def __init__(self, method, path, status, errors):
        self.method = method
        self.path = path
        self.status = status
        self.errors = list(errors)
        super().__init__(f"{method} {path}: {status}: {'; '.join(self.errors)}")


class MetalFakeStartError(RuntimeError):
    """The binary did not start; the text carries what it wrote to stderr."""

    def __init__(self, message, stderr):
        self.stderr = stderr
        super().__init__(f"{message}\n--- metal-fake stderr ---\n{stderr}")


@dataclasses.dataclass(frozen=True)
class Call:
    """One recorded call (`GET /_fake/calls`; the schema's `CallJson`)."""

    #: 1-based, in the order the calls were logged.
    seq: int
    #: The request's method ("GET").
    method: str
    #: The request's path ("/metal/v1/devices/...").
    path: str
    #: The request's query without "?"; None without one.
    query: object
    #: The operationId, or "unknown".
    operation: str
    #: The status sent; None when no reply was sent.
    status: object
    #: The error message the fake answered; None for a success or no reply.
    error: object
    #: The injected fault's label, if any.
    fault: object
    #: When it arrived, on the fake's clock (RFC 3339).
    at: str


@dataclasses.dataclass(frozen=True)
class Calls:
    """The recorded calls that matched (`Calls`): `total` of them, the last
    ones listed in `calls`, oldest first; `last_seq`, the newest call's
    `seq`, and `resets`, how many times the log was emptied (a reader
    following the log starts over when it changes)."""

    total: int
    calls: list
    last_seq: int
    resets: int

    def __iter__(self):
        return iter(self.calls)

    def __len__(self):
        return len(self.calls)


@dataclasses.dataclass(frozen=True)
class Clock:
    """The fake's clock (`ClockJson`)."""

    #: Now on the fake's clock (RFC 3339).
    now: str
    #: The total advance, in seconds.
    advanced_seconds: float
    #: How much faster than real time it runs.
    time_scale: float


@dataclasses.dataclass(frozen=True)
class Summary:
    """What a world holds, after a reset or a load (`Summary`)."""

    main_project: object
    organizations: int
    projects: int
    tokens: int
    reservations: int
    devices: int
    ssh_keys: int


def _names(cls):
    return tuple(f.name for f in dataclasses.fields(cls))


#: The JSON fields this module sends and reads, by their definition in the
#: control API's schema.
WIRE = {
    "FaultsRequest": ("faults", "random"),
    "FaultSpec": _FAULT_FIELDS,
    "RandomSpec": ("rate", "seed", "kinds"),
    "ClockRequest": ("advance_seconds",),
    "CallsQuery": ("operation", "limit"),
    "CallJson": _names(Call),
    "Calls": _names(Calls),
    "ClockJson": _names(Clock),
    "Summary": _names(Summary),
    "Errors": ("errors",),
    "TokenRefused": ("error",),
}


def _decode(cls, value):
    """`cls` from a JSON object, taking the fields it knows."""
    return cls(**{name: value.get(name) for name in _names(cls)})


def binary():
    """The metal-fake binary: `$METAL_FAKE`, else the one installed beside
    this package (the wheel's), else `metal-fake` on the PATH."""
    named = os.environ.get("METAL_FAKE")
    if named:
        return named
    exe = "metal-fake.exe" if os.name == "nt" else "metal-fake"
    for scripts in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        if scripts:
            candidate = os.path.join(scripts, exe)
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                return candidate
    found = shutil.which("metal-fake")
    if found:
        return found
    raise MetalFakeStartError(
        "metal-fake not found: install the metal-fake wheel, put metal-fake on the PATH, "
        "or set METAL_FAKE to the binary",
        "",
    )


def control_schema(path=None):
    """The control API's JSON Schema, as the binary (`path`, else
    `binary()`) prints it with `--control-schema`."""
    out = subprocess.run(
        [path or binary(), "--control-schema"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
    )
    if out.returncode != 0:
        raise MetalFakeStartError(
            f"metal-fake --control-schema exited with {out.returncode}",
            out.stderr.decode(errors="replace"),
        )
    return json.loads(out.stdout)


class MetalFake:
    """A running metal-fake binary, on a free loopback port.

    Use it as a context manager (or call `start()` and `stop()`). Every
    keyword argument but `binary`, `args` and `startup_timeout` is a flag of
    the binary (`FLAGS`); None leaves the binary's default. `world` is a
    world document (a dict) or the path of one; `fail_hostname` a list of
    hostnames; `log_calls=True` has the binary print one line a call to its
    stderr (read with `stderr()`). `args` are more flags, passed as they are.

    Once started: `url` is the API's base URL (ending in /metal/v1, what a
    client's host is), `root` the server's root (the control API is under
    /_fake), `token` the X-Auth-Token it accepts, `project` the main
    project's UUID.
    """

    def __init__(
        self,
        *,
        token=DEFAULT_TOKEN,
        project=None,
        reservations=None,
        world=None,
        control_token=None,
        time_scale=None,
        rate_limit=None,
        fault_rate=None,
        seed=None,
        fail_rate=None,
        fail_hostname=(),
        provision_seconds=None,
        power_seconds=None,
        release_seconds=None,
        deprovision_seconds=None,
        state_file=None,
        log_calls=False,
        binary=None,
        args=(),
        startup_timeout=30.0,
    ):
        self.token = token
        self.control_token = control_token
        self.url = None
        self.root = None
        self.project = None
        self._binary = binary
        self._startup_timeout = startup_timeout
        self._world = world
        self._options = {
            "project": project,
            "reservations": reservations,
            "control_token": control_token,
            "time_scale": time_scale,
            "rate_limit": rate_limit,
            "fault_rate": fault_rate,
            "seed": seed,
            "fail_rate": fail_rate,
            "provision_seconds": provision_seconds,
            "power_seconds": power_seconds,
            "release_seconds": release_seconds,
            "deprovision_seconds": deprovision_seconds,
            "state_file": state_file,
        }
        self._fail_hostnames = list(fail_hostname)
        self._log_calls = log_calls
        self._extra = list(args)
        self._process = None
        self._stderr = None
        self._tmp = None

    # -- the process ---------------------------------------------------

    def _command(self):
        command = [self._binary or binary()]
        command += [FLAGS["listen"], "127.0.0.1:0", FLAGS["token"], self.token]
        for name, value in self._options.items():
            if value is not None:
                command += [FLAGS[name], str(value)]
        if self._world is not None:
            path = self._world
            if not isinstance(path, (str, os.PathLike)):
                path = os.path.join(self._tmp.name, "world.json")
                with open(path, "w") as f:
                    json.dump(self._world, f)
            command += [FLAGS["world"], os.fspath(path)]
        for hostname in self._fail_hostnames:
            command += [FLAGS["fail_hostname"], hostname]
        if self._log_calls:
            command.append(FLAGS["log_calls"])
        return command + self._extra

    def start(self):
        """Starts the binary and reads its URL and project; raises
        `MetalFakeStartError` with its stderr if it does not start."""
        if self._process is not None:
            return self
        self._tmp = tempfile.TemporaryDirectory(prefix="metal-fake-")
        self._stderr = open(os.path.join(self._tmp.name, "stderr"), "w+b")
        command = self._command()
        env = dict(os.environ)
        env.pop("METAL_AUTH_TOKEN", None)
        try:
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                env=env,
            )
        except OSError as e:
            self._cleanup()
            raise MetalFakeStartError(f"cannot run {command[0]}: {e}", "") from None
        lines = []
        reader = threading.Thread(target=self._read_lines, args=(lines,), daemon=True)
        reader.start()
        reader.join(self._startup_timeout)
        url = lines[0].strip() if lines else ""
        project = lines[1].strip() if len(lines) > 1 else ""
        prefix = "metal-fake listening on "
        if not (url.startswith(prefix) and project.startswith("project ")):
            if reader.is_alive():
                why = f"printed no URL and project in {self._startup_timeout} s"
            else:
                # Its stdout ended: it is exiting, or printed something else.
                try:
                    why = f"exited with code {self._process.wait(timeout=10)}"
                except subprocess.TimeoutExpired:
                    why = "printed something else"
            self._kill()
            stderr = self.stderr()
            self._cleanup()
            raise MetalFakeStartError(
                f"metal-fake did not start ({why}; stdout {lines!r}): {' '.join(command)}",
                stderr,
            )
        self.url = url[len(prefix):]
        self.root = self.url[: -len("/metal/v1")] if self.url.endswith("/metal/v1") else self.url
        self.project = project[len("project "):]
        return self

    def _read_lines(self, lines):
        for _ in range(2):
            line = self._process.stdout.readline()
            if not line:
                return
            lines.append(line.decode(errors="replace"))

    def stderr(self):
        """What the binary wrote to stderr so far (its log)."""
        if self._stderr is None or self._stderr.closed:
            return ""
        self._stderr.flush()
        self._stderr.seek(0)
        text = self._stderr.read().decode(errors="replace")
        self._stderr.seek(0, os.SEEK_END)
        return text

    def _kill(self):
        if self._process is not None:
            if self._process.poll() is None:
                self._process.kill()
            self._process.wait()
            if self._process.stdout is not None:
                self._process.stdout.close()
            self._process = None

    def _cleanup(self):
        if self._stderr is not None:
            self._stderr.close()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def stop(self):
        """Stops the binary (SIGKILL: nothing is saved, even with
        `state_file`; send SIGTERM through `process` for that)."""
        self._kill()
        self._cleanup()

    @property
    def process(self):
        """The binary's `subprocess.Popen`, while it runs."""
        return self._process

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    def __repr__(self):
        return f"MetalFake(url={self.url!r}, project={self.project!r})"

    # -- the control API -------------------------------------------------

    def _control(self, method, path, body=None, query=None):
        if self.root is None:
            raise MetalFakeError(method, path, None, ["the fake is not started"])
        target = path
        if query:
            target += "?" + urllib.parse.urlencode(query)
        headers = {"Content-Type": "application/json"}
        if self.control_token is not None:
            headers[_CONTROL_TOKEN_HEADER] = self.control_token
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.root + target, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=60) as reply:
                return json.load(reply)
        except urllib.error.HTTPError as e:
            text = e.read().decode(errors="replace")
            try:
                decoded = json.loads(text)
                errors = decoded.get("errors") or [decoded.get("error", text)]
            except (ValueError, AttributeError):
                errors = [text]
            raise MetalFakeError(method, target, e.code, errors) from None
        except (urllib.error.URLError, OSError) as e:
            raise MetalFakeError(method, target, None, [str(e)]) from None

    def reset(self):
        """Back to the seeded world and faults, with an empty call log."""
        return _decode(Summary, self._control("POST", "/_fake/reset"))

    def fault(
        self,
        operation,
        kind,
        *,
        target=None,
        nth=None,
        times=None,
        status=None,
        retry_after_seconds=None,
        seconds=None,
    ):
        """Adds one scripted fault: `kind` (one of `KINDS`) on the calls of
        `operation` (an operationId; None: any), only those naming `target`
        (a UUID), only the `nth` one, `times` in a row; `status` for
        fail_before and fail_after, `retry_after_seconds` for throttle,
        `seconds` for latency."""
        given = {
            "operation": operation,
            "target": None if target is None else str(target),
            "nth": nth,
            "times": times,
            "kind": kind,
            "status": status,
            "retry_after_seconds": retry_after_seconds,
            "seconds": seconds,
        }
        spec = {k: v for k, v in given.items() if v is not None}
        return self._control("POST", "/_fake/faults", {"faults": [spec]})

    def random_faults(self, rate, seed=0, kinds=None):
        """Faults at random on a `rate` of the calls, drawn from `seed`;
        `kinds` (names of `KINDS`, or dicts of a kind and its parameters)
        narrows them."""
        spec = {"rate": rate, "seed": seed}
        if kinds:
            spec["kinds"] = [k if isinstance(k, dict) else {"kind": k} for k in kinds]
        return self._control("POST", "/_fake/faults", {"random": spec})

    def clear_faults(self):
        """Clears every fault, scripted and random."""
        return self._control("DELETE", "/_fake/faults")

    def calls(self, operation=None, limit=None):
        """The recorded calls (of `operation` only, the last `limit`)."""
        query = {}
        if operation is not None:
            query["operation"] = operation
        if limit is not None:
            query["limit"] = str(limit)
        reply = self._control("GET", "/_fake/calls", query=query)
        return Calls(
            total=reply["total"],
            calls=[_decode(Call, c) for c in reply["calls"]],
            last_seq=reply["last_seq"],
            resets=reply["resets"],
        )

    def advance(self, seconds):
        """Advances the fake's clock (at most a week a call)."""
        return _decode(Clock, self._control("POST", "/_fake/clock", {"advance_seconds": seconds}))

    def clock(self):
        """The fake's clock."""
        return _decode(Clock, self._control("GET", "/_fake/clock"))

    def world(self):
        """The world now, as a world document (a dict)."""
        return self._control("GET", "/_fake/world")

    def load_world(self, doc):
        """Replaces the world with `doc` (a dict, or the path of a JSON
        file)."""
        if isinstance(doc, (str, os.PathLike)):
            with open(doc) as f:
                doc = json.load(f)
        return _decode(Summary, self._control("POST", "/_fake/world", doc))

    def state(self):
        """The counters and the world's contents (a dict)."""
        return self._control("GET", "/_fake/state")
