"""checks.py: a tiny assertion collector for the end-to-end tests. Each check prints on
failure; done() prints 'N passed, M failed' and returns the exit status."""


class Checks:
    """rel: relative tolerance of near(), against the expected value; abs_tol: the tolerance
    when the expected value is (close to) 0; none_equal: near(None, None) passes (an unknown
    value expected to stay unknown), otherwise None never matches."""

    def __init__(self, name, rel=1e-3, abs_tol=1e-9, none_equal=False):
        self.name, self.rel, self.abs_tol, self.none_equal = name, rel, abs_tol, none_equal
        self.passed = self.failed = 0

    def ok(self, cond, what):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL %s: %s" % (self.name, what))
        return cond

    def eq(self, got, want, what):
        return self.ok(got == want, "%s: got %r, want %r" % (what, got, want))

    def close(self, got, want, rel=None):
        """near()'s test without counting a check: for conditions made of several parts."""
        if got is None or want is None:
            return self.none_equal and got is None and want is None
        got, want = float(got), float(want)
        return abs(got - want) <= max((self.rel if rel is None else rel) * abs(want), self.abs_tol)

    def near(self, got, want, what, rel=None):
        return self.ok(self.close(got, want, rel), "%s: got %r, want %r" % (what, got, want))

    def fields(self, record, want, where):
        """Each field of want against the exported record's: floats near, tags (a dict) one
        by one, the rest equal; where names the record in messages."""
        for k, v in want.items():
            what = "%s: %s" % (where, k)
            if k == "tags":
                for tk, tv in v.items():
                    self.eq(record["tags"].get(tk), tv, what + "." + tk)
            elif isinstance(v, float):
                self.near(record.get(k), v, what)
            else:
                self.eq(record.get(k), v, what)

    def done(self):
        print("%s: %d passed, %d failed" % (self.name, self.passed, self.failed))
        return 1 if self.failed or not self.passed else 0
