"""``chainrules.ad.jit``: a recording replayed at new arguments gives what the function gives
there, and what cannot be replayed runs the function as it is (chainrules/ad/_jit.py).

Every comparison is with the same transformation called without ``jit`` at the same point, on
NumPy, array-api-strict, PyTorch and the guarded device array."""

from __future__ import annotations

import itertools
import re
import threading
import warnings
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from array_api_compat import array_namespace

from chainrules import ad
from chainrules.testing import to_numpy

RNG = np.random.default_rng(7)
X0 = np.array([0.3, 1.2, -0.7, 2.0])
POINTS = [X0 * (1.0 + 0.1 * RNG.standard_normal(4)) for _ in range(2)]


def rosen(x: Any) -> Any:
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2.0) ** 2.0 + (1 - x[:-1]) ** 2.0)


def logsumexp_dot(x: Any) -> Any:
    w = np.arange(16.0).reshape(4, 4) / 10.0
    return np.log(np.sum(np.exp(np.dot(w, x)))) + np.linalg.norm(x)


def likelihood(x: Any) -> Any:
    a = np.outer(x, x) + 4.0 * np.eye(4)
    c = np.linalg.cholesky(a)
    return np.sum(np.log(np.diag(c))) + x @ np.linalg.solve(a, x)


def masks(x: Any) -> Any:  # comparisons and bitwise operators: traced masks under jit
    m = (x > 0.5) | (x < -0.5)
    return np.sum(np.where(m & ~(x > 1.9), x**3, np.sin(x)))


def buffer(x: Any) -> Any:  # writes into an array the code creates
    out = array_namespace(x).zeros(5)
    out[1:] = x**2
    out[0] = np.sum(x)
    return np.sum(out * np.cumsum(out))


def masked_write(x: Any) -> Any:  # under jit the mask is traced: where(mask, 1, y)
    y = x * 2.0
    y[y > 1.0] = 1.0
    return np.sum(y * x)


def einsum_mean(x: Any) -> Any:
    m = np.einsum("i,j->ij", x, np.tanh(x))
    return np.mean(m, axis=0) @ np.max(m, axis=1)


def vector(x: Any) -> Any:
    return np.concatenate([np.sin(x) * x[0], np.cumprod(x)[1:]])


PROGRAMS = [rosen, logsumexp_dot, likelihood, masks, buffer, masked_write, einsum_mean]
TRANSFORMS: dict[str, Callable[[Any], Any]] = {
    "f": lambda f: f,
    "grad": ad.grad,
    "value_and_grad": ad.value_and_grad,
    "hessian": ad.hessian,
}


def _close(got: Any, want: Any) -> None:
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w)
        return
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12, atol=1e-12)


def _replays(j: Any) -> list[Any]:
    return [r for r in j.recordings.values() if callable(r)]


@pytest.mark.parametrize("t", list(TRANSFORMS))
@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_replay_is_the_function_at_new_points(f: Callable[[Any], Any], t: str) -> None:
    j = ad.jit(TRANSFORMS[t](f))
    _close(j(X0), TRANSFORMS[t](f)(X0))  # the recording's own call
    assert _replays(j), j.recordings
    for x in POINTS:
        _close(j(x), TRANSFORMS[t](f)(x))


def test_jacobian_and_vjp_replay() -> None:
    j = ad.jit(ad.jacobian(vector))
    j(X0)
    for x in POINTS:
        _close(j(x), ad.jacobian(vector)(x))

    def vjp_of(x: Any, ct: Any) -> Any:
        return ad.vjp(vector, x)[1](ct)

    jv = ad.jit(vjp_of)
    ct = np.linspace(-1.0, 1.0, 7)
    jv(X0, ct)
    assert _replays(jv)
    for x in POINTS:
        _close(jv(x, ct * x[0]), vjp_of(x, ct * x[0]))


def test_replay_runs_no_engine_code() -> None:
    """The replay is library calls only: no tracer is made and no rule is looked up."""
    j = ad.jit(ad.grad(rosen))
    j(X0)
    (replay,) = {id(r): r for r in _replays(j)}.values()
    assert "Tracer" not in replay.source and "rrule" not in replay.source
    _close(replay(POINTS[0]), ad.grad(rosen)(POINTS[0]))


