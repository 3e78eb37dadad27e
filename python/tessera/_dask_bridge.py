"""The Dask runner's bridge between Collage and a Dask cluster.

Collage (C++) starts ``python -m tessera._dask_bridge --timeout S tcp://HOST:PORT`` and
writes measurement jobs to its standard input (the protocol of
``tessera/collage/measure_worker.h``). Each job is measured on a worker of the cluster
whose machine fingerprint for the job's targets matches the job's, in a fresh
``tessera-measure-worker`` process there (a candidate that crashes takes only that process
down; one that runs longer than S seconds is killed), and the answer goes back on
standard output as soon as it is ready. A worker killed mid-task is Dask's business: the
scheduler runs the task elsewhere, and after repeated losses the candidate is invalid.
Workers need the ``tessera`` package installed; start them with one thread each
(``dask-worker --nthreads 1``) so that measurements never share a core.
"""
import argparse
import concurrent.futures
import os
import pathlib
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings


def _worker_program():
    """The tessera-measure-worker on this machine (next to the package's libraries, or in
    the build tree above a development package)."""
    env = os.environ.get("TESSERA_MEASURE_WORKER")
    if env:
        return env
    package = pathlib.Path(__file__).resolve().parent
    for candidate in (package / "tessera-measure-worker",
                      package.parent.parent / "tessera-measure-worker"):
        if candidate.exists():
            return str(candidate)
    raise FileNotFoundError(f"tessera-measure-worker not found next to {package}")


def measure_on_worker(header, payload, timeout):
    """Runs one job (header line with id 0, then the saved program) in a fresh
    tessera-measure-worker on this machine; returns the answer without its id."""
    where = socket.gethostname()
    try:
        proc = subprocess.Popen([_worker_program()], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        return f"error cannot start the measurement worker on {where}: {e}"
    try:
        out, err = proc.communicate(header.encode() + b"\n" + payload, timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return (f"invalid timed out: the candidate ran longer than {timeout:g} s "
                f"(collage.measure_timeout_s) on {where}; the measurement worker was killed")
    last = (err.decode(errors="replace").strip().splitlines() or [""])[-1]
    if proc.returncode < 0:
        sig = -proc.returncode
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        return (f"invalid the candidate crashed the measurement worker on {where} "
                f"(killed by signal {sig} ({name}))" + (f": {last}" if last else ""))
    lines = out.decode(errors="replace").splitlines()
    if not lines:
        return f"error the measurement worker on {where} exited with status {proc.returncode}: {last}"
    return lines[0].split(" ", 1)[1] if " " in lines[0] else lines[0]


def worker_fingerprint(targets):
    """This machine's fingerprint hash for running programs built for `targets`
    (';'-separated; the driver builds, so only where they run matters)."""
    from tessera import collage
    return collage.fingerprint_hash(collage.runner_fingerprint(targets))


class Bridge:
    """Reads jobs, submits them to the cluster, writes answers as they complete."""

    def __init__(self, address, timeout):
        from distributed import Client
        self.address = address
        self.timeout = timeout
        self.client = Client(address, timeout="10s")
        self.out = sys.stdout.buffer
        self.lock = threading.Lock()       # pending
        self.out_lock = threading.Lock()   # standard output
        self.workers_by_targets = {}
        self.pending = {}  # future -> (job id, when submitted)
        self.closed = threading.Event()
        threading.Thread(target=self.watchdog, daemon=True).start()
        self.collectors = concurrent.futures.ThreadPoolExecutor(max_workers=8)

    def answer(self, job_id, text):
        line = f"{job_id} {text}".replace("\n", " ") + "\n"
        with self.out_lock:
            self.out.write(line.encode())
            self.out.flush()

    def matching_workers(self, targets, fingerprint):
        """The workers whose fingerprint matches, and whether that is all of them."""
        alive = set(self.client.scheduler_info()["workers"])
        known = self.workers_by_targets.get(targets, {})
        if set(known) != alive:   # workers came or went (a restarted worker has a new address)
            known = self.client.run(worker_fingerprint, targets)
            self.workers_by_targets[targets] = known
        matching = sorted(w for w, h in known.items() if h == fingerprint)
        return matching, len(matching) == len(known)

    def submit(self, job_id, fields, payload):
        # fields: bytes threads repeat number percentile flush check fingerprint targets...
        fingerprint, targets = fields[7], " ".join(fields[8:])
        workers, everyone = self.matching_workers(targets, fingerprint)
        if not workers:
            self.answer(job_id, f"invalid no worker of the Dask cluster at {self.address} has this "
                                f"machine's fingerprint ({fingerprint}) for {targets} "
                                f"({len(self.workers_by_targets[targets])} worker(s))")
            return
        header = " ".join(["measure", "0"] + fields)
        # The program travels with the task (not scattered), and the task is tied to
        # workers only when some do not match: if its worker dies, the scheduler runs it
        # on another one.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "large object in the task graph": intended
            future = self.client.submit(measure_on_worker, header, payload, self.timeout,
                                        workers=None if everyone else workers,
                                        allow_other_workers=False, pure=False)
        with self.lock:
            self.pending[future] = (job_id, time.monotonic())

        def collect(f):
            # Off the client's event loop: fetching a result may wait for the scheduler to
            # run the task again when the worker holding it died.
            try:
                text = f.result(timeout=self.timeout + 30)
            except Exception as e:  # noqa: BLE001 - a lost worker, a cancelled task
                text = f"invalid Dask could not measure it: {type(e).__name__}: {e}"
            self.finish(f, text)

        future.add_done_callback(lambda f: self.collectors.submit(collect, f))

    def finish(self, future, text):
        """Answers the job of `future` once (the watchdog and its callback may race)."""
        with self.lock:
            entry = self.pending.pop(future, None)
        if entry is not None:
            self.answer(entry[0], text)

    def watchdog(self):
        """Gives up on tasks the cluster did not finish in time (their workers left)."""
        limit = 1.5 * self.timeout + 30
        while not self.closed.wait(1.0):
            now = time.monotonic()
            with self.lock:
                late = [f for f, (_, t) in self.pending.items() if now - t > limit]
            for f in late:
                f.cancel()
                self.finish(f, f"invalid the Dask cluster did not measure it within {limit:g} s")

    def run(self, stream):
        while True:
            line = stream.readline()
            if not line:
                break
            words = line.decode().split()
            if len(words) < 11 or words[0] != "measure":
                print(f"tessera._dask_bridge: malformed job line {line[:200]!r}", file=sys.stderr)
                return 1
            job_id, size = words[1], int(words[2])
            payload = stream.read(size)
            if len(payload) != size:
                break
            try:
                self.submit(job_id, words[2:], payload)
            except Exception as e:  # noqa: BLE001 - the job fails, the bridge goes on
                self.answer(job_id, f"error {type(e).__name__}: {e}")
        return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tessera._dask_bridge",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds one candidate may run on its worker")
    parser.add_argument("address", help="the scheduler, tcp://HOST:PORT")
    args = parser.parse_args(argv)
    try:
        bridge = Bridge(args.address, args.timeout)
    except Exception as e:  # noqa: BLE001 - reported to Collage through stderr and the exit code
        print(f"cannot use the Dask cluster at {args.address}: {type(e).__name__}: {e}",
              file=sys.stderr)
        return 1
    try:
        return bridge.run(sys.stdin.buffer)
    finally:
        bridge.closed.set()
        bridge.client.close()


if __name__ == "__main__":
    sys.exit(main())
