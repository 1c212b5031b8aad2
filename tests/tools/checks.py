"""checks.py: a tiny assertion collector for the end-to-end tests. Each check prints on
failure; done() prints 'N passed, M failed' and returns the exit status."""
import math


class Checks:
    def __init__(self, name, rel=1e-3):
        self.name, self.rel, self.passed, self.failed = name, rel, 0, 0

    def ok(self, cond, what):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL %s: %s" % (self.name, what))
        return cond

    def eq(self, got, want, what):
        return self.ok(got == want, "%s: got %r, want %r" % (what, got, want))

    def near(self, got, want, what):
        good = got is not None and want is not None and (
            math.isclose(float(got), float(want), rel_tol=self.rel, abs_tol=1e-9))
        return self.ok(good, "%s: got %r, want %r" % (what, got, want))

    def done(self):
        print("%s: %d passed, %d failed" % (self.name, self.passed, self.failed))
        return 1 if self.failed or not self.passed else 0