def test_replay_releases_each_intermediate_after_its_last_use() -> None:
    """Every slot that is not returned is deleted, after the last line that reads it (a slot
    deleted earlier would be a NameError in the replay); a returned one never is. The replay's
    arrays are freed as the engine's tape frees a pullback's residuals: kept to the end, a chain
    at 1e6 elements held every intermediate at once."""

    def shared(x: Any) -> Any:  # y is read again after z, and returned
        y = np.sin(x) * x
        z = np.exp(y)
        return y, np.sum(z * y) + np.sum(np.tanh(y))

    for f in (shared, lambda x: ad.value_and_grad(lambda v: shared(v)[1])(x)):
        j = ad.jit(f)
        j(X0)
        (replay,) = {id(r): r for r in _replays(j)}.values()
        lines = [ln.strip() for ln in replay.source.splitlines()[1:]]
        body, ret = lines[:-1], lines[-1]
        made = {m for ln in body for m in re.findall(r"^(s\d+) = ", ln)}
        params = set(re.findall(r"s\d+", replay.source.splitlines()[0]))
        returned = set(re.findall(r"s\d+", ret))
        deleted: dict[str, int] = {}
        for i, ln in enumerate(body):
            if ln.startswith("del "):
                for name in ln[4:].split(", "):
                    assert name not in deleted, replay.source
                    deleted[name] = i
        assert set(deleted) == (made | params) - returned, replay.source
        for name, i in deleted.items():
            later = " ".join(body[i + 1 :])
            assert not re.search(rf"\b{name}\b", later), (name, replay.source)
        for x in POINTS:
            _close(j(x), f(x))


BIG = np.random.default_rng(3).standard_normal(40_000)  # 320 kB: NumPy's elision size


def _writes_into(replay: Any) -> list[str]:
    return re.findall(r"out=s\d+", replay.source)


def test_large_intermediates_are_written_into_not_allocated() -> None:
    """At NumPy's elision size a ufunc writes its result into an intermediate that it reads
    last: the replay's arrays are fewer and the result is the function's, bit for bit. Below it
    (and for the caller's arrays, constants and results) no call is given ``out=``."""

    def chain(x: Any) -> Any:
        return np.sum(np.sin(x) * np.exp(-x * x) + np.tanh(x))

    for f in (chain, ad.value_and_grad(chain)):
        j = ad.jit(f)
        j(BIG)
        (replay,) = _replays(j)
        assert len(_writes_into(replay)) >= 2, replay.source
        x = BIG * 0.9
        kept = x.copy()
        got, want = j(x), f(x)
        np.testing.assert_array_equal(x, kept)  # the argument is never written
        for g, w in zip(got, want) if isinstance(want, tuple) else [(got, want)]:
            np.testing.assert_array_equal(g, w)
    small = ad.jit(ad.value_and_grad(chain))
    small(X0)
    assert not any(_writes_into(r) for r in _replays(small))


def test_an_intermediate_with_a_view_or_returned_is_never_written() -> None:
    """A ufunc's result that a view reads (a reshape, a slice, a transpose: any call other than
    a ufunc may return one) or that the function returns keeps its values to the end."""

    def viewed(x: Any) -> Any:
        y = np.sin(x)
        v = y.reshape(200, 200).T  # reads y's memory, used after y's last ufunc
        z = np.exp(y)  # y's last read by a ufunc: y would be z's buffer without the view
        return np.sum(v.reshape(-1) * z)

    def returned(x: Any) -> Any:
        y = np.sin(x)
        return y, np.exp(y) + 1.0

    for f in (viewed, ad.value_and_grad(viewed), returned):
        j = ad.jit(f)
        j(BIG)
        x = BIG + 0.5
        _close(j(x), f(x))
        _close(j(BIG), f(BIG))


def test_calls_whose_results_nothing_reads_are_not_replayed() -> None:
    """``jit(grad(f))`` returns no value: ``f``'s forward calls that only the value needs are
    not in the replay, nor is any call whose result no later call, guard or result reads."""

    def f(x: Any) -> Any:
        return np.sum(np.sin(x) * x)

    g, vg = ad.jit(ad.grad(f)), ad.jit(ad.value_and_grad(f))
    g(X0)
    vg(X0)
    (replay,) = _replays(g)
    (both,) = _replays(vg)
    called = [v for k, v in replay.__globals__.items() if k.startswith("c") and callable(v)]
    assert np.sum not in called and np.multiply in called, replay.source
    assert replay.source.count("raise _Mismatch") < both.source.count("raise _Mismatch")
    for x in POINTS:
        _close(g(x), ad.grad(f)(x))
        _close(vg(x), ad.value_and_grad(f)(x))
    lines = [ln.strip() for ln in replay.source.splitlines() if "raise _Mismatch" not in ln]
    for a, b in itertools.pairwise(lines):  # no result deleted right after it is made
        m = re.match(r"^(s\d+) = ", a)
        assert not (m and b == f"del {m.group(1)}"), replay.source


