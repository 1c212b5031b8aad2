"""pg.py: a throwaway PostgreSQL server for the end-to-end tests: initdb -A trust in a temporary
directory, listening only on a Unix socket in that directory, stopped and removed afterwards.
PostgreSQL refuses to run as root (CI does): then the server runs as user nobody, which owns
the directory. A test without the postgres binaries skips (exit 77)."""
import contextlib, glob, os, shutil, subprocess, sys, tempfile

SUPERUSER = "bench"


def bindir():
    """The newest /usr/lib/postgresql/N/bin holding initdb, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[-3]))
    return os.path.dirname(found[-1]) if found else None


def skip_without_server():
    if not bindir():
        print("SKIP: no PostgreSQL server binaries (apt-get install postgresql)")
        sys.exit(77)


class Server:
    def __init__(self, tmp, port):
        self.dir, self.port, self.bin = tmp, port, bindir()
        self.data = os.path.join(tmp, "data")

    def _as_owner(self, *cmd, check=True):
        """Runs a server command as the data directory's owner (nobody when we are root)."""
        prefix = ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []
        return subprocess.run(prefix + list(cmd), check=check, capture_output=True, text=True,
                              timeout=120)

    def url(self, user=SUPERUSER, db="postgres"):
        """A libpq URL of this server for user (no password: the server trusts the socket)."""
        return "postgresql:///%s?host=%s&port=%d&user=%s" % (db, self.dir, self.port, user)

    def psql(self, sql, user=SUPERUSER, db="postgres", check=True):
        """Runs sql with psql (ON_ERROR_STOP, unaligned tuples): the CompletedProcess; with
        check, a failure raises RuntimeError with psql's message."""
        p = subprocess.run([os.path.join(self.bin, "psql"), "-X", "-q", "-A", "-t", "-v",
                            "ON_ERROR_STOP=1", "-d", self.url(user, db), "-c", sql],
                           capture_output=True, text=True, timeout=300)
        if check and p.returncode:
            raise RuntimeError("psql: %s" % p.stderr.strip())
        return p

    def start(self):
        self._as_owner(os.path.join(self.bin, "initdb"), "-A", "trust", "-U", SUPERUSER, "-E",
                       "UTF8", "--locale=C", "--no-sync", "-D", self.data)
        self.resume()

    def resume(self):
        """Starts the server on its data directory (again, after stop)."""
        opts = "-k %s -c listen_addresses= -p %d -F" % (self.dir, self.port)
        self._as_owner(os.path.join(self.bin, "pg_ctl"), "-D", self.data, "-o", opts, "-w", "-l",
                       os.path.join(self.dir, "server.log"), "start")

    def stop(self):
        self._as_owner(os.path.join(self.bin, "pg_ctl"), "-D", self.data, "-m", "immediate",
                       "-w", "stop", check=False)


@contextlib.contextmanager
def server(port):
    """A running server on port (fixed per test, so tests running at once do not collide)."""
    skip_without_server()
    tmp = tempfile.mkdtemp(prefix="bdb-pg-")
    if os.geteuid() == 0:
        shutil.chown(tmp, "nobody")
    srv = Server(tmp, port)
    try:
        srv.start()
        yield srv
    finally:
        srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)
