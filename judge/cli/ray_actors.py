"""``judge ray stop``: end the judge's actors kept warm on a Ray cluster, now.

    judge ray stop [--ray-address ADDR] [--force]

After a ``judge run --executor ray`` on a cluster, each node keeps the judge's actor (idle,
its sandbox closed, no CPU held) for the next driver, for ``JUDGE_RAY_KEEP_S`` seconds
(default 60); see :mod:`judge.distribution.ray_session`. This ends the idle ones at once, of
every judge version (``--force``: also those a run holds, which then retries their
candidates elsewhere).
"""

from __future__ import annotations

import argparse
from typing import Any

from judge.cli.common import EXIT_USAGE, err
from judge.settings import settings


def register(sub: Any) -> None:
    p = sub.add_parser("ray", help="the judge's actors kept warm on a Ray cluster",
                       description="stop: end the judge's idle actors kept on a Ray cluster "
                                   "for later runs (JUDGE_RAY_KEEP_S), now")
    p.add_argument("action", choices=("stop",), help="stop: end the idle kept actors now")
    p.add_argument("--ray-address", metavar="ADDR",
                   help="the cluster (default: RAY_ADDRESS)")
    p.add_argument("--force", action="store_true",
                   help="also end actors a run holds (it retries their candidates elsewhere)")
    p.set_defaults(func=cmd_ray)


def cmd_ray(args: argparse.Namespace) -> int:
    from judge.distribution import ray_session
    from judge.distribution.ray_executor import _check_reachable, _ray

    address = args.ray_address or settings().ray_address
    if not address:
        err("judge ray stop: give --ray-address (or RAY_ADDRESS); a private Ray keeps nothing")
        return EXIT_USAGE
    ray = _ray()
    try:
        _check_reachable(address)
        ray.init(address=address, log_to_driver=False)
    except Exception as exc:  # noqa: BLE001 - no cluster there: say so, exit 3
        from judge.sandbox.base import SandboxUnavailable

        raise SandboxUnavailable("cannot reach a Ray cluster at %s: %s" % (address, exc)
                                 ) from None
    try:
        stopped = ray_session.release_all(ray, force=args.force)
    finally:
        ray.shutdown()
    print("stopped %d kept judge actor%s on %s" % (stopped, "" if stopped == 1 else "s",
                                                    address))
    return 0
