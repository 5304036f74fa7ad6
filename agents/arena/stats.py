"""Interval maths and ratings for the arena: t and Wilson intervals, Bradley-Terry (Elo) fits.

Self-contained (the standard library and numpy) so that the arena needs no statistics package:

- :func:`mean_interval`: the mean of paired differences (one value per duplicate deal pair) with a
  two-sided Student t interval, exact for any sample size (the t quantile comes from the
  regularized incomplete beta function, not from a normal approximation);
- :func:`wilson_interval`: a win rate with its Wilson score interval (sensible near 0 and 1);
- :func:`fit_elo`: Bradley-Terry strengths fitted by maximum likelihood from match results,
  reported on the Elo scale with analytic standard errors from the Fisher information.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

#: Points of Elo per natural-log unit of Bradley-Terry strength (400 Elo = a factor of 10 in odds).
ELO_PER_NAT = 400.0 / math.log(10.0)


@dataclass(frozen=True)
class Interval:
    """An estimate with a two-sided interval; ``low``/``high`` are NaN when ``n`` is too small."""

    estimate: float
    low: float
    high: float
    n: float

    def to_dict(self) -> dict[str, float]:
        return dict(vars(self))


def normal_quantile(confidence: float) -> float:
    """The z of a two-sided ``confidence`` interval (1.959964 for 0.95)."""
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz's method)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 1000):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return result


def regularized_beta(x: float, a: float, b: float) -> float:
    """The regularized incomplete beta function I_x(a, b), for 0 <= x <= 1."""
    if x <= 0.0 or x >= 1.0:
        return 0.0 if x <= 0.0 else 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_continued_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_continued_fraction(b, a, 1.0 - x) / b


def t_quantile(confidence: float, df: float) -> float:
    """The t of a two-sided ``confidence`` interval with ``df`` degrees of freedom (12.706 for 0.95, 1).

    Solves P(|T| > t) = 1 - confidence by bisection on the exact tail I_{df/(df+t^2)}(df/2, 1/2).
    """
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    tail = 1.0 - confidence
    low, high = 0.0, 1.0
    while regularized_beta(df / (df + high * high), df / 2.0, 0.5) > tail:
        high *= 2.0
    for _ in range(200):
        middle = (low + high) / 2.0
        if regularized_beta(df / (df + middle * middle), df / 2.0, 0.5) > tail:
            low = middle
        else:
            high = middle
        if high - low < 1e-12 * high:
            break
    return (low + high) / 2.0


def mean_interval(values: list[float] | np.ndarray, confidence: float = 0.95) -> Interval:
    """Mean of ``values`` with a two-sided Student t interval (mean +- t * sd / sqrt(n)).

    The arena passes one value per duplicate deal pair (the mean of its two plays), so this is the
    paired t interval; with fewer than two values the interval is NaN.
    """
    data = np.asarray(values, dtype=float)
    n = len(data)
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, 0)
    mean = float(data.mean())
    if n < 2:
        return Interval(mean, math.nan, math.nan, n)
    half = t_quantile(confidence, n - 1) * float(data.std(ddof=1)) / math.sqrt(n)
    return Interval(mean, mean - half, mean + half, n)


def wilson_interval(successes: float, n: float, confidence: float = 0.95) -> Interval:
    """Success rate ``successes / n`` with its Wilson score interval (draws may count as halves)."""
    if n <= 0:
        return Interval(math.nan, math.nan, math.nan, 0)
    z = normal_quantile(confidence)
    rate = successes / n
    centre = (rate + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n))
    return Interval(rate, max(0.0, centre - half), min(1.0, centre + half), n)


@dataclass(frozen=True)
class Rating:
    """One player's fitted Elo (mean of all players 0) with its standard error and interval."""

    elo: float
    se: float
    low: float
    high: float


def fit_elo(
    num_players: int,
    results: list[tuple[int, int, float]],
    confidence: float = 0.95,
    prior_draws: float = 1.0,
) -> list[Rating]:
    """Bradley-Terry ratings on the Elo scale from ``results`` as ``(i, j, score of i)`` (1, 0.5 or 0).

    Maximum likelihood by the minorization-maximization iteration of Hunter (2004). Every pair that
    met also gets ``prior_draws`` virtual draws, so that a player who won every match still has a
    finite rating. Standard errors come from the inverse (Moore-Penrose, as the ratings are fixed
    only up to a shift) of the Fisher information at the fit; ratings are centred on 0.
    """
    wins = np.zeros((num_players, num_players))
    for i, j, score in results:
        wins[i, j] += score
        wins[j, i] += 1.0 - score
    games = wins + wins.T
    met = games > 0
    wins[met] += prior_draws / 2.0
    games = wins + wins.T
    strength = np.ones(num_players)
    total_wins = wins.sum(axis=1)
    for _ in range(100_000):
        denominator = (games / (strength[:, None] + strength[None, :])).sum(axis=1)
        updated = np.where(denominator > 0, total_wins / np.where(denominator > 0, denominator, 1.0), 1.0)
        updated /= math.exp(np.log(updated).mean())
        converged = np.max(np.abs(np.log(updated) - np.log(strength))) < 1e-12
        strength = updated
        if converged:
            break
    theta = np.log(strength)
    p = strength[:, None] / (strength[:, None] + strength[None, :])
    weights = games * p * p.T
    information = np.diag(weights.sum(axis=1)) - weights
    covariance = np.linalg.pinv(information)
    z = normal_quantile(confidence)
    ratings = []
    for i in range(num_players):
        elo = float(theta[i] - theta.mean()) * ELO_PER_NAT
        se = math.sqrt(max(float(covariance[i, i]), 0.0)) * ELO_PER_NAT
        ratings.append(Rating(elo, se, elo - z * se, elo + z * se))
    return ratings