def test_a_call_repeated_is_replayed_once() -> None:
    """The same function of the same arguments (slots, the same constant array, equal Python
    numbers) is called once and its result read again; ``-0.0`` is not ``0.0``; a result of the
    function is never another result's array."""

    def twice(x: Any) -> Any:
        w = np.arange(4.0)
        a = np.sum(np.sin(x) * w) + np.sum(np.sin(x) * w)
        zeros = np.copysign(1.0, x * 0.0) + 2.0 * np.copysign(1.0, x * -0.0)  # 1 + 2 * (-1)
        return a + np.sum(zeros * x), np.cos(x), np.cos(x)

    j = ad.jit(twice)
    j(X0)
    (replay,) = _replays(j)
    called = [v for k, v in replay.__globals__.items() if k.startswith("c") and callable(v)]
    assert called.count(np.sin) == 1 and called.count(np.multiply) >= 3, replay.source
    for x in POINTS:
        got, want = j(x), twice(x)
        _close(got, want)
        assert got[1] is not got[2]
    h = ad.jit(ad.hessian(lambda x: twice(x)[0]))
    for x in (X0, *POINTS):
        _close(h(x), ad.hessian(lambda x: twice(x)[0])(x))


def test_a_traceable_function_replays_its_body() -> None:
    """A replay runs a traceable function's body, not its wrapper (whose look for tracers no
    replay needs); a replay function called inside a transformation raises, naming what to call
    instead, rather than differentiate those bodies."""
    from chainrules.core.strong_zero import strong_multiply

    h = ad.jit(ad.hessian(rosen))
    h(X0)
    (replay,) = _replays(h)
    called = [v for k, v in replay.__globals__.items() if k.startswith("c") and callable(v)]
    assert strong_multiply.__chainrules_body__ in called and strong_multiply not in called
    for x in POINTS:
        _close(h(x), ad.hessian(rosen)(x))
    with pytest.raises(RuntimeError, match="call the jitted function"):
        ad.grad(lambda x: np.sum(replay(x)))(X0)
    _close(ad.grad(lambda x: np.sum(h(x)))(X0), ad.grad(lambda x: np.sum(ad.hessian(rosen)(x)))(X0))


def test_pytree_and_keyword_arguments() -> None:
    def loss(params: dict[str, Any], x: Any, *, scale: float) -> Any:
        h = np.tanh(x @ params["w"] + params["b"])
        return scale * np.sum(h**2)

    w, b = RNG.standard_normal((4, 3)), RNG.standard_normal(3)
    x = RNG.standard_normal((5, 4))
    g = ad.grad(loss)
    j = ad.jit(g)
    j({"w": w, "b": b}, x, scale=2.0)
    for k in range(2):
        p = {"w": w + k, "b": b - k}
        got, want = j(p, x, scale=2.0), g(p, x, scale=2.0)
        assert set(got) == {"w", "b"}
        _close(got["w"], want["w"])
        _close(got["b"], want["b"])
    _close(j({"w": w, "b": b}, x, scale=3.0)["w"], g({"w": w, "b": b}, x, scale=3.0)["w"])
    assert len(_replays(j)) == 2  # one recording per value of the non-array argument


