"""The Wang-Song-Barabási citation model, fitted to many papers at once.

Wang, Song & Barabási (Science 342:127, 2013) model a paper's cumulative citations ``t`` years
after publication as ``c(t) = m (exp(λ Φ((ln t − μ) / σ)) − 1)``, with ``Φ`` the standard normal
distribution function, ``λ`` its fitness (immediacy), ``μ`` its time to peak, ``σ`` its
longevity and ``m`` a constant of the field; its ultimate count is ``m (e^λ − 1)``.

As in the catalog, ``m`` is fixed (the median citation count of the field) and ``λ``, ``μ``,
``σ`` are fitted by least squares: first on the catalog's grid (12 fitnesses from 0.1 to 7,
11 times to peak from −5 to 10, 10 longevities from 0.1 to 5, log-spaced where the catalog's
are), then refined, within the catalog's bounds (λ 0.001-7, σ at least 0.01), by
Levenberg-Marquardt steps where the catalog walked three local grids. Every paper is fitted in
the same array operations: the grid as two matrix products over the distinct ages observed,
the steps as 3x3 systems solved side by side. The bootstrap re-fits resamples from the
paper's own fit, seeded by its id (the catalog's FNV-1a hash and linear congruential draws).

>>> import numpy as np
>>> m = 30.0
>>> t = np.array([[1.0, 2.0, 3.0, 4.0, 5.0]])
>>> y = curve(t, m, np.array([[2.0, 1.0, 0.8]]))
>>> fitted = fit(t, y, np.ones_like(t), m)
>>> [round(float(v), 3) for v in fitted[0]]
[2.0, 1.0, 0.8]
>>> round(float(asymptote(m, 2.0)), 2)
191.67
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtr

LAMBDA = (0.001, 7.0)  # the catalog's bounds on the fitness
SIGMA_LEAST = 0.01
MU = (-20.0, 20.0)  # kg's: keeps a step from running off where no data says anything
GRID_LAMBDA = np.exp(np.linspace(math.log(0.1), math.log(7.0), 12))
GRID_MU = np.linspace(-5.0, 10.0, 11)
GRID_SIGMA = np.exp(np.linspace(math.log(0.1), math.log(5.0), 10))
STEPS = 60  # Levenberg-Marquardt iterations (a fit settles in 10-30)
BOOTSTRAP = 100  # resamples of a paper's points for its interval
CHUNK = 2048  # papers a grid product handles at once (bounds the memory: CHUNK x 1320 doubles)


def curve(t: np.ndarray, m: float, params: np.ndarray) -> np.ndarray:
    """``c(t)`` for each row of ``t`` with the parameters (λ, μ, σ) of that row."""
    lam, mu, sigma = (params[:, i:i + 1] for i in range(3))
    return m * np.expm1(lam * ndtr((np.log(t) - mu) / sigma))


def asymptote(m: float, lam: np.ndarray | float) -> np.ndarray:
    """The ultimate count ``m (e^λ − 1)``."""
    return m * np.expm1(lam)


def _grid() -> np.ndarray:
    lam, mu, sigma = np.meshgrid(GRID_LAMBDA, GRID_MU, GRID_SIGMA, indexing="ij")  # the catalog's loop order
    return np.stack([lam.ravel(), mu.ravel(), sigma.ravel()], axis=1)


GRID = _grid()


def grid_start(t: np.ndarray, y: np.ndarray, w: np.ndarray, m: float) -> np.ndarray:
    """For each paper (a row of ages ``t``, counts ``y``, weights ``w``: 0 for padding), the grid
    point of least squared error (the first of equal ones, in the catalog's order)."""
    ages, where = np.unique(t[w > 0], return_inverse=True)
    table = m * np.expm1(GRID[:, :1] * ndtr((np.log(ages)[None, :] - GRID[:, 1:2]) / GRID[:, 2:3]))
    counts = np.zeros((t.shape[0], ages.size))
    sums = np.zeros((t.shape[0], ages.size))
    rows = np.nonzero(w > 0)[0]
    np.add.at(counts, (rows, where), w[w > 0])
    np.add.at(sums, (rows, where), (w * y)[w > 0])
    best = np.empty((t.shape[0], 3))
    for start in range(0, t.shape[0], CHUNK):
        part = slice(start, start + CHUNK)
        # sum over points of (c - y)^2 = sum c^2 - 2 sum c y + sum y^2; the last is the same for every point
        error = counts[part] @ (table ** 2).T - 2 * sums[part] @ table.T
        best[part] = GRID[np.argmin(error, axis=1)]
    return best


def _errors(t: np.ndarray, y: np.ndarray, w: np.ndarray, m: float, params: np.ndarray) -> np.ndarray:
    return np.sum(w * (curve(t, m, params) - y) ** 2, axis=1)


def _jacobian(t: np.ndarray, m: float, params: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The model's values and its derivatives by (λ, μ, σ), shape (papers, points, 3)."""
    lam, mu, sigma = (params[:, i:i + 1] for i in range(3))
    z = (np.log(t) - mu) / sigma
    phi = ndtr(z)
    grows = m * np.exp(lam * phi)
    slope = grows * lam * np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
    return grows - m, np.stack([grows * phi, -slope / sigma, -slope * z / sigma], axis=2)


def _bounded(params: np.ndarray) -> np.ndarray:
    out = params.copy()
    out[:, 0] = np.clip(out[:, 0], *LAMBDA)
    out[:, 1] = np.clip(out[:, 1], *MU)
    out[:, 2] = np.maximum(out[:, 2], SIGMA_LEAST)
    return out


def refine(t: np.ndarray, y: np.ndarray, w: np.ndarray, m: float, start: np.ndarray) -> np.ndarray:
    """Levenberg-Marquardt from ``start``, every paper at once; a step is taken only where it lowers
    that paper's squared error, so no fit ends worse than it started. A paper whose steps no longer
    help (its damping past 1e10) or no longer change its error is left alone."""
    params = _bounded(start)
    error = _errors(t, y, w, m, params)
    damping = np.full(params.shape[0], 1e-3)
    active = np.arange(params.shape[0])
    for _ in range(STEPS):
        if active.size == 0:
            break
        ta, ya, wa, pa = t[active], y[active], w[active], params[active]
        values, jac = _jacobian(ta, m, pa)
        weighted = jac * wa[:, :, None]
        normal = np.matmul(weighted.transpose(0, 2, 1), jac)
        gradient = np.matmul(weighted.transpose(0, 2, 1), (values - ya)[:, :, None])
        diagonal = np.diagonal(normal, axis1=1, axis2=2)
        scale = damping[active, None] * diagonal + 1e-12 * (diagonal.max(axis=1, keepdims=True) + 1.0)
        system = normal + scale[:, :, None] * np.eye(3)
        trial = _bounded(pa + np.linalg.solve(system, -gradient)[:, :, 0])
        trial_error = _errors(ta, ya, wa, m, trial)
        before = error[active]
        better = np.isfinite(trial_error) & (trial_error < before)
        params[active[better]], error[active[better]] = trial[better], trial_error[better]
        damping[active] = np.where(better, damping[active] / 3, damping[active] * 4)
        settled = (damping[active] > 1e10) | (better & (before - trial_error <= 1e-13 * before))
        active = active[~settled]
    return params


def fit(t: np.ndarray, y: np.ndarray, w: np.ndarray, m: float) -> np.ndarray:
    """(λ, μ, σ) of each paper: the grid's best point, refined."""
    return refine(t, y, w, m, grid_start(t, y, w, m))


def r_squared(t: np.ndarray, y: np.ndarray, w: np.ndarray, m: float, params: np.ndarray) -> np.ndarray:
    """1 − SSres/SStot of each paper's points, clamped to [0, 1] (0 where its points are all equal)."""
    n = w.sum(axis=1)
    mean = (w * y).sum(axis=1) / np.maximum(n, 1)
    total = (w * (y - mean[:, None]) ** 2).sum(axis=1)
    residual = _errors(t, y, w, m, params)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total > 0, np.clip(1 - residual / total, 0.0, 1.0), 0.0)


def seed_of(text: str) -> int:
    """The catalog's seed of a paper's bootstrap: FNV-1a (32 bits) of its id's UTF-16 code units."""
    h = 2166136261
    data = text.encode("utf-16-le")
    for i in range(0, len(data), 2):
        h = ((h ^ int.from_bytes(data[i:i + 2], "little")) * 16777619) & 0xFFFFFFFF
    return h or 1


def draws(seed: int, count: int) -> np.ndarray:
    """``count`` numbers in [0, 1) from the catalog's generator (s = 1664525 s + 1013904223 mod 2^32)."""
    out = np.empty(count)
    s = seed & 0xFFFFFFFF
    for i in range(count):
        s = (s * 1664525 + 1013904223) & 0xFFFFFFFF
        out[i] = s / 4294967296
    return out


def bootstrap(papers: list[tuple[str, np.ndarray, np.ndarray, np.ndarray]], m: float) -> list[np.ndarray]:
    """For each paper (its id, ages, counts and fit), the ultimate counts of ``BOOTSTRAP`` resamples
    of its points (drawn with replacement, seeded by its id), each re-fitted from the paper's own
    fit, sorted. The resamples of the papers with as many points are refined at once, unpadded: a
    paper's answer is then the same, to the last digit, whichever papers are asked with it (padded to
    another width, its sums were rounded otherwise: breakouts' first rows changed with the limit)."""
    found: list[np.ndarray] = [np.empty(0)] * len(papers)
    by_size: dict[int, list[int]] = {}
    for i, (_, t, _, _) in enumerate(papers):
        by_size.setdefault(t.size, []).append(i)
    for width, members in by_size.items():
        rows = len(members) * BOOTSTRAP
        ts, ys, ws = np.ones((rows, width)), np.zeros((rows, width)), np.ones((rows, width))
        starts = np.empty((rows, 3))
        for j, i in enumerate(members):
            paper_id, t, y, params = papers[i]
            picks = np.floor(draws(seed_of(paper_id), BOOTSTRAP * width) * width).astype(int).reshape(BOOTSTRAP, width)
            picks.sort(axis=1)  # points in age order, as the catalog sorts each resample
            order = np.argsort(t, kind="stable")
            block = slice(j * BOOTSTRAP, (j + 1) * BOOTSTRAP)
            ts[block], ys[block], starts[block] = t[order][picks], y[order][picks], params
        totals = asymptote(m, (refine(ts, ys, ws, m, starts) if width else starts)[:, 0])
        for j, i in enumerate(members):
            found[i] = np.sort(totals[j * BOOTSTRAP:(j + 1) * BOOTSTRAP])
    return found


def interval(samples: np.ndarray) -> tuple[float, float]:
    """The catalog's 90% interval of sorted bootstrap samples: the 5th and the 95th of 100."""
    return float(samples[int(len(samples) * 0.05)]), float(samples[int(len(samples) * 0.95)])