def test_a_branch_on_a_value_is_a_guard_and_each_branch_is_replayed() -> None:
    """``if`` on a traced value reads a boolean on the host: the replay checks that value (a
    guard) and goes on only where it is the same; another outcome is recorded as a branch of
    the signature, and each call replays the branch it takes. Python's ``max`` compares the
    same way, and ``int`` of an integer value (a count) is a guard too."""

    def f(x: Any) -> Any:
        if np.sum(x) > 0:
            return np.sum(x**2)
        return np.sum(np.sin(x))

    def biggest(x: Any) -> Any:  # scipy_go.Schwefel06's spelling: Python's max of arrays
        return max(np.abs(x[0] + 2 * x[1] - 7), np.abs(2 * x[0] + x[1] - 5), x[2] ** 2)

    def counted(x: Any) -> Any:
        k = int(np.sum(x > 0))  # an integer read: the count of positive entries
        return np.sum(x[:k] ** 2) + np.sum(np.cos(x))

    for g in (f, biggest, counted):
        for t in ("f", "grad", "hessian"):
            j, plain = ad.jit(TRANSFORMS[t](g)), TRANSFORMS[t](g)
            points = [X0, -X0, X0 * 1.1, -X0 * 0.9, POINTS[0], -POINTS[1]]
            points += [np.array([0.0, 0.0, 3.0, 1.0]), np.array([2.0, 2.5, 0.1, 0.0])]
            for x in points + points:
                _close(j(x), plain(x))
            (branches,) = j.recordings.values()
            assert callable(branches) and 2 <= len(branches.replays) <= 4, branches
            assert "raise _Branch" in branches.source
    j = ad.jit(ad.grad(f))
    j(X0)
    j(-X0)
    calls = []
    with_spy = ad.jit(ad.grad(lambda x: calls.append(1) or f(x)))
    for x in (X0, -X0, X0, -X0, X0):
        _close(with_spy(x), ad.grad(f)(x))
    assert len(calls) == 2  # recorded once per branch, then replayed


def test_past_the_branches_kept_and_for_other_reads_it_runs_the_function() -> None:
    """A signature keeps ``MAX_BRANCHES`` outcomes; past them, and for a floating value read on
    the host (``float(x)``: a guard would almost never hold), it runs the function as it is,
    and ``recordings`` says why."""
    from chainrules.ad import _jit

    def signs(x: Any) -> Any:  # 2**4 outcomes of four branches
        total = np.sum(x**2)
        for i in range(4):
            if x[i] > 0:
                total = total + np.sin(x[i])
        return total

    def scaled(x: Any) -> Any:
        return np.sum(x**2) * float(np.sum(x))

    j = ad.jit(ad.grad(signs))
    for k in range(16):
        x = X0 * np.array([1.0 if k >> i & 1 else -1.0 for i in range(4)])
        _close(j(x), ad.grad(signs)(x))
        _close(j(x), ad.grad(signs)(x))
    (why,) = j.recordings.values()
    assert type(why) is str and f"more than {_jit.MAX_BRANCHES}" in why
    j = ad.jit(scaled)
    for x in (X0, -X0, X0):
        _close(j(x), scaled(x))
    (why,) = j.recordings.values()
    assert type(why) is str and "read on the host" in why


def test_a_data_dependent_shape_ends_the_replay() -> None:
    def f(x: Any) -> Any:
        return np.sum(np.compress(x > 0.0, x) ** 2)

    j = ad.jit(ad.grad(f))
    j(X0)  # three positive entries
    assert _replays(j)
    x = np.array([1.0, -2.0, -3.0, 4.0])  # two
    _close(j(x), ad.grad(f)(x))
    assert any(type(r) is str and "another shape" in r for r in j.recordings.values())
    _close(j(x), ad.grad(f)(x))  # and the function as it is from then on


def test_a_write_into_an_argument_runs_the_function() -> None:
    def f(x: Any, buf: Any) -> Any:
        buf[0] = np.sum(x)  # NumPy writes into the caller's array
        return np.sum(buf * x)

    j = ad.jit(f)
    b1, b2 = np.ones(4), np.ones(4)
    _close(j(X0, b1), f(X0, b2))
    _close(b1, b2)  # written, as without jit
    (why,) = j.recordings.values()
    assert "written into" in why


def test_errors_are_the_functions_own() -> None:
    def f(x: Any) -> Any:
        return np.sum(x @ np.ones((3, 3)))  # x has 4 entries

    j = ad.jit(ad.grad(f))
    for _ in range(2):
        with pytest.raises(ValueError, match="matmul"):
            j(X0)


def test_non_array_arguments_are_part_of_the_signature() -> None:
    def f(x: Any, powers: Any) -> Any:
        return sum(np.sum(x**p) for p in powers.values)

    j = ad.jit(ad.grad(f))
    for powers in ([2.0, 3.0], [1.0], [2.0, 3.0]):  # a list is a pytree of numbers
        unhashable = SimpleNamespace(values=powers)
        _close(j(X0, unhashable), ad.grad(f)(X0, unhashable))
        _close(j(X0, Holder(powers)), ad.grad(f)(X0, Holder(powers)))
    assert len(j.recordings) == 2  # one per hashable value; the unhashable one is never kept


class Holder:
    """A hashable argument, equal by its values."""

    def __init__(self, values: list[float]) -> None:
        self.values = values

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Holder) and self.values == other.values

    def __hash__(self) -> int:
        return hash(tuple(self.values))


def test_closed_over_arrays_are_constants_of_the_recording() -> None:
    """The contract (as ``jax.jit``'s): what ``f`` closes over is read at the recording."""
    scale = np.array(2.0)
    j = ad.jit(lambda x: x * scale)
    _close(j(X0), 2.0 * X0)
    scale = np.array(5.0)
    _close(j(X0), 2.0 * X0)


def test_inside_a_transformation_it_is_the_function() -> None:
    jf = ad.jit(rosen)
    jf(X0)
    _close(ad.grad(jf)(POINTS[0]), ad.grad(rosen)(POINTS[0]))
    _close(ad.hessian(jf)(POINTS[1]), ad.hessian(rosen)(POINTS[1]))
    jj = ad.jit(ad.jit(ad.grad(rosen)))
    _close(jj(X0), ad.grad(rosen)(X0))
    _close(jj(POINTS[0]), ad.grad(rosen)(POINTS[0]))


def test_threads_each_get_their_own_results() -> None:
    j = ad.jit(ad.grad(likelihood))
    points = [X0 * (1.0 + 0.05 * k) for k in range(8)]
    want = [ad.grad(likelihood)(x) for x in points]
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for _ in range(20):
                _close(j(points[k]), want[k])
        except BaseException as e:  # noqa: BLE001  (reported by the main thread)
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors[0]


# --- other array libraries ---------------------------------------------------------------------
def standard(x: Any) -> Any:
    xp = array_namespace(x)
    y = xp.where(x > 0.0, x**2, xp.sin(x))
    return xp.sum(y * xp.exp(-x)) + xp.linalg.vector_norm(x)


def _make(name: str, a: np.ndarray) -> Any:
    if name == "numpy":
        return a
    if name == "array_api_strict":
        xps = pytest.importorskip("array_api_strict")
        return xps.asarray(a)
    if name == "torch":
        torch = pytest.importorskip("torch")
        return torch.asarray(a)
    from chainrules.testing import device_array

    return device_array(a)


@pytest.mark.parametrize("t", ["grad", "hessian"])
@pytest.mark.parametrize("lib", ["numpy", "array_api_strict", "torch", "device"])
def test_other_libraries_replay_without_host_reads(lib: str, t: str) -> None:
    """The guarded device array refuses every element read: the recording and the replay make
    none."""
    j = ad.jit(TRANSFORMS[t](standard))
    j(_make(lib, X0))
    assert _replays(j), j.recordings
    for x in POINTS:
        got = to_numpy(j(_make(lib, x)))
        want = to_numpy(TRANSFORMS[t](standard)(_make(lib, x)))
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("lib", ["array_api_strict", "torch"])
def test_other_libraries_replay_each_branch(lib: str) -> None:
    """A guard is checked with the library's own comparison and ``bool``."""

    def piece(x: Any) -> Any:
        xp = array_namespace(x)
        if xp.sum(x) > 0:
            return xp.sum(xp.sin(x))
        return xp.sum(x**2)

    j = ad.jit(ad.grad(piece))
    for x in (X0, -X0, POINTS[0], -POINTS[1]):
        got, want = to_numpy(j(_make(lib, x))), to_numpy(ad.grad(piece)(_make(lib, x)))
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    (branches,) = j.recordings.values()
    assert len(branches.replays) == 2


def test_under_jax_jit_the_recording_is_traced_through() -> None:
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    j = ad.jit(ad.grad(standard))
    got = jax.jit(j)(jax.numpy.asarray(X0))
    np.testing.assert_allclose(np.asarray(got), ad.grad(standard)(X0), rtol=1e-12)


# --- the population: programs others wrote -----------------------------------------------------
@pytest.mark.parametrize("every", [False, True], ids=["default", "every-ufunc-writes-into"])
def test_population_programs_replay_what_they_compute(
    every: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every population program's grad and hessian, recorded at its point and replayed at
    another, equals the transformation without jit there; almost all of them replay. Again with
    every ufunc's result, at any size, a buffer a later ufunc may write into: the population's
    views, slices and returned intermediates at n <= 10 check the buffer plan's rules."""
    pytest.importorskip("scipy")
    from chainrules.ad import _jit

    if every:
        monkeypatch.setattr(_jit, "_MIN_BUFFER", 0)
    writes = 0
    from benchmarks.population.bench import _nondeterministic, disagreement, quiet, transforms_of
    from benchmarks.population.programs import population

    wrong, replayed, cells = [], 0, 0
    rng = np.random.default_rng(0)
    with quiet():
        for p in population():
            x0 = p.args[0]
            if not isinstance(x0, np.ndarray) or x0.dtype.kind != "f" or _nondeterministic(p):
                continue
            x1 = x0 * (1.0 + 0.01 * rng.standard_normal(x0.shape))
            for t in transforms_of(p):
                if t == "jacobian":
                    continue
                f = p.function("numpy")
                try:
                    want = TRANSFORMS[t](f)(x1, *p.args[1:])
                except Exception:  # noqa: BLE001  (not differentiable without jit either)
                    continue
                j = ad.jit(TRANSFORMS[t](f))
                j(x0, *p.args[1:])
                got = j(x1, *p.args[1:])
                cells += 1
                replayed += bool(_replays(j))
                writes += sum(len(_writes_into(r)) for r in _replays(j))
                if why := disagreement(got, want, 1e-9):
                    wrong.append(f"{p.name} {t}: {why}")
    assert not wrong, wrong
    assert cells > 500 and replayed >= 0.95 * cells, (replayed, cells)
    assert (writes > 1000) if every else writes == 0, writes  # n <= 10: below the size


@pytest.mark.parametrize("writer", ["put", "copyto", "fill_diagonal"])
def test_a_call_that_writes_in_place_runs_the_function(writer: str) -> None:
    """A call that returns None wrote into an argument: the recording stops, and the function
    runs on the caller's arrays, which are written once, as without jit."""

    def f(x: Any, buf: Any) -> Any:
        if writer == "put":
            np.put(buf, [0, 2], [1.5, 2.5])
        elif writer == "copyto":
            np.copyto(buf, 2.0 * buf)
        else:
            np.fill_diagonal(buf.reshape(2, 2), 9.0)
        return np.sum(x * buf)

    b1, b2 = np.arange(4.0), np.arange(4.0)
    j = ad.jit(f)
    _close(j(X0, b1), f(X0, b2))
    _close(b1, b2)
    (why,) = j.recordings.values()
    assert "in place" in why or "written into" in why, why


def test_constant_results_are_new_arrays_at_each_call() -> None:
    """A result that depends on no argument (a zero gradient, an array the code creates) is a
    constant of the recording; each replay returns its own copy, so writing into one result
    changes no later one."""

    def f(x: Any, d: Any) -> Any:
        return np.sum(x**2) + 0.0 * np.sum(array_namespace(x).zeros(3))

    j = ad.jit(ad.grad(f, argnums=(0, 1)))
    j(X0, np.ones(3))
    for _ in range(2):
        _, gd = j(X0, np.ones(3))
        _close(gd, np.zeros(3))
        gd += 1.0  # the caller's own array
    created = ad.jit(lambda x: (x * 2.0, array_namespace(x).ones(2)))
    created(X0)
    a = created(X0)[1]
    a[0] = 5.0
    _close(created(X0)[1], np.ones(2))
    assert all(callable(r) for r in created.recordings.values())


def test_the_error_is_not_chained_to_the_recordings() -> None:
    """The function's own error, as without jit: not raised while handling the recording's."""

    def f(x: Any) -> Any:
        return np.sum(x @ np.ones((3, 3)))

    with pytest.raises(ValueError) as info:
        ad.jit(f)(X0)
    assert info.value.__context__ is None


def test_recording_at_every_call_is_said() -> None:
    """A Python float that changes at every call is part of the signature: past the kept
    recordings the jitted function says so, once, and names what to pass instead."""
    from chainrules.ad import _jit

    j = ad.jit(ad.grad(lambda x, lr: np.sum(x**2) * lr))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for k in range(_jit.MAX_SIGNATURES + 5):
            _close(j(X0, 1.0 + k), 2 * X0 * (1.0 + k))
    said = [w for w in seen if "signatures recorded" in str(w.message)]
    assert len(said) == 1 and "Pass values that change as arrays" in str(said[0].message)
    assert len(j.recordings) == _jit.MAX_SIGNATURES
